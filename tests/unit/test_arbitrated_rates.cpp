// The flow mode's arbitrated sharing (models/flow/edge_share.h, arbitrated_rates.h) on
// hand-worked cases: each expected rate is worked out from the arbiter's rule in the
// comment above the test, and one property test checks that a single requester and VC per
// edge reduces to flat max-min (max_min.h, progressive filling: a different algorithm).
#include <gtest/gtest.h>
#include <random>
#include "models/flow/arbitrated_rates.h"
#include "models/flow/edge_share.h"
#include "models/flow/max_min.h"
#include "models/pcie/arbiters/starvation_guard.h"
#include "models/pcie/arbiters/strict_priority.h"

// Its own namespace: the test programs are unity builds (tests/README.md).
namespace arbitrated_rates_test {

using namespace arbsim::flow;

namespace {

Hop hop(int edge, int slot = 0, double weight = 1.0) {
  Hop h{edge, weight};
  h.slot = slot;
  return h;
}

FlowSpec flow(std::vector<Hop> path, int tc = 0, double cap = kUnbounded) {
  FlowSpec f;
  f.path = std::move(path);
  f.tc = tc;
  f.cap = cap;
  return f;
}

// Every TC on its own VC (TCn -> VCn).
EdgeArbitration vc_per_tc(SharePolicy vc, SharePolicy port = {}) {
  EdgeArbitration a;
  a.vc = std::move(vc);
  a.port = std::move(port);
  for (int t = 0; t < 8; ++t) a.tc_to_vc[static_cast<std::size_t>(t)] = static_cast<uint8_t>(t);
  return a;
}

SharePolicy strict(int guard = 0) { return {ShareKind::Strict, {}, guard}; }
SharePolicy weighted(std::vector<double> w) { return {ShareKind::Weighted, std::move(w), 0}; }

// Strict VC priority with TC0 and TC1 on each other's VC: TC0 first.
EdgeArbitration swapped_strict() {
  EdgeArbitration a = vc_per_tc(strict());
  a.tc_to_vc[0] = 1;
  a.tc_to_vc[1] = 0;
  return a;
}

}  // namespace

// The example: an egress of 3.27 GB/s round-robins over three ingress ports; one
// carries a whole switch's subtree (three GPUs), the others one GPU each. Each port gets
// 3.27 / 3 = 1.09; the subtree's three flows split theirs: 0.363 each. Flat max-min would
// give all five 3.27 / 5 = 0.654.
TEST(ArbitratedRates, RoundRobinIsPerPortThenPerFlow) {
  const std::vector<FlowSpec> flows = {flow({hop(0, 0)}), flow({hop(0, 0)}), flow({hop(0, 0)}), flow({hop(0, 1)}),
                                       flow({hop(0, 2)})};
  const ArbitratedRates r = arbitrated_rates({3.27}, {EdgeArbitration{}}, flows);
  ASSERT_TRUE(r.converged);
  for (int f = 0; f < 3; ++f) EXPECT_NEAR(r.rate[f], 3.27 / 9, 1e-12);
  EXPECT_NEAR(r.rate[3], 1.09, 1e-12);
  EXPECT_NEAR(r.rate[4], 1.09, 1e-12);
}

// A port that needs less than its turn leaves the rest to the others: port 1's flow is
// capped at 0.5 by its own link (edge 1), so ports 0 and 2 split 4 - 0.5: 1.75 each.
TEST(ArbitratedRates, APortLimitedElsewhereLeavesItsTurnToTheOthers) {
  const std::vector<FlowSpec> flows = {flow({hop(0, 0)}), flow({hop(1), hop(0, 1)}), flow({hop(0, 2)})};
  const ArbitratedRates r = arbitrated_rates({4, 0.5}, {EdgeArbitration{}, EdgeArbitration{}}, flows);
  EXPECT_NEAR(r.rate[0], 1.75, 1e-12);
  EXPECT_NEAR(r.rate[1], 0.5, 1e-12);
  EXPECT_NEAR(r.rate[2], 1.75, 1e-12);
}

// Strict priority among VCs: TC1 (VC1) takes the whole 8 GB/s link and TC0 gets nothing;
// when VC1's flow is held to 3 by a link of its own, VC0 takes the other 5.
TEST(ArbitratedRates, StrictPriorityVcTakesWhatItCanUse) {
  const std::vector<EdgeArbitration> arb = {vc_per_tc(strict()), vc_per_tc(strict())};
  ArbitratedRates r = arbitrated_rates({8, 100}, arb, {flow({hop(0)}, 0), flow({hop(0)}, 1)});
  EXPECT_DOUBLE_EQ(r.rate[0], 0);
  EXPECT_DOUBLE_EQ(r.rate[1], 8);
  r = arbitrated_rates({8, 3}, arb, {flow({hop(0)}, 0), flow({hop(1), hop(0)}, 1)});
  EXPECT_NEAR(r.rate[0], 5, 1e-12);
  EXPECT_NEAR(r.rate[1], 3, 1e-12);
}

// A starvation guard of threshold 3 grants the waiting VC one turn in 4: 2 of the 8 GB/s;
// the high VC keeps 6.
TEST(ArbitratedRates, StarvationGuardFloorsTheStarvedVc) {
  const ArbitratedRates r = arbitrated_rates({8}, {vc_per_tc(strict(3))}, {flow({hop(0)}, 0), flow({hop(0)}, 1)});
  EXPECT_NEAR(r.rate[0], 2, 1e-12);
  EXPECT_NEAR(r.rate[1], 6, 1e-12);
}

// WRR port weights 3:1 share 8 GB/s as 6 and 2; a third port with no phase (weight 0) is
// served only when no weighted port requests (the arbiter's fallback scan): nothing while
// either is backlogged (port 0 held to 1 elsewhere leaves its turns to port 1: 7), and
// 8 - 1 - 2 = 5 when both are held elsewhere (to 1 and 2).
TEST(ArbitratedRates, WeightedPortsShareByWeightAndTheUnweightedTakeTheRest) {
  EdgeArbitration a;
  a.port = weighted({3, 1, 0});
  const std::vector<EdgeArbitration> arb = {a, a, a};
  const std::vector<double> cap = {8, 1, 2};
  ArbitratedRates r = arbitrated_rates(cap, arb, {flow({hop(0, 0)}), flow({hop(0, 1)}), flow({hop(0, 2)})});
  EXPECT_NEAR(r.rate[0], 6, 1e-12);
  EXPECT_NEAR(r.rate[1], 2, 1e-12);
  EXPECT_NEAR(r.rate[2], 0, 1e-12);
  r = arbitrated_rates(cap, arb, {flow({hop(1), hop(0, 0)}), flow({hop(0, 1)}), flow({hop(0, 2)})});
  EXPECT_NEAR(r.rate[0], 1, 1e-12);
  EXPECT_NEAR(r.rate[1], 7, 1e-12);
  EXPECT_NEAR(r.rate[2], 0, 1e-12);
  r = arbitrated_rates(cap, arb, {flow({hop(1), hop(0, 0)}), flow({hop(2), hop(0, 1)}), flow({hop(0, 2)})});
  EXPECT_NEAR(r.rate[0], 1, 1e-12);
  EXPECT_NEAR(r.rate[1], 2, 1e-12);
  EXPECT_NEAR(r.rate[2], 5, 1e-12);
}

// VC weights 1:3 over two VCs, and inside VC1 round robin over two ports: VC0's flow 2,
// VC1's two flows 3 each.
TEST(ArbitratedRates, VcLevelThenPortLevel) {
  const ArbitratedRates r = arbitrated_rates({8}, {vc_per_tc(weighted({1, 3}))},
                                             {flow({hop(0, 0)}, 0), flow({hop(0, 0)}, 1), flow({hop(0, 1)}, 1)});
  EXPECT_NEAR(r.rate[0], 2, 1e-12);
  EXPECT_NEAR(r.rate[1], 3, 1e-12);
  EXPECT_NEAR(r.rate[2], 3, 1e-12);
}

// A chain of bottlenecks: flow 0's own link (edge 0, 6.627) holds it below its turn at
// the shared edge 2 (16 each way split 8/8), so flow 1 takes 16 - 6.627 there; its own link
// (edge 1, 15.5 at weight 1.17: 13.25) does not bind. Settles in a few rounds.
TEST(ArbitratedRates, DemandLimitedElsewhereSettles) {
  const std::vector<FlowSpec> flows = {flow({hop(0, 0, 1.17), hop(2, 2)}), flow({hop(1, 0, 1.17), hop(2, 3)})};
  const ArbitratedRates r = arbitrated_rates({7.7538, 15.5, 16}, std::vector<EdgeArbitration>(3), flows);
  EXPECT_TRUE(r.converged);
  EXPECT_LE(r.rounds, 4);
  EXPECT_NEAR(r.rate[0], 7.7538 / 1.17, 1e-9);
  EXPECT_NEAR(r.rate[1], 16 - 7.7538 / 1.17, 1e-9);
}

// Strict priorities that disagree: two flows share edges 0 and 1 in opposite directions
// (flow 0 crosses 0 then 1, flow 1 crosses 1 then 0); edge 0 favours TC1, edge 1 (whose map
// swaps the VCs) favours TC0. Each flow's demand at one edge is what the other edge leaves
// it: d0 = 8 - d1, so every split a + b = 8 is a fixed point, and the plain iteration jumps
// between (8, 0) and (0, 8). Damped, it settles on the line, and by symmetry at 4 each; the
// result says it was damped.
TEST(ArbitratedRates, PrioritiesThatDisagreeSettleOnlyWhenDamped) {
  const ArbitratedRates r = arbitrated_rates({8, 8}, {vc_per_tc(strict()), swapped_strict()},
                                             {flow({hop(0), hop(1)}, 0), flow({hop(1), hop(0)}, 1)});
  EXPECT_TRUE(r.converged);
  EXPECT_TRUE(r.damped);
  EXPECT_GT(r.rounds, 64);
  EXPECT_NEAR(r.rate[0], 4, 1e-6);
  EXPECT_NEAR(r.rate[1], 4, 1e-6);
}

// The same priorities with both flows crossing edge 0 and then edge 1: what reaches edge 1
// has passed edge 0, where TC1 goes first whenever it has a TLP, so TC0 gets nothing there
// and its priority at edge 1 never comes into play. TC1 takes all 8, TC0 none; not damped
// (arbitrated_rates.cpp, "A flow held at a link by one held before it": the damped point 4 / 4 is
// one the packet model never reaches).
TEST(ArbitratedRates, PrioritiesThatDisagreeAlongAWayGoByTheFirstEdge) {
  const ArbitratedRates r = arbitrated_rates({8, 8}, {vc_per_tc(strict()), swapped_strict()},
                                             {flow({hop(0), hop(1)}, 0), flow({hop(0), hop(1)}, 1)});
  EXPECT_TRUE(r.converged);
  EXPECT_FALSE(r.damped);
  EXPECT_EQ(r.rate[0], 0);
  EXPECT_NEAR(r.rate[1], 8, 1e-12);
  EXPECT_EQ(r.held_start[1] - r.held_start[0], 1);  // TC0 is held at edge 0
  EXPECT_EQ(r.held[static_cast<std::size_t>(r.held_start[0])], 0);
}

// The same with TC1 capped at 5 by its own rate: it takes 5 at edge 0 and leaves TC0 3,
// which goes first at edge 1, where TC1's 5 then fits: (3, 5). (The iteration alone settles,
// damped, at TC0 5.5 and TC1 2.5: a point of the line a + b = 8 where TC1, held at edge 1
// by TC0, leaves TC0 room at edge 0.)
TEST(ArbitratedRates, PrioritiesThatDisagreeAlongAWayGiveTheLowerWhatTheFirstEdgeLeaves) {
  const ArbitratedRates r = arbitrated_rates({8, 8}, {vc_per_tc(strict()), swapped_strict()},
                                             {flow({hop(0), hop(1)}, 0), flow({hop(0), hop(1)}, 1, 5)});
  EXPECT_TRUE(r.converged);
  EXPECT_FALSE(r.damped);
  EXPECT_NEAR(r.rate[0], 3, 1e-9);
  EXPECT_NEAR(r.rate[1], 5, 1e-9);
}

// Both flows cross edge 0 (8, round robin between the VCs: equal turns) and then edge 1 (8,
// TC1 first). Every split with TC0 at x <= 4 and TC1 at 8 - x is a point of the equations
// (TC0 held at edge 1 by what edge 0 let TC1 take); but what TC1 brings to edge 1 is its
// turns at edge 0, and edge 1 carries both flows' turns: 4 each, not damped
// (arbitrated_rates.cpp, "A flow held at a link by one held before it").
TEST(ArbitratedRates, AFlowHeldAtALinkByOneHeldBeforeItGetsItsTurns) {
  const ArbitratedRates r = arbitrated_rates({8, 8}, {vc_per_tc({}), vc_per_tc(strict())},
                                             {flow({hop(0), hop(1)}, 0), flow({hop(0), hop(1)}, 1)});
  EXPECT_TRUE(r.converged);
  EXPECT_FALSE(r.damped);
  EXPECT_NEAR(r.rate[0], 4, 1e-9);
  EXPECT_NEAR(r.rate[1], 4, 1e-9);
}

// The same where edge 1 weighs TC0's VC 4 to TC1's 1 (WRR): every split with TC1 at x <= 4
// and TC0 at 8 - x is again a point (TC1 held at edge 1 by what edge 0 let TC0 take), but
// edge 1 carries both flows' turns at edge 0: 4 each (survey seed 30178: a GPU's read and a
// peer write into it take equal turns at the root port and WRR 4:1 at the switch's port
// below, both links Gen3 x4; the fluid held the write at the switch at 1.06 GB/s and gave
// the read 1.98, where the packet model moves both at 1.52; arbitrated_rates.cpp,
// held_in_the_mix_before()).
TEST(ArbitratedRates, AFlowHeldAtALinkBehindOneHeldAtTheLinkBeforeGetsItsTurnsThere) {
  const ArbitratedRates r = arbitrated_rates({8, 8}, {vc_per_tc({}), vc_per_tc(weighted({4, 1}))},
                                             {flow({hop(0), hop(1)}, 0), flow({hop(0), hop(1)}, 1)});
  EXPECT_TRUE(r.converged);
  EXPECT_NEAR(r.rate[0], 4, 1e-9);
  EXPECT_NEAR(r.rate[1], 4, 1e-9);
}

// A cycle through two edges: edge 0 (2) gives TC1 strict priority, edge 1 (2) round-robins
// VC0 and VC1. Flow 1 (TC1, cap 3) crosses both; flows 0 and 2 (TC0) split what edge 0
// leaves by port: (2 - y) / 2 each, y flow 1's rate, and ask just that at edge 1, where VC1
// could then take 2 - (2 - y) = y: every y in [1, 2] is a fixed point (at y < 1 VC0 would
// ask more than its turn). The plain iteration jumps between y = 2 and y = 1. Damped, the
// rates settle on that line; flat max-min (2/3 each at edge 0) would not be on it.
TEST(ArbitratedRates, ACycleOfBoundsSettlesOnItsFixedPointsWhenDamped) {
  const ArbitratedRates r = arbitrated_rates(
      {2, 2}, {vc_per_tc(strict()), vc_per_tc({})},
      {flow({hop(0, 0), hop(1, 1)}, 0), flow({hop(0, 0), hop(1, 0)}, 1, 3), flow({hop(0, 1), hop(1, 0)}, 0)});
  ASSERT_TRUE(r.converged);
  const double y = r.rate[1];
  // (At the damped point edge 1 holds flow 1 beside flows 0 and 2, which edge 0 holds (they
  // get what flow 1 leaves there) and flow 1 crosses unheld: solved again without flow 1's
  // hold at edge 1, it takes edge 0 whole by its strict priority, y = 2, the end of the line
  // edge 0 gives, and edge 1 carries it: arbitrated_rates.cpp, held_in_the_mix_before().
  // Before that rule took every flow from the link before, the damped point stood.)
  EXPECT_NEAR(y, 2, 1e-6);
  EXPECT_GE(y, 1 - 1e-6);
  EXPECT_LE(y, 2 + 1e-6);
  EXPECT_NEAR(r.rate[0], (2 - y) / 2, 1e-6);
  EXPECT_NEAR(r.rate[2], (2 - y) / 2, 1e-6);
}

// Where even the damped iteration circles, the rates fall back to flat max-min, and the
// result says it did not converge: three flows on edge 0 (1), strict with a guard of 3, and
// edge 1 (1), strict with a guard of 1 and both TCs on VC1; flat max-min gives each a third
// of edge 0.
TEST(ArbitratedRates, ArbitrationThatNeverSettlesFallsBackToFlatMaxMin) {
  EdgeArbitration one_vc = vc_per_tc(strict(1));
  one_vc.tc_to_vc[0] = 1;
  const ArbitratedRates r = arbitrated_rates(
      {1, 1}, {vc_per_tc(strict(3)), one_vc},
      {flow({hop(0, 1), hop(1, 0)}, 0, 5), flow({hop(0, 1), hop(1, 0)}, 1, 2), flow({hop(0, 0), hop(1, 1)}, 0)});
  EXPECT_FALSE(r.converged);
  EXPECT_FALSE(r.damped);
  for (int f = 0; f < 3; ++f) EXPECT_NEAR(r.rate[f], 1.0 / 3, 1e-12);
}

// One requester and one VC everywhere: the arbitrated rates are flat max-min's, on 200
// random graphs of 6 edges and 2-12 flows of random paths, weights and caps.
TEST(ArbitratedRates, OneRequesterPerEdgeIsFlatMaxMin) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.5, 10);
  for (int round = 0; round < 200; ++round) {
    std::vector<double> cap(6);
    for (double& c : cap) c = u(rng);
    std::vector<FlowSpec> flows(2 + rng() % 11);
    for (FlowSpec& f : flows) {
      for (int e = 0; e < 6; ++e)
        if (rng() % 3 == 0) f.path.push_back(hop(e, 0, 1 + u(rng) / 100));
      if (f.path.empty()) f.path.push_back(hop(static_cast<int>(rng() % 6)));
      if (rng() % 4 == 0) f.cap = u(rng);
    }
    const std::vector<double> flat = max_min_rates(cap, flows);
    const ArbitratedRates r = arbitrated_rates(cap, std::vector<EdgeArbitration>(6), flows);
    ASSERT_TRUE(r.converged) << "round " << round;
    for (std::size_t f = 0; f < flows.size(); ++f) EXPECT_NEAR(r.rate[f], flat[f], 1e-9 * flat[f]) << "round " << round;
  }
}

