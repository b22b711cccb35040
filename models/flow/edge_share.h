// How one egress divides its link among the flows crossing it, as the packet model's
// egress port arbitrates (models/pcie/egress_port.h): the VC arbiter among VCs, then inside
// the chosen VC the port arbiter among requesters (ingress ports, local DMA engines), then
// the flows behind one requester, which its queue serves in arrival order: in the mix the
// egress before it sent them (docs/
// architecture.md, "Flow-level mode: arbitration"; PCIe Base Spec §6.3.3, docs/
// pcie-reference.md §4). Each level is a weighted max-min ("water-filling") of the
// children's demands, or strict priority:
//
// - round robin: equal shares of *payload rate* (one grant each per turn; with equal TLP
//   payloads that is equal payload rates), a child that needs less leaves the rest to the
//   others;
// - weighted round robin: shares in proportion to the phases a child owns; children with no
//   phase get only what the weighted ones leave (the arbiter's fallback scan,
//   docs/arbiters.md);
// - strict priority: the highest index takes what it can use, then the next;
// - a starvation guard with threshold x (around any of them) first grants each waiting
//   child 1 turn in x + 1 (the guard's bound with two requesters, models/pcie/arbiters/
//   starvation_guard.h), i.e. a minimum share of 1 / (x + 1) of the link (1 / n when n
//   children would need more), then the arbiter divides the rest.
//
// Shares are in the link's wire bytes; a child's cost is its wire bytes per payload byte
// (TLP overheads, flow_network.h). Plain C++, no SystemC.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <vector>

namespace arbsim::flow {

enum class ShareKind : uint8_t { RoundRobin, Weighted, Strict };

struct SharePolicy {
  ShareKind kind = ShareKind::RoundRobin;
  std::vector<double> weights;  // Weighted: per child index (VC or slot); missing = 0
  int guard = 0;                // starvation threshold x (0 = none)
};

// An egress's arbitration, as the flow mode represents it.
struct EdgeArbitration {
  SharePolicy vc;                     // among VCs
  SharePolicy port;                   // among requesters (slots), inside each VC
  std::array<uint8_t, 8> tc_to_vc{};  // the TC/VC map (runtime changes reload it)
};

// One child of a level: its index (VC number, slot number: strict priority and weights go
// by it), its demand in wire bytes per ns (may be infinite) and its cost (wire bytes per
// payload byte, > 0).
struct Claim {
  int index = 0;
  double demand = 0, cost = 1;
};

// Divides `capacity` (wire bytes per ns) among `claims` by `policy`; out[i] is claims[i]'s
// share, never above its demand. Work-conserving: the shares sum to min(capacity, demands).
void divide(const SharePolicy& policy, const std::vector<Claim>& claims, double capacity, std::vector<double>& out);

// One flow's use of the edge: its VC, its requester slot, its cost (> 0) and its demand in
// payload bytes per ns (may be infinite).
struct EdgeUser {
  int vc = 0, slot = 0;
  double cost = 1, demand = 0;
};

// How the users [lo, hi) behind one requester split its share `capacity` (wire bytes per
// ns): out[i - lo] in wire bytes per ns for users[i]. Its queue serves them in arrival
// order, so they split it as they arrived: as the egress before (where they merged)
// arbitrated them (arbitrated_rates.h). Without one, they split it round robin.
using SlotSplit = std::function<void(std::size_t lo, std::size_t hi, double capacity, std::vector<double>& out)>;

// Each user's share of the edge in payload bytes per ns (out[i] for users[i]): the VC
// level, the slot level and the flows within a slot (`within`), each divided as above.
// `users` must be sorted by (vc, slot).
void share_edge(const EdgeArbitration& arb, double capacity, const std::vector<EdgeUser>& users,
                std::vector<double>& out, const SlotSplit& within = {});

}  // namespace arbsim::flow
