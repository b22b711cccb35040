// What one direction of a link did during a run, in the terms results.json reports
// (docs/results.md, links[] and arbiters[]): the packet model's egress port fills it TLP by
// TLP, the flow-level fabric from its fluid flows, so both fidelities report alike.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace arbsim {

constexpr int kLinkStatsVcs = 8;  // VC0..VC7 (docs/pcie-reference.md §4)

// A requester that had a head waiting at the end of the run and was never granted on that
// VC: starvation that lasted to the cut-off.
struct NeverGranted {
  std::string requester;
  int vc = 0;
  double waiting_ps = 0;  // age of its head at the end
};

struct EgressStats {
  uint64_t tlps = 0, payload_bytes = 0, wire_bytes = 0;  // TLPs whose transmission ended in the run
  double busy_ps = 0, credit_stall_ps = 0;               // inside the run
  std::array<uint64_t, kLinkStatsVcs> vc_bytes{}, vc_grants{};
  std::array<double, kLinkStatsVcs> vc_max_head_wait_ps{};  // granted heads, and heads still waiting at the end
  std::vector<NeverGranted> never_granted;
};

}  // namespace arbsim