// divide() alone: round robin with one small claim (1 of 9 capacity): 1, 4, 4; strict
// hands out by index, highest first.
TEST(EdgeShare, DivideByEachPolicy) {
  std::vector<double> out;
  divide(SharePolicy{}, {{0, 1, 1}, {1, 100, 1}, {2, 100, 1}}, 9, out);
  EXPECT_EQ(out, (std::vector<double>{1, 4, 4}));
  divide(strict(), {{0, 5, 1}, {1, 6, 1}}, 9, out);
  EXPECT_EQ(out, (std::vector<double>{3, 6}));
}

// The guard's floor against the arbiter itself: the packet model's StarvationGuard around
// strict priority, every requester always requesting, grants each a share of the turns;
// the fluid's guarded division, every child unbounded and its TLPs of unequal sizes (the
// arbiter does not see sizes: turns are turns), gives each the same share of its turns, for
// 2-5 requesters and thresholds 1-8 (x = 1 over three starves the highest: M, L, M, L).
TEST(EdgeShare, GuardedTurnsAreTheArbitersGrants) {
  for (int n = 2; n <= 5; ++n)
    for (int x = 1; x <= 8; ++x) {
      arbsim::StarvationGuard arbiter(std::make_unique<arbsim::StrictPriorityArbiter>(n), x);
      std::vector<int> grants(static_cast<std::size_t>(n), 0);
      const int cycles = 100000;
      for (int c = 0; c < cycles; ++c) ++grants[static_cast<std::size_t>(arbiter.grant((1ull << n) - 1))];
      std::vector<Claim> claims;
      for (int i = 0; i < n; ++i) claims.push_back({i, kUnbounded, 24.0 + 64.0 * i});
      std::vector<double> out;
      divide(strict(x), claims, 100, out);
      double turns = 0;
      for (int i = 0; i < n; ++i) turns += out[static_cast<std::size_t>(i)] / claims[static_cast<std::size_t>(i)].cost;
      for (int i = 0; i < n; ++i)
        EXPECT_NEAR(out[static_cast<std::size_t>(i)] / claims[static_cast<std::size_t>(i)].cost / turns,
                    static_cast<double>(grants[static_cast<std::size_t>(i)]) / cycles, 1e-3)
            << n << " requesters, x = " << x << ", requester " << i;
    }
}

