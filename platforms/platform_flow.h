// What Platform owns in the flow-level mode (sim.fidelity: flow): the flow fabric, a
// compute engine per GPU and the flow-level copy engines (platforms/platform_flow.cpp).
#pragma once
#include <memory>
#include <vector>
#include "models/flow/flow_fabric.h"
#include "models/gpu/gpu_compute.h"

namespace arbsim {

struct FlowParts {
  std::unique_ptr<FlowFabric> fabric;
  std::vector<std::unique_ptr<GpuCompute>> gpus;
  std::vector<std::unique_ptr<FlowEngine>> engines;
};

}  // namespace arbsim
