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
// Where the iteration has not settled within its rounds (strict priorities and bounds that
// chase each other round a cycle), it goes on damped: each round moves a share and a bound
// only half way to what the division gives. A damped iteration that settles has found a
// fixed point of the same equations (where it stands still, the division gives what it
// holds), one the plain iteration circles and never reaches: the rates are that point's,
// and the result says it was damped, for the caller to report (the packet model's
// arbitration, itself a round-by-round response, need not hold an unstable point either).
// Where even that does not settle, or it settles with every flow stopped (strict
// priorities that disagree between two edges two flows share: each holds the other back),
// the rates fall back to flat max-min (max_min.h) and the result says it did not converge.
// Where it settles on a point at which an edge holds a flow behind one that an edge before
// holds, though the later edge could carry both (a point the packet model never holds: the
// earlier edge decides what reaches the later one), the rates are solved again without that
// hold (arbitrated_rates.cpp, "A flow held at a link by one held before it"). Plain C++.
#pragma once
#include <memory>
#include <vector>
#include "models/flow/edge_share.h"
#include "models/flow/max_min.h"

namespace arbsim::flow {

struct ArbitratedRates {
  std::vector<double> rate;  // per flow, payload bytes per ns (kUnbounded: nothing bounds it)
  // Per flow, the edges that hold it to its rate, in path order: where it would get no more
  // than its rate however much it asked (the max-min bottleneck condition; ties give
  // several); where a queue that backs up holds it (arbitrated_rates.cpp), the link into
  // that queue alone; none when its cap limits it, or nothing does. Flow f's are
  // held[held_start[f], held_start[f + 1]).
  std::vector<int> held_start, held;
  // Per flow, where a queue that backs up holds it (held is then the link into that queue),
  // what of its window waits there: its TLPs in the queue (its window, at most the queue's
  // room for their class) times the units of rate each carries; 0 where no queue holds it.
  std::vector<double> queued_window;
  int rounds = 0;         // Jacobi rounds (each over the edges whose inputs changed)
  bool converged = true;  // false: the rates are flat max-min's (see above)
  bool damped = false;    // settled only when damped (see above): converged, at an unstable fixed point
};

// The solver, kept between computations: the flow mode recomputes rates on every start and
// end of a flow, for the flows a change can affect (flow_scheduler.h), so its working
// arrays are reused and its work is confined to the edges those flows cross (a
// computation costs the component, not the platform). It reads `capacity` and
// `arbitration` (one per edge) at each solve: runtime changes of TC/VC maps and weights
// apply at the next.
class ArbitratedSolver {
 public:
  ArbitratedSolver(const std::vector<double>& capacity, const std::vector<EdgeArbitration>& arbitration);
  ~ArbitratedSolver();
  ArbitratedSolver(const ArbitratedSolver&) = delete;
  ArbitratedSolver& operator=(const ArbitratedSolver&) = delete;
  // The rates of `flows` (valid specs: see arbitrated_rates()); a hop on an edge e with
  // (*binds)[e] == 0 weighs nothing there (an edge that cannot bind: flow_scheduler.h).
  // The result stays valid until the next solve.
  const ArbitratedRates& solve(const std::vector<const FlowSpec*>& flows, const std::vector<char>* binds = nullptr);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// `arb[e]` is edge e's arbitration (arb.size() == capacity.size()); hops' `vc` comes from
// the flow's TC and the edge's map, `slot` from the hop. Every hop is arbitrated, `ahead`
// ones too (that is flat max-min's simplification: max_min.h). Throws
// std::invalid_argument on the inputs max_min_rates() refuses or a size mismatch.
ArbitratedRates arbitrated_rates(const std::vector<double>& capacity, const std::vector<EdgeArbitration>& arb,
                                 const std::vector<FlowSpec>& flows);
// The checks arbitrated_rates() makes of one flow (the scheduler makes them once, on add).
void check_flow(const FlowSpec& f, std::size_t edges);

}  // namespace arbsim::flow