// What each child could take asking without bound, all at once (the fast paths for round
// robin and strict priority), equals dividing again with that child's demand unbounded, on
// 2,000 random levels under every policy (infinite demands, zero demands and unequal TLP
// costs among them).
TEST(EdgeShare, EachUnboundedEqualsDividingAgain) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0.1, 10);
  const std::vector<SharePolicy> policies = {SharePolicy{}, strict(), strict(3), weighted({1, 3, 0, 2}),
                                             SharePolicy{ShareKind::RoundRobin, {}, 2}};
  for (int round = 0; round < 2000; ++round) {
    std::vector<Claim> claims(2 + rng() % 6);
    for (std::size_t i = 0; i < claims.size(); ++i) {
      const int kind = static_cast<int>(rng() % 5);
      claims[i] = {static_cast<int>(i), kind == 0 ? kUnbounded : kind == 1 ? 0.0 : u(rng), 0.05 + u(rng) / 10};
    }
    const double capacity = u(rng) * 2;
    const SharePolicy& p = policies[static_cast<std::size_t>(round) % policies.size()];
    std::vector<double> fast, again;
    divide_each_unbounded(p, claims, capacity, fast);
    for (std::size_t i = 0; i < claims.size(); ++i) {
      std::vector<Claim> one = claims;
      one[i].demand = kUnbounded;
      divide(p, one, capacity, again);
      EXPECT_NEAR(fast[i], again[i], 1e-9 * capacity) << "round " << round << " child " << i;
    }
  }
}

