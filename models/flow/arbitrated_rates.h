// The rates of concurrent flows when every edge divides its capacity as its egress
// arbitrates (edge_share.h) instead of flat max-min per flow (max_min.h): a hierarchical,
// weighted max-min with strict priorities.
//
// The rates are the fixed point of: each edge shares among its flows, each flow asking at
// most what its other edges and its own cap let it move (its demand there); a flow's rate
// is the least of its shares and its cap. A flow thus has a bottleneck edge where the
// arbitration, not its demand, limits it: the max-min condition, level by level. Found by
// iteration from unbounded demands: every edge's arbitration is settled once its flows'
// demands are, so the rounds needed grow with the depth of the chain of bottlenecks, not
// with the number of flows. What a flow passes from an edge to its other edges is what it
// could take there if it asked without bound (for a flow granted all it asks, more than
// its share where the others leave room), not its demand echoed back.
//
// Where the iteration does not settle within its rounds, or settles with every flow
// stopped (strict priorities that disagree between two edges two flows share: each holds
// the other back), the rates fall back to flat max-min (max_min.h) and the result says it
// did not converge, for the caller to report. Plain C++.
#pragma once
#include <vector>
#include "models/flow/edge_share.h"
#include "models/flow/max_min.h"

namespace arbsim::flow {

struct ArbitratedRates {
  std::vector<double> rate;  // per flow, payload bytes per ns (kUnbounded: nothing bounds it)
  std::vector<int> bottleneck;  // per flow, the edge that limits it; -1: its cap, or nothing
  int rounds = 0;         // Jacobi rounds over every edge
  bool converged = true;  // false: the rates are flat max-min's (see above)
};

// `arb[e]` is edge e's arbitration (arb.size() == capacity.size()); hops' `vc` comes from
// the flow's TC and the edge's map, `slot` from the hop. `ahead` hops take their part of an
// edge first, as in max_min_rates(). Throws std::invalid_argument on the inputs
// max_min_rates() refuses or a size mismatch.
ArbitratedRates arbitrated_rates(const std::vector<double>& capacity, const std::vector<EdgeArbitration>& arb,
                                 const std::vector<FlowSpec>& flows);

}  // namespace arbsim::flow
