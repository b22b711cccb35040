// The flow-level fabric (sim.fidelity: flow): the scenario's flow network (one edge per walk
// direction) simulated as fluid flows whose rates follow each egress's arbitration
// (models/flow/flow_fabric.h), and a flow-level copy engine for every DMA engine of the
// scenario's engine table. After the run it lists what it could not represent: what the
// fidelity watch saw happen (models/flow/fidelity_watch.h) and rate computations that did
// not settle.
#pragma once
#include <map>
#include <memory>
#include <set>
#include <string>
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
  void set_port_weights(int dir, const std::vector<int>& weights) override { fabric_->set_port_weights(dir, weights); }
  const EgressStats& link_stats(int dir) const override { return fabric_->edge_stats(dir); }
  int link_vcs(int dir) const override { return fabric_->edge_vcs(dir); }
  // The fluid arbitrates by shares, not grants: no per-arbiter grants or waits to report.
  std::optional<std::string> vc_arbiter(int) const override { return std::nullopt; }
  uint64_t delivered_bytes(uint64_t transfer) const override { return fabric_->delivered_bytes(transfer); }
  void note_ranking_tie(const std::string& pair, uint64_t bytes, const std::vector<uint32_t>& flows) override;
  uint64_t tlp_hops() const override { return 0; }
  bool moves_tlps() const override { return false; }
  // The fluid follows the packet model's copy times to 3 % (issue 12's agreement bound).
  double timing_accuracy() const override { return 0.03; }
  const std::vector<FidelityNote>& fidelity_notes() const override { return notes_; }
  std::vector<std::string> waiting() const override { return {}; }
  // The fluid has no per-port state to trace: the VCD gets the GPUs' states alone, and the
  // run's log says so.
  void trace(sc_core::sc_trace_file*) override;
  void finish() override;
  void restart_stats() override { fabric_->restart_stats(); }
  double busy_ps_now(int dir) const override { return fabric_->busy_ps_now(dir); }

 private:
  void add_engine_sharers();
  std::unique_ptr<FlowFabric> fabric_;
  std::vector<std::unique_ptr<FlowEngine>> engines_;  // [engine id]
  std::vector<FidelityNote> notes_;
  struct Tie {
    double first_ns = 0;
    uint64_t times = 0;
    std::set<uint32_t> flows;
  };
  std::map<std::string, Tie> ties_;  // by the pair of destinations (fidelity_notes at finish())
  std::vector<std::string> names_;  // [dir] "from->to"
  std::vector<std::string> engine_names_;  // [engine id] "gpu0 copy engine 1"
};

}  // namespace arbsim