// The flows behind one requester split its turn in the mix the egress before them sent
// them: flows 0 and 1 merge at edge 0 (strict port arbiter: flow 1's slot 1 first) and
// reach edge 1 (4 GB/s, the bottleneck) through one port. Edge 0 (10) does not hold
// either back, but it sends flow 1's TLPs first, so at edge 1 flow 1 takes the port's
// turn: 4 and 0 (round robin at edge 1 alone would give 2 and 2).
TEST(ArbitratedRates, FlowsBehindOnePortSplitAsTheEgressBeforeSentThem) {
  EdgeArbitration first;
  first.port = strict();
  const std::vector<FlowSpec> flows = {flow({hop(0, 0), hop(1, 0)}), flow({hop(0, 1), hop(1, 0)})};
  const ArbitratedRates r = arbitrated_rates({10, 4}, {first, EdgeArbitration{}}, flows);
  EXPECT_NEAR(r.rate[0], 0, 1e-12);
  EXPECT_NEAR(r.rate[1], 4, 1e-12);
}

namespace {

// A read's data from a completer (edge 0: the memory port, each TC on its own VC, the
// highest first) down edges 1 and 2 (one VC each), its window `window` TLPs.
FlowSpec read_data(int tc, double window) {
  FlowSpec f = flow({hop(0), hop(1), hop(2)}, tc);
  f.path[0].starts = true;
  for (Hop& h : f.path) h.cls = 2, h.window = window;
  return f;
}

ArbitratedRates two_reads_below(double root_port, double below, double completion_credits) {
  std::vector<EdgeArbitration> arb = {vc_per_tc(strict()), EdgeArbitration{}, EdgeArbitration{}};
  arb[1].buffered[2] = completion_credits;
  return arbitrated_rates({100, root_port, below}, arb, {read_data(4, 768), read_data(0, 256)});
}

}  // namespace

