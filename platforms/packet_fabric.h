// The packet-level fabric: every site of the scenario as a SystemC module (a switch or I/O
// hub as a Switch, a root complex as a RootComplex with its host DMA engines, its host
// memory, a GPU or a registered device as an Endpoint), every walk direction as an egress
// port bound to the receiver's target socket, and every crossbar's routes.
#pragma once
#include <memory>
#include <vector>
#include "models/pcie/fabric_node.h"
#include "platforms/fabric.h"
#include "platforms/detectors.h"
#include "platforms/transaction_trace.h"

namespace arbsim {

class PacketFabric : public Fabric {
 public:
  PacketFabric(const Scenario& s, const FabricOptions& o, TransferTracker& tracker);

  CopyExecutor& engine(int id) override { return *engines_.at(id); }
  void set_tc_map(const std::array<uint8_t, kNumTcs>& vc8) override;
  void set_port_weights(int dir, const std::vector<int>& weights) override { port(dir).set_port_weights(weights); }
  const EgressStats& link_stats(int dir) const override { return port(dir).stats(); }
  int link_vcs(int dir) const override { return port(dir).config().vcs; }
  std::optional<std::string> vc_arbiter(int dir) const override { return port(dir).vc_arbiter_name(); }
  uint64_t delivered_bytes(uint64_t transfer) const override { return tracker_.delivered(transfer); }  // TLP by TLP
  uint64_t tlp_hops() const override { return EgressPort::total_hops(); }
  const std::vector<FidelityNote>& fidelity_notes() const override { return notes_; }
  std::vector<std::string> waiting() const override;
  void trace(sc_core::sc_trace_file* tf) override;
  std::optional<std::vector<WaitTotal>> why_not_granted(int dir) const override;
  std::string trace_json() const override;
  const std::vector<Detection>* detections() const override { return detectors_ ? &detectors_->found() : nullptr; }
  void finish() override;
  void restart_stats() override;
  double busy_ps_now(int dir) const override { return port(dir).busy_ps_now(); }
  std::optional<int64_t> queued_tlps(int dir) const override { return static_cast<int64_t>(port(dir).queued_tlps()); }
  std::optional<int64_t> posted_data_credits(int dir, int vc) const override { return port(dir).posted_data_credits(vc); }
  // The module of site `i` (Scenario::sites), for tests and tools.
  FabricNode& site(int i) { return *sites_.at(i); }

 private:
  std::vector<PortSpec> port_specs(int site) const;
  void make_site(int i);
  void make_crossbar(int i);
  void make_endpoint(int i);
  void bind(const LinkDir& d);
  void collect_engines();
  EgressPort& port(int dir) const;

  const Scenario& s_;
  FabricOptions options_;
  TransferTracker& tracker_;
  std::vector<std::unique_ptr<FabricNode>> owned_;  // in creation order
  std::vector<FabricNode*> sites_;                 // [site]
  std::vector<CopyExecutor*> engines_;             // [engine id]
  std::vector<FidelityNote> notes_;                // none of its own (the System's model notes are both fidelities')
  void observe(const ObserveOptions& o);

  std::unique_ptr<TransactionTrace> observer_;     // with --trace
  std::unique_ptr<Detectors> detectors_;           // with --detect
  EgressObserverFanout both_;                      // with both
};

}  // namespace arbsim
