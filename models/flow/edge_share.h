// One level of how an egress divides its link, as the packet model's egress port
// arbitrates (models/pcie/egress_port.h; PCIe Base Spec §6.3.3, docs/pcie-reference.md §4):
// the VC arbiter among VCs, the port arbiter among requesters inside a VC
// (division_tree.h stacks the levels). Each level is a weighted max-min ("water-filling")
// of the children's demands in turns, or strict priority:
//
// - round robin: equal turns (one grant each per round), a child that needs fewer leaves
//   the rest to the others;
// - weighted round robin: turns in proportion to the phases a child owns; children with no
//   phase get only what the weighted ones leave (the arbiter's fallback scan,
//   docs/arbiters.md);
// - strict priority: the highest index takes what it can use, then the next;
// - a starvation guard with threshold x (around any of them) floors each waiting child at
//   one turn in x + 1 of the egress's turns (edge_share.cpp works the steady state out), then
//   the arbiter divides the rest.
//
// Capacities and demands are in the link's wire bytes per ns; a child's cost is the wire
// bytes of one of its turns (a TLP: docs/link-model.md), so a turn is demand / cost. Plain
// C++, no SystemC.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
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
  // TLPs of each credit class (posted, non-posted, completion) its receiver's queue of one
  // VC holds at most: the credits it advertises, in TLPs (infinite: unbounded).
  std::array<double, 3> buffered{kNoLimit, kNoLimit, kNoLimit};
  // Its receiver queues one FIFO per VC for all its egresses (no virtual output queues): a
  // TLP waiting for one egress holds up those behind it for others (arbitrated_rates.h).
  bool fifo_ingress = false;
  static constexpr double kNoLimit = std::numeric_limits<double>::infinity();
  // A backed-up receiver queue holding several credit classes gives each class turns in
  // proportion to the TLPs of it it holds at most: its credits for the class, or what the
  // flows can have in flight (`in_flight` TLPs: a read's tag window) where fewer
  // (division_tree.cpp, queue(); arbitrated_rates.cpp, divide_queue()). Finite, as a weight.
  double class_weight(std::size_t cls, double in_flight) const { return std::min({in_flight, buffered[cls], 1e12}); }
};

// One child of a level: its index (VC number, slot number: strict priority and weights go
// by it), its demand in wire bytes per ns (may be infinite) and its cost (wire bytes of one
// of its turns, > 0).
struct Claim {
  int index = 0;
  double demand = 0, cost = 1;
};

// Divides `capacity` (wire bytes per ns) among `claims` by `policy`; out[i] is claims[i]'s
// share, never above its demand. Work-conserving: the shares sum to min(capacity, demands).
// `guards` false: as if the policy had no starvation guard (arbitrated_rates.cpp,
// guards_reset()).
void divide(const SharePolicy& policy, const std::vector<Claim>& claims, double capacity, std::vector<double>& out,
            bool guards = true);
// out[i]: what claims[i] would get from divide() if it asked without bound, the others
// asking what they ask (for every i at once: O(n log n) for round robin and strict priority).
void divide_each_unbounded(const SharePolicy& policy, const std::vector<Claim>& claims, double capacity,
                           std::vector<double>& out);

}  // namespace arbsim::flow