// Below a root port with room (edge 1: 50), the completions of two reads wait in edge 1's
// receiver queue, one for both, and leave it in arrival order: the completer's strict order
// by TC holds none of them back (it is not saturated), and each read keeps its window there,
// so edge 2 (4) gives them turns in proportion to their windows: 768 : 256 = 3 and 1.
TEST(ArbitratedRates, ReadsWaitingInOneQueueShareByTheirWindows) {
  const ArbitratedRates r = two_reads_below(50, 4, kUnbounded);
  ASSERT_TRUE(r.converged);
  EXPECT_NEAR(r.rate[0], 3, 1e-9);
  EXPECT_NEAR(r.rate[1], 1, 1e-9);
}

// Where the root port is the bottleneck (edge 1: 4), its ingress queues are the completer's,
// one per TC, the highest first: TC4 takes it all.
TEST(ArbitratedRates, ReadsAtTheCompletersOwnPortGoByItsOrder) {
  const ArbitratedRates r = two_reads_below(4, 50, kUnbounded);
  EXPECT_NEAR(r.rate[0], 4, 1e-9);
  EXPECT_NEAR(r.rate[1], 0, 1e-9);
}

// With completion credits fewer than the windows (100 TLPs against 1,024), the queue below
// the root port backs up into it, and the root port's order (the completer's, by TC)
// decides what reaches edge 2: TC4 first, 4 and 0.
TEST(ArbitratedRates, ReadsBackedUpIntoTheRootPortGoByItsOrder) {
  const ArbitratedRates r = two_reads_below(50, 4, 100);
  EXPECT_NEAR(r.rate[0], 4, 1e-9);
  EXPECT_NEAR(r.rate[1], 0, 1e-9);
}

