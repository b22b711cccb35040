// Max-min fair rates of concurrent transfers on a directed graph, by progressive filling.
// Seed 002 §3.2 represents the interconnect as a weighted directed graph G = (V, E, b):
// a transfer's throughput is limited by the smallest edge on its path and further by the
// concurrent transfers that share its edges. Here all rates rise together; an edge that
// fills freezes the flows that cross it, a flow that reaches its own cap freezes alone.
//
// Two generalisations of the paper's model: a flow may use an edge at `weight` capacity
// units per unit of its rate (a PCIe link carries MWr and CplD payload with different
// per-TLP overhead, docs/link-model.md), and a flow may have its own cap (a limit not on
// any shared edge, e.g. a read's tag window). A third: a hop may be served ahead of the
// fair share (`ahead`): a read's MRd requests, a few bytes per read, go out at the next
// round-robin turn of their port and are never backlogged, so they take capacity off an
// edge but never hold their flow back there. Plain C++, no SystemC.
#pragma once
#include <limits>
#include <vector>

namespace arbsim::flow {

constexpr double kUnbounded = std::numeric_limits<double>::infinity();

struct Hop {
  int edge = 0;
  double weight = 1.0;  // capacity units the flow uses on `edge` per unit of its rate (>= 0)
  bool ahead = false;   // served ahead of the fair share (see above; flat max-min only)
  int slot = 0;         // the requester it arrives through at the edge's egress (arbitrated_rates.h)
  // Units of the flow's rate one TLP carries on this hop (payload bytes: MPS for a write,
  // the completion size for a read's data, MRRS for its MRds; a copy of fewer TLPs than
  // flow_network.h's kPooledTlps its bytes over its TLPs, as a turn is one TLP whatever its
  // size: flow_network.cpp, mean_tlp()). An egress arbitrates TLP by
  // TLP, so the arbitrated rates divide turns in TLPs (arbitrated_rates.h); 1 divides in
  // units of rate. Flat max-min ignores it.
  double tlp = 1.0;
  // The hop leaves the flow's source: no hop of its path arrives before it (hop 0 always;
  // a read's first request hop, after its data hops in the path).
  bool starts = false;
  // The credit class of its TLPs (0 posted, 1 non-posted, 2 completion) and how many of
  // them it can have in flight (a read's tag window; unbounded for a write): what it can
  // keep in a receiver's queue (division_tree.h).
  int cls = 0;
  double window = kUnbounded;
};

struct FlowSpec {
  std::vector<Hop> path;
  double cap = kUnbounded;  // the flow's own rate limit (> 0)
  int tc = 0;               // its traffic class (arbitrated_rates.h maps it to each edge's VC)
};

// The max-min fair rate of every flow; `capacity[e]` > 0 for each edge. `ahead` hops
// first take their share (at their flows' rates, a fixed point found by iteration) and the
// rest is shared max-min fairly. A flow that nothing bounds (no fair hop of positive
// weight, no cap) gets kUnbounded. Throws
// std::invalid_argument on an unknown edge, a negative weight or a non-positive capacity
// or cap.
std::vector<double> max_min_rates(const std::vector<double>& capacity, const std::vector<FlowSpec>& flows);
// The same for flows given by pointer, a hop on an edge e with (*binds)[e] == 0 weighing
// nothing there (nullptr: every edge counts): the flow scheduler's components
// (flow_scheduler.h), and the arbitrated rates' fallback (arbitrated_rates.h).
std::vector<double> max_min_rates(const std::vector<double>& capacity, const std::vector<const FlowSpec*>& flows,
                                  const std::vector<char>* binds);

}  // namespace arbsim::flow
