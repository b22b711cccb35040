// What the host driver hands a copy command to: a DMA engine that turns it into TLPs
// (packet fidelity, models/pcie/dma_engine.h) or a flow-level engine that moves it as a
// fluid flow (sim.fidelity: flow, models/flow/flow_fabric.h). Either executes its commands
// in order, one at a time, and reports each one's start and end through its callbacks.
#pragma once
#include "models/common/copy_command.h"

namespace arbsim {

class CopyExecutor {
 public:
  virtual ~CopyExecutor() = default;
  virtual void submit(CopyCommand c) = 0;
};

}  // namespace arbsim