namespace {

// A GPU's write (posted) and its read's MRds (non-posted, window `window`) leave over edges
// 0, 1 and 2 (10 TLPs per ns each, one VC, round robin), whose receivers queue one FIFO for
// all their classes with 128 TLPs of credits for each; the write goes on over edge 3 (1: it
// is held there and backs up into all three queues), the MRds over edge 4 (10) to memory.
// With `fifo` false edges 1 and 2's receivers have virtual output queues, and the write and
// the MRds leave them by different egresses.
ArbitratedRates read_behind_a_backed_up_write(double window, bool fifo = true) {
  std::vector<EdgeArbitration> arb(5);
  for (int e = 0; e < 3; ++e) {
    arb[static_cast<std::size_t>(e)].buffered = {128, 128, EdgeArbitration::kNoLimit};
    arb[static_cast<std::size_t>(e)].fifo_ingress = fifo || e == 0;
  }
  FlowSpec write = flow({hop(0), hop(1), hop(2), hop(3)});
  write.path[0].starts = true;
  FlowSpec read = flow({hop(0), hop(1), hop(2), hop(4)});
  read.path[0].starts = true;
  for (Hop& h : read.path) h.cls = 1, h.window = window;
  return arbitrated_rates({10, 10, 10, 1, 10}, arb, {write, read});
}

}  // namespace

// Each queue drains at the write's pace (1 TLP per ns) and leaves its classes in proportion
// to the TLPs of each it holds: the write's 128, and the MRds there. Each MRd passes all
// three queues, so it spends the same time in each and the read's 256 tags are spread over
// them, 85 1/3 per queue (Little's law): its MRds get 85 1/3 / 128 = 2/3 of the write's
// turns. (Counting the whole window in each queue, capped at its 128 credits, gave 1.)
TEST(ArbitratedRates, AReadsWindowIsSpreadOverTheQueuesItWaitsInBehindAWrite) {
  const ArbitratedRates r = read_behind_a_backed_up_write(256);
  ASSERT_TRUE(r.converged);
  EXPECT_NEAR(r.rate[0], 1, 1e-9);
  EXPECT_NEAR(r.rate[1], 2.0 / 3, 1e-6);
}

// A window of 3 x 128 fills every queue's non-posted credits: one MRd per write TLP.
TEST(ArbitratedRates, AWindowThatFillsEveryQueueGetsItsCreditsShare) {
  const ArbitratedRates r = read_behind_a_backed_up_write(384);
  EXPECT_NEAR(r.rate[0], 1, 1e-9);
  EXPECT_NEAR(r.rate[1], 1, 1e-6);
}

// Behind virtual output queues at edges 1 and 2 the MRds wait behind the write in edge 0's
// FIFO and in edge 1's queue to edge 2, where both go next (not in edge 2's: the write's
// queue there is to edge 3): their window spread over two queues, 128 in each against the
// write's 128, one each.
TEST(ArbitratedRates, AReadWaitingInOneQueueKeepsItsWindowThere) {
  const ArbitratedRates r = read_behind_a_backed_up_write(256, false);
  EXPECT_NEAR(r.rate[0], 1, 1e-9);
  EXPECT_NEAR(r.rate[1], 1, 1e-6);
}

// What holds each flow, and what of its window waits there (ArbitratedRates::queued_window,
// the waves a read's last byte comes in: flow_fabric.cpp, last_wave_ns()). The write is held
// by edge 3's egress, no queue: 0. The read is held by a queue it waits in, edge 0's: behind
// virtual output queues its window is spread over two queues (the test before), 256 tags give
// 128 in each, the queue's non-posted credits; 64 give 32 (so its MRds get 32 per 128 write
// TLPs: 0.25 of the write's 1 per ns); behind three FIFOs, a third of 256 in each.
TEST(ArbitratedRates, AReadHeldByAQueueHasWhatItHoldsThereAsItsQueuedWindow) {
  const auto held = [](const ArbitratedRates& r, std::size_t f) {
    return std::vector<int>(r.held.begin() + r.held_start[f], r.held.begin() + r.held_start[f + 1]);
  };
  const ArbitratedRates voq = read_behind_a_backed_up_write(256, false);
  EXPECT_EQ(held(voq, 0), std::vector<int>{3});
  EXPECT_EQ(voq.queued_window[0], 0.0);
  EXPECT_EQ(held(voq, 1), std::vector<int>{0});
  EXPECT_NEAR(voq.queued_window[1], 128, 1e-9);
  const ArbitratedRates small = read_behind_a_backed_up_write(64, false);
  EXPECT_NEAR(small.rate[1], 0.25, 1e-6);  // 32 MRds per 128 write TLPs ahead
  EXPECT_NEAR(small.queued_window[1], 32, 1e-9);
  const ArbitratedRates fifo = read_behind_a_backed_up_write(256);
  EXPECT_EQ(held(fifo, 1).size(), 1u);
  EXPECT_NEAR(fifo.queued_window[1], 256.0 / 3, 1e-6);
}

