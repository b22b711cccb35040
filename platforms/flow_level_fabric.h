// The flow-level fabric (sim.fidelity: flow): the scenario's flow network (one edge per walk
// direction) simulated as fluid flows with max-min fair rates (models/flow/flow_fabric.h),
// and a flow-level copy engine for every DMA engine of the scenario's engine table. It
// lists the settings it cannot represent (flow_limits.h).
#pragma once
#include <memory>
#include <stdexcept>
#include <vector>
#include "models/flow/flow_fabric.h"
#include "platforms/fabric.h"

namespace arbsim {

class FlowLevelFabric : public Fabric {
 public:
  FlowLevelFabric(const Scenario& s, const FabricOptions& o, TransferTracker& tracker);

  CopyExecutor& engine(int id) override { return *engines_.at(id); }
  void set_tc_map(const std::array<uint8_t, kNumTcs>& vc8) override { fabric_->set_tc_map(vc8); }
  void set_port_weights(int, const std::vector<int>&) override {
    throw std::logic_error("the flow fabric has no port arbiters to reweight");
  }
  const EgressStats& link_stats(int dir) const override { return fabric_->edge_stats(dir); }
  int link_vcs(int dir) const override { return fabric_->edge_vcs(dir); }
  std::optional<std::string> vc_arbiter(int) const override { return std::nullopt; }  // max-min, no arbiter
  uint64_t tlp_hops() const override { return 0; }
  const std::vector<FidelityNote>& fidelity_notes() const override { return notes_; }
  std::vector<std::string> waiting() const override { return {}; }
  // The fluid has no per-port state to trace.
  void trace(sc_core::sc_trace_file*) override {}
  void finish() override { fabric_->finish(); }

 private:
  std::unique_ptr<FlowFabric> fabric_;
  std::vector<std::unique_ptr<FlowEngine>> engines_;  // [engine id]
  std::vector<FidelityNote> notes_;
};

}  // namespace arbsim
