// Seed 000's driver policies (Li et al., IEEE CAL 2019):
//   rr          Eq. 1 TCs, Eq. 2 VCs (the configured TC mod N_VC maps), round-robin VCs
//   priority_s  TOS (§3.2): strict priority; responses above requests; fewest remaining
//               bytes first; ranking and TC/VC remapping redone when a command arrives or
//               completes
//   priority_l  the same, most remaining bytes first
//   qos         QoOS (§3.3): priority_s, plus a destination whose command is predicted by
//               Eq. 3 to miss its deadline is raised to the top until that command ends
// The remapping reprograms the TC/VC maps of every egress port (docs/host-policies.md):
// TCs stay as Eq. 1 assigns them; each port moves a TC to its new VC once the TC's TLPs on
// the old one have drained (EgressPort::set_tc_map), so queued TLPs are re-prioritised
// without passing the ones ahead of them.
#pragma once
#include <map>
#include <string>
#include <vector>
#include "models/host/priority_ranking.h"
#include "models/host/tc_policy.h"

namespace arbsim {

enum class PriorityMode { RoundRobin, SmallestFirst, LargestFirst, DeadlineAware };

class PriorityTcPolicy : public TcPolicy {
 public:
  // bytes_per_ns: BW of Eq. 3; tick_ns: how often QoS deadlines are re-predicted;
  // margin_ns: escalate when the prediction comes within this of the deadline (it covers
  // the time to the next check and the path latency Eq. 3 leaves out); starvation_threshold:
  // x of the strict-priority VC arbiters the ranking modes need (seed 000 §3.2; 0 = off).
  PriorityTcPolicy(PriorityMode mode, int gpus, double bytes_per_ns, double tick_ns, double margin_ns = 0,
                   int starvation_threshold = 0);

  void attach(FabricControl& fabric) override { fabric_ = &fabric; }
  int assign_tc(const MemcpyRequest& r) override;
  void on_submit(uint64_t cmd, const MemcpyRequest& r) override;
  void on_start(uint64_t cmd, uint64_t transfer) override;
  void on_complete(uint64_t cmd) override;
  double tick_ns() const override { return mode_ == PriorityMode::DeadlineAware ? tick_ns_ : 0; }
  void on_tick() override { remap(); }
  const char* name() const override;
  // rr: round-robin VCs (Eq. 2's spread); the ranking modes: strict priority, VC7 highest,
  // with the starvation threshold x (seed 000 §3.2).
  std::optional<ArbiterSpec> vc_arbiter() const override;
  const std::array<uint8_t, kNumTcs>& current_map() const { return map_; }

 private:
  struct Command {
    int dest = 0, tc = 0;
    uint32_t flow_id = 0;
    uint64_t bytes = 0, transfer = 0;
    double deadline_ns = 0;
    bool escalated = false;
  };
  uint64_t remaining(const Command& c) const;
  void remap();
  void report_ties(const std::vector<DestinationLoad>& loads, const std::vector<bool>& moved,
                   const std::vector<int>& ranking, const std::array<uint8_t, kNumTcs>& map);
  bool orders_open_tcs_alike(const std::array<uint8_t, kNumTcs>& next) const;

  PriorityMode mode_;
  int gpus_;
  double bytes_per_ns_, tick_ns_, margin_ns_;
  int starvation_threshold_;
  FabricControl* fabric_ = nullptr;
  std::map<uint64_t, Command> commands_;
  std::vector<bool> ended_;  // [destination] a command of it has completed
  std::array<uint8_t, kNumTcs> map_{};
  bool map_set_ = false;
};

}  // namespace arbsim