// Behind a queue beyond: edge 2 (1) holds flow h, which backs up into edge 1's receiver, a
// FIFO of 128 TLPs per class, that a's writes and b's MRds (window 128) share with it; a then
// waits in that queue, and backs up into edge 0's receiver, another such FIFO, with b's MRds
// behind its writes. So b's MRds wait in both FIFOs: behind a's 128 writes at edge 0, which
// drain at a's pace, and behind 128 writes of h and a at edge 1, which drain at both's. By
// hand: h and a each get 1 TLP per ns (edge 1's egress takes turns between its two ports,
// and rc0's FIFO sends a's writes as fast as h's), so an MRd waits 128 ns at edge 0 and 64 at
// edge 1, and b's 128 tags give it 128 / 192 = 2/3 MRd per ns (Little's law). Taking a's
// writes at edge 0 to be divided by edge 1's egress, the fluid let b's MRds pass a there: 2.
TEST(ArbitratedRates, MrdsBehindWritesThatAQueueBeyondHoldsWaitInTheFifo) {
  std::vector<EdgeArbitration> arb(5);
  for (int e : {0, 1}) {
    arb[static_cast<std::size_t>(e)].buffered = {128, 128, EdgeArbitration::kNoLimit};
    arb[static_cast<std::size_t>(e)].fifo_ingress = true;
  }
  FlowSpec h = flow({hop(4), hop(1, 1), hop(2)});
  FlowSpec a = flow({hop(0), hop(1, 0), hop(3)});
  FlowSpec b = flow({hop(0, 1), hop(1, 0), hop(3)});
  for (FlowSpec* f : {&h, &a, &b}) f->path[0].starts = true;
  for (Hop& x : b.path) x.cls = 1, x.window = 128;
  const ArbitratedRates r = arbitrated_rates({10, 10, 1, 100, 10}, arb, {h, a, b});
  ASSERT_TRUE(r.converged);
  EXPECT_NEAR(r.rate[0], 1, 1e-6);
  EXPECT_NEAR(r.rate[1], 1, 1e-6);
  EXPECT_NEAR(r.rate[2], 2.0 / 3, 1e-6);
}

// The rates r settled on, flow by flow, to 1e-6.
void expect_rates(const ArbitratedRates& r, const std::vector<double>& want) {
  ASSERT_TRUE(r.converged);
  for (std::size_t f = 0; f < want.size(); ++f) EXPECT_NEAR(r.rate[f], want[f], 1e-6) << "flow " << f;
}

// Two reads' data from a completer whose TCs have their own VCs (edge 0, strict, TC4 first)
// share edge 1 (one VC) into a switch's FIFO of infinite completion credits; edge 2 holds x
// (TC4), edge 3 takes y (TC0), and `edges` in all (the rest for the test's other flows).
struct TwoReadsInAFifo {
  std::vector<EdgeArbitration> arb;
  FlowSpec x, y;
  explicit TwoReadsInAFifo(std::size_t edges)
      : arb(edges), x(flow({hop(0), hop(1), hop(2)}, 4)), y(flow({hop(0), hop(1), hop(3)}, 0)) {
    arb[0] = vc_per_tc(strict());
    arb[1].fifo_ingress = true;
    for (FlowSpec* f : {&x, &y}) {
      f->path[0].starts = true;
      for (Hop& k : f->path) k.cls = 2, k.window = 256;
    }
  }
};

// Edge 2 (1) holds x, edge 3 (10) does not hold y. The FIFO takes in whatever edge 1
// brings, so edge 1's egress never has a backlog to serve by ingress VC: each read waits
// there with its window, 256 TLPs each, and they leave in arrival order, one of y's per one
// of x's: y gets x's 1. Serving x first out of a backlog, the fluid stopped y.
TEST(ArbitratedRates, ReadsInAFifoOfInfiniteCreditsLeaveByTheirWindows) {
  const TwoReadsInAFifo t(4);
  expect_rates(arbitrated_rates({100, 10, 1, 10}, t.arb, {t.x, t.y}), {1, 1});
}

// The same, with a write z sharing x's egress (edge 2, ports by round robin: z could take
// 1/2 with x always there, and x 1/2). The FIFO has one head: while it is one of y's TLPs,
// edge 2 sees none of x's and gives z the turn, so the queue passes no more than
// x / (1/2) + y / 10 = 1 (models/flow/arbitrated_rates.cpp, "One head for several
// egresses"). By windows x = y, so x = y = 1 / 2.1 = 0.476 and z takes the rest of edge 2.
// Counted as one egress each, x = y = z = 1/2.
TEST(ArbitratedRates, OneFifoHeadForTwoEgressesGivesTheHeldFlowsTurnsAway) {
  const TwoReadsInAFifo t(5);
  FlowSpec z = flow({hop(4), hop(2, 1)}, 0);
  z.path[0].starts = true;
  expect_rates(arbitrated_rates({100, 10, 1, 10, 10}, t.arb, {t.x, t.y, z}), {1 / 2.1, 1 / 2.1, 1 - 1 / 2.1});
}

// Alone at its egress, the held flow loses no turns while the head is elsewhere: the link
// still sends its last TLP when the next reaches the head. y could take 2 at edge 3, so
// x / 1 + y / 2 = 1.5, which does not bind: x = y = 1 (0.667 each if it did).
TEST(ArbitratedRates, OneFifoHeadCostsAHeldFlowAloneAtItsEgressNothing) {
  const TwoReadsInAFifo t(4);
  expect_rates(arbitrated_rates({100, 10, 1, 2}, t.arb, {t.x, t.y}), {1, 1});
}

