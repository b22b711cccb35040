// A GPU in the packet model: an endpoint (copy engines, memory as completer) that holds
// the GPU's compute engine and state (models/gpu/gpu_compute.h).
#pragma once
#include "models/gpu/gpu_compute.h"
#include "models/pcie/endpoint.h"

namespace arbsim {

class Gpu : public Endpoint {
 public:
  Gpu(sc_core::sc_module_name name, const EndpointParams& p, const PortSpec& port, TransferTracker& tracker);
  GpuCompute& compute() { return compute_; }
  void trace(sc_core::sc_trace_file* tf) override;

 private:
  GpuCompute compute_;
};

}  // namespace arbsim