// A read's data (r: edges 0, 1, 2; window 256 TLPs) and a push (p: edges 1, 3) share edge 1
// into a switch's FIFO; a peer write (z: edges 4, 2) shares r's egress there. Edges 1 and 2
// serve ports by strict priority, the higher slot (p's, z's) first, and each carries 10. By hand: z takes all
// of edge 2, so r's completions stop there and none leave the FIFO; every one that reaches
// it stays, and the link before passes one whenever p leaves it a turn, so the FIFO fills
// with them and p, behind them, stops too: r 0, z 10, p 0. (The point the arbiters alone
// give, p 10 with r stopped at edge 1 behind it, is one the queue leaves at p's first idle
// turn.) Without z, r stops at edge 1 alone and its completions wait before it, in the
// completer's queue: p keeps 10.
TEST(ArbitratedRates, AStoppedFlowFillsTheQueueBeforeItsLastStop) {
  std::vector<EdgeArbitration> arb(5);
  arb[1].port = strict();
  arb[1].fifo_ingress = true;
  arb[1].buffered = {128, 128, 128};
  arb[2].port = strict();
  FlowSpec r = flow({hop(0), hop(1, 0), hop(2, 0)});
  r.path[0].starts = true;
  for (Hop& k : r.path) k.cls = 2, k.window = 256;
  FlowSpec p = flow({hop(1, 1), hop(3)});
  FlowSpec z = flow({hop(4), hop(2, 1)});
  p.path[0].starts = z.path[0].starts = true;
  const std::vector<double> capacity = {100, 10, 10, 100, 100};
  expect_rates(arbitrated_rates(capacity, arb, {r, p, z}), {0, 0, 10});
  expect_rates(arbitrated_rates(capacity, arb, {r, p}), {0, 10});
}

// A guard counts the arbitration cycles a requester asks in, and starts again from 0 at a
// cycle it does not ask in (models/pcie/arbiters/starvation_guard.cpp). h's writes (edges 0,
// 1) are held by edge 1 (1) and fill edge 0's receiver, 128 posted credits; l's writes
// (edges 0, 2) share those credits, and edge 0 serves h's port first by strict priority with
// a guard of 7. l can ask only when a credit returns. Alone with h, every cycle of edge 0 is
// such a one, l has waited 7 of them at the 8th and takes it: l = h / 7 = 1/7. With o's
// completions (edges 0, 3; no credit limit) taking turns at edge 0 between the credits, a
// cycle in which only o asks comes between any two, l's count never reaches 7, and h takes
// every credit: l = 0, o the other 9 of edge 0 (10).
TEST(ArbitratedRates, AGuardDoesNotReachAFlowThatAsksOnlyBetweenOtherGrants) {
  std::vector<EdgeArbitration> arb(5);
  arb[0].port = strict(7);
  arb[0].buffered = {128, 128, EdgeArbitration::kNoLimit};
  FlowSpec h = flow({hop(0, 2), hop(1)});
  FlowSpec l = flow({hop(0, 0), hop(2)});
  FlowSpec o = flow({hop(0, 1), hop(3)});
  for (Hop& k : o.path) k.cls = 2;
  for (FlowSpec* f : {&h, &l, &o}) f->path[0].starts = true;
  const std::vector<double> capacity = {10, 1, 100, 100, 100};
  expect_rates(arbitrated_rates(capacity, arb, {h, l}), {1, 1.0 / 7});
  expect_rates(arbitrated_rates(capacity, arb, {h, l, o}), {1, 0, 9});
}

// A read's data (r: edges 0, 1, 2; window 256 TLPs) held by edge 2 (1) and a write (w: edges
// 0, 1, 3) pass two FIFOs, the receivers of edges 0 and 1 (128 posted credits each,
// completions unbounded). w's TLPs fill both FIFOs' posted credits, 128 each, and r's window
// waits in both, behind them: each of its TLPs spends the same time in each FIFO (128 of w's
// TLPs ahead, leaving at w's pace), so 128 of its 256 are in each (Little's law). Each FIFO
// then holds 128 of each class and passes them one for one: w = r = 1. Counting r's whole
// window in the FIFO that edge 2 backs up, w got one TLP for two of r's: 1/2.
TEST(ArbitratedRates, AHeldReadsWindowIsSpreadOverItsOwnFifoAndTheOnesBefore) {
  std::vector<EdgeArbitration> arb(4);
  for (int e : {0, 1}) {
    arb[static_cast<std::size_t>(e)].fifo_ingress = true;
    arb[static_cast<std::size_t>(e)].buffered = {128, 128, EdgeArbitration::kNoLimit};
  }
  FlowSpec r = flow({hop(0, 0), hop(1), hop(2)});
  for (Hop& k : r.path) k.cls = 2, k.window = 256;
  FlowSpec w = flow({hop(0, 1), hop(1), hop(3)});
  r.path[0].starts = w.path[0].starts = true;
  expect_rates(arbitrated_rates({10, 10, 1, 10}, arb, {r, w}), {1, 1});
}

}  // namespace arbitrated_rates_test
