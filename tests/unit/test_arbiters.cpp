// Unit tests for the arbiter library (models/pcie/arbiters, semantics in docs/arbiters.md).
//
// Where the expectations come from (all worked by hand from the rules, not from a run):
// - RoundRobin*: the rule "grant the first requesting index after the last granted one,
//   pointer starts at n-1, moves only on a grant" (docs/arbiters.md; PCIe hardware-fixed
//   RR, docs/pcie-reference.md §4).
// - StrictPriority*: "the highest requesting index wins", VC7 highest (seed 000 §3.2,
//   docs/pcie-reference.md §4 strict-priority group).
// - Wrr*: phase tables from the smooth-WRR construction worked step by step in the
//   comments next to each table; 3:1 over 400 cycles is 300/100 because a 4-phase table
//   [0,0,1,0] repeats 100 times. Fallback/phase-pointer cases follow the scan rule.
// - StarvationGuard*: seed 000 §3.2 ("blocked for x cycles ... handled immediately"), with
//   the counter rules of docs/arbiters.md; the cycle-by-cycle traces are in the comments.
//   The random-pattern bound uses an external oracle: it measures, from the grants alone,
//   how long each requester has requested without a grant.
// - ArbiterFactory*: the spec rules in docs/arbiters.md ("Config names").
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/pcie/arbiters/arbiter.h"
#include "models/pcie/arbiters/round_robin.h"
#include "models/pcie/arbiters/starvation_guard.h"
#include "models/pcie/arbiters/strict_priority.h"
#include "models/pcie/arbiters/weighted_round_robin.h"

namespace arbsim {
namespace {

// Grants for the same request mask repeated `cycles` times.
std::vector<int> run(Arbiter& a, uint32_t requests, int cycles) {
  std::vector<int> out;
  for (int c = 0; c < cycles; ++c) out.push_back(a.grant(requests));
  return out;
}

using V = std::vector<int>;

// ---------------------------------------------------------------- round robin

TEST(RoundRobin, FirstGrantIsLowestRequester) {
  RoundRobinArbiter a(4);
  EXPECT_EQ(a.pointer(), 3);
  EXPECT_EQ(a.grant(0b1010), 1);
}

TEST(RoundRobin, RotatesWhenAllRequest) {
  RoundRobinArbiter a(4);
  EXPECT_EQ(run(a, 0b1111, 9), (V{0, 1, 2, 3, 0, 1, 2, 3, 0}));
}

TEST(RoundRobin, PointerMovesOnlyOnGrant) {
  RoundRobinArbiter a(4);
  EXPECT_EQ(a.grant(0b0100), 2);
  EXPECT_EQ(a.grant(0), -1);  // idle: pointer stays at 2
  EXPECT_EQ(a.pointer(), 2);
  EXPECT_EQ(a.grant(0), -1);
  EXPECT_EQ(a.grant(0b1111), 3);  // first after 2
  EXPECT_EQ(a.grant(0b0011), 0);  // wraps past 3
  EXPECT_EQ(a.grant(0b0011), 1);
  EXPECT_EQ(a.grant(0b0011), 0);
}

TEST(RoundRobin, SparseRequests) {
  RoundRobinArbiter a(8);
  // Requesters 1, 5, 6: each in turn, skipping the idle ones.
  EXPECT_EQ(run(a, (1u << 1) | (1u << 5) | (1u << 6), 5), (V{1, 5, 6, 1, 5}));
  // Pointer at 5: first of {0,7} after 5 is 7, then 0 after wrapping.
  EXPECT_EQ(run(a, (1u << 0) | (1u << 7), 3), (V{7, 0, 7}));
}

TEST(RoundRobin, ThirtyTwoRequestersWrap) {
  RoundRobinArbiter a(32);
  EXPECT_EQ(a.grant(0x80000001u), 0);
  EXPECT_EQ(a.grant(0x80000001u), 31);
  EXPECT_EQ(a.grant(0x80000001u), 0);  // pointer 31 wraps to the lowest requester
}

TEST(RoundRobin, IgnoresBitsAboveN) {
  RoundRobinArbiter a(2);
  EXPECT_EQ(a.grant(0b100), -1);
  EXPECT_EQ(a.grant(0b110), 1);
}

TEST(RoundRobin, ResetRestoresStartState) {
  RoundRobinArbiter a(4);
  a.grant(0b0100);
  a.reset();
  EXPECT_EQ(a.grant(0b1111), 0);
}

// The rule by brute force: from the requester after the pointer, wrapping, the first that
// requests. Checked against the arbiter at 63 and 64 requesters (one word; at 64 the
// pointer at 63 wraps with no bit above it) and 65 and 130 (requests across words).
TEST(RoundRobin, OneWordAndManyWordRequestsFollowTheSameRule) {
  for (int n : {63, 64, 65, 130}) {
    RoundRobinArbiter a(n);
    std::mt19937_64 rng(static_cast<uint64_t>(n));
    int pointer = n - 1;
    for (int cycle = 0; cycle < 2000; ++cycle) {
      std::vector<uint64_t> words(static_cast<std::size_t>((n + 63) / 64 + 1));
      const int density = cycle % 4;  // sparse to dense, and now and then nothing
      for (auto& w : words) w = density == 0 ? rng() & rng() & rng() : density == 1 ? rng() : 0;
      if (cycle % 50 == 0) words[0] |= 1ull << 63;  // the top bit of the first word
      int expected = -1;
      for (int k = 1; k <= n && expected < 0; ++k) {
        const int i = (pointer + k) % n;
        if ((words[static_cast<std::size_t>(i >> 6)] >> (i & 63)) & 1u) expected = i;
      }
      ASSERT_EQ(a.grant(Requests(words.data(), static_cast<int>(words.size()))), expected) << "n " << n << " cycle " << cycle;
      if (expected >= 0) pointer = expected;
    }
  }
}

// ---------------------------------------------------------------- strict priority

TEST(StrictPriority, HighestIndexWins) {
  StrictPriorityArbiter a(8);
  EXPECT_EQ(a.grant(0b10010010), 7);  // VC7 beats VC4 and VC1
  EXPECT_EQ(a.grant(0b00010010), 4);
  EXPECT_EQ(a.grant(0b00000001), 0);
  EXPECT_EQ(a.grant(0), -1);
  EXPECT_EQ(run(a, 0b11, 3), (V{1, 1, 1}));  // no rotation: stateless
}

TEST(StrictPriority, IgnoresBitsAboveN) {
  StrictPriorityArbiter a(3);
  EXPECT_EQ(a.grant(0b1001), 0);
}

// ---------------------------------------------------------------- weighted round robin

TEST(WrrExpand, ThreeToOne) {
  // scores +[3,1]: [3,1]->0 [-1,1]; [2,2] tie->0 [-2,2]; [1,3]->1 [1,-1]; [4,0]->0 [0,0]
  EXPECT_EQ(WeightedRoundRobinArbiter::expand_weights({3, 1}), (V{0, 0, 1, 0}));
}

TEST(WrrExpand, EqualWeightsTieToLowestIndex) {
  // [1,1] tie->0 [-1,1]; [0,2]->1 [0,0]
  EXPECT_EQ(WeightedRoundRobinArbiter::expand_weights({1, 1}), (V{0, 1}));
}

TEST(WrrExpand, FiveThreeTwo) {
  // total 10; scores after adding weights, then the pick:
  // [5,3,2]->0  [0,6,4]->1  [5,-1,6]->2  [10,2,-2]->0  [5,5,0]->0 (tie)
  // [0,8,2]->1  [5,1,4]->0  [0,4,6]->2   [5,7,-2]->1   [10,0,0]->0
  EXPECT_EQ(WeightedRoundRobinArbiter::expand_weights({5, 3, 2}),
            (V{0, 1, 2, 0, 0, 1, 0, 2, 1, 0}));
}

TEST(WrrExpand, ZeroWeightNeverInTable) {
  // [2,0,1]->0 [-1,0,1]; [1,0,2]->2 [1,0,-1]; [3,0,0]->0
  EXPECT_EQ(WeightedRoundRobinArbiter::expand_weights({2, 0, 1}), (V{0, 2, 0}));
}

TEST(Wrr, ThreeToOneIsExactly75To25) {
  WeightedRoundRobinArbiter a(2, WeightedRoundRobinArbiter::expand_weights({3, 1}));
  int count[2] = {0, 0};
  for (int c = 0; c < 400; ++c) ++count[a.grant(0b11)];
  EXPECT_EQ(count[0], 300);
  EXPECT_EQ(count[1], 100);
}

TEST(Wrr, ExplicitPhaseOrder) {
  WeightedRoundRobinArbiter a(3, {2, 0, 1, 0});
  EXPECT_EQ(run(a, 0b111, 8), (V{2, 0, 1, 0, 2, 0, 1, 0}));
}

TEST(Wrr, ScanSkipsPhasesOfIdleRequesters) {
  WeightedRoundRobinArbiter a(3, {2, 0, 1, 0});
  // Requester 0 idle: phase0(2) ptr->1; phases 1 skip, 2(1) ptr->3; phase 3 skip, 0(2) ...
  EXPECT_EQ(run(a, 0b110, 4), (V{2, 1, 2, 1}));
}

TEST(Wrr, PointerMovesPastGrantedPhase) {
  WeightedRoundRobinArbiter a(4, {0, 1, 2, 3});
  EXPECT_EQ(a.grant(0b1000), 3);  // found at phase 3: pointer wraps to 0
  EXPECT_EQ(a.phase_pointer(), 0);
  EXPECT_EQ(a.grant(0b1111), 0);
  EXPECT_EQ(a.grant(0), -1);  // idle: pointer stays at 1
  EXPECT_EQ(a.phase_pointer(), 1);
  EXPECT_EQ(a.grant(0b1111), 1);
}

TEST(Wrr, FallbackServesRequesterAbsentFromTable) {
  WeightedRoundRobinArbiter a(3, {0, 0, 1});
  EXPECT_EQ(a.grant(0b100), 2);  // only 2 requests and it owns no phase
  EXPECT_EQ(a.grant(0b110), 1);  // 1 owns a phase, so the table decides
}

TEST(Wrr, FallbackHasItsOwnPointer) {
  WeightedRoundRobinArbiter a(4, {0});
  EXPECT_EQ(a.grant(0b1110), 1);  // fallback RR: 1, its pointer -> 1
  EXPECT_EQ(a.grant(0b0011), 0);  // table grant; fallback pointer untouched
  EXPECT_EQ(a.grant(0b1110), 2);  // fallback continues after 1
  EXPECT_EQ(a.grant(0b1110), 3);
  EXPECT_EQ(a.grant(0b1110), 1);
}

TEST(Wrr, FallbackLeavesPhasePointer) {
  WeightedRoundRobinArbiter a(3, {0, 1});
  EXPECT_EQ(a.grant(0b011), 0);  // phase pointer -> 1
  EXPECT_EQ(a.grant(0b100), 2);  // fallback
  EXPECT_EQ(a.grant(0b011), 1);  // phase 1, so the fallback did not move it
}

TEST(Wrr, ResetRestoresStartState) {
  WeightedRoundRobinArbiter a(2, {0, 1});
  a.grant(0b11);
  a.reset();
  EXPECT_EQ(a.grant(0b11), 0);
}

TEST(Wrr, RejectsBadTables) {
  EXPECT_THROW(WeightedRoundRobinArbiter(2, {}), std::invalid_argument);
  EXPECT_THROW(WeightedRoundRobinArbiter(2, {0, 2}), std::invalid_argument);
  EXPECT_THROW(WeightedRoundRobinArbiter(2, {-1}), std::invalid_argument);
  EXPECT_THROW(WeightedRoundRobinArbiter::expand_weights({0, 0}), std::invalid_argument);
  EXPECT_THROW(WeightedRoundRobinArbiter::expand_weights({2, -1}), std::invalid_argument);
}

// A reload (share control by WRR weights): the new table from the weights, the scan from
// phase 0 again; [1, 3] -> [1, 0, 1, 1] by the smooth interleave.
TEST(Wrr, SetWeightsReloadsTheTableFromPhaseZero) {
  WeightedRoundRobinArbiter a(2, {0, 1});
  a.grant(0b11);  // pointer at phase 1
  ASSERT_TRUE(a.set_weights({1, 3}));
  EXPECT_EQ(a.phases(), (std::vector<int>{1, 0, 1, 1}));
  EXPECT_EQ(a.phase_pointer(), 0);
  std::vector<int> got;
  for (int i = 0; i < 8; ++i) got.push_back(a.grant(0b11));
  EXPECT_EQ(got, (std::vector<int>{1, 0, 1, 1, 1, 0, 1, 1}));  // 3 : 1
  EXPECT_THROW(a.set_weights({1, 1, 1}), std::invalid_argument);  // one weight per requester
  EXPECT_THROW(a.set_weights({0, 0}), std::invalid_argument);
}

TEST(Wrr, OnlyWeightedArbitersTakeWeights) {
  RoundRobinArbiter rr(2);
  EXPECT_FALSE(rr.set_weights({1, 1}));
  StarvationGuard guarded(std::make_unique<WeightedRoundRobinArbiter>(2, std::vector<int>{0, 1}), 8);
  EXPECT_TRUE(guarded.set_weights({3, 1}));  // the guard passes them to its inner arbiter
  EXPECT_EQ(guarded.describe(), "wrr[0,0,1,0]+starve(8)");
}

// ---------------------------------------------------------------- starvation guard

std::unique_ptr<Arbiter> guarded_strict(int n, int x) {
  return std::make_unique<StarvationGuard>(std::make_unique<StrictPriorityArbiter>(n), x);
}

TEST(StarvationGuard, LowPriorityServedEveryFifthCycle) {
  // x=4, both always request. Cycles 0-3: strict grants 1, requester 0 waits 1,2,3,4.
  // Cycle 4: 0 has waited 4 >= x -> forced; then 1 waits 1 < x, strict grants 1 again.
  auto a = guarded_strict(2, 4);
  for (int c = 0; c < 100; ++c) EXPECT_EQ(a->grant(0b11), c % 5 == 4 ? 0 : 1) << "cycle " << c;
}

TEST(StarvationGuard, AllTiedAtThresholdHighestIndexFirst) {
  // Strict n=8, x=4, all request. Cycles 0-3 grant 7; at cycle 4 requesters 0-6 have all
  // waited 4: ties go to the highest index, then each cycle the longest waiter (6,5,...,0).
  // Requester 0 waits 10 cycles = x + n - 2, the general bound. From cycle 11 requester 7
  // has waited 7 (cycles 4-10), the most, and the order repeats 7..0.
  auto a = guarded_strict(8, 4);
  EXPECT_EQ(run(*a, 0xFF, 19), (V{7, 7, 7, 7, 6, 5, 4, 3, 2, 1, 0, 7, 6, 5, 4, 3, 2, 1, 0}));
}

TEST(StarvationGuard, ForcedGrantDoesNotMoveInner) {
  // Inner WRR [0,0,0,1], x=2, both request. c0 phase0->0, c1 phase1->0 (1 waited 2),
  // c2 forced 1 with the phase pointer left at 2, c3 phase2->0, c4 phase3->1,
  // c5 phase0->0, c6 phase1->0, c7 forced 1, c8 phase2->0, c9 phase3->1.
  StarvationGuard a(std::make_unique<WeightedRoundRobinArbiter>(2, V{0, 0, 0, 1}), 2);
  EXPECT_EQ(run(a, 0b11, 10), (V{0, 0, 1, 0, 1, 0, 0, 1, 0, 1}));
}

TEST(StarvationGuard, DroppedRequestResetsCounter) {
  // x=3. c0,c1: 1 wins, 0 waits 1,2. c2: 0 drops -> 0. c3-c5: waits 1,2,3. c6: forced.
  auto a = guarded_strict(2, 3);
  V got;
  for (uint32_t req : {0b11u, 0b11u, 0b10u, 0b11u, 0b11u, 0b11u, 0b11u}) got.push_back(a->grant(req));
  EXPECT_EQ(got, (V{1, 1, 1, 1, 1, 1, 0}));
}

TEST(StarvationGuard, IdleCycleChangesNothing) {
  // x=3. c0,c1: 0 waits 1,2. c2 idle: counters kept. c3: 0 waits 3. c4: forced.
  auto a = guarded_strict(2, 3);
  V got;
  for (uint32_t req : {0b11u, 0b11u, 0u, 0b11u, 0b11u}) got.push_back(a->grant(req));
  EXPECT_EQ(got, (V{1, 1, -1, 1, 0}));
}

TEST(StarvationGuard, ResetClearsCounters) {
  auto a = guarded_strict(2, 2);
  a->grant(0b11);  // 0 waits 1
  a->reset();
  EXPECT_EQ(run(*a, 0b11, 3), (V{1, 1, 0}));  // forced only after two fresh waits
}

TEST(StarvationGuard, RejectsBadArguments) {
  EXPECT_THROW(StarvationGuard(nullptr, 4), std::invalid_argument);
  EXPECT_THROW(StarvationGuard(std::make_unique<RoundRobinArbiter>(2), 0), std::invalid_argument);
}

// Random request patterns: a requester with a head keeps requesting until granted (and
// sometimes drops, e.g. out of credits); an idle one gets a new head with some probability.
// The oracle measures each requester's run of requesting-without-grant cycles from the
// grants alone and checks docs/arbiters.md's bound: run <= x + k - 1, k = requesters whose
// run was >= x in the cycle this run reached x; hence <= x + n - 2, and <= x for n = 2.
struct BoundCase {
  ArbiterSpec spec;
  int n;
};

int check_bound(Arbiter& a, int n, int x, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<int> run_len(size_t(n), 0), k_at_x(size_t(n), 0);
  uint32_t heads = 0;
  int max_run = 0;
  for (int c = 0; c < 20000; ++c) {
    for (int i = 0; i < n; ++i) {
      const bool has = (heads >> i) & 1u;
      if (!has && u(rng) < 0.6) heads |= 1u << i;
      if (has && u(rng) < 0.02) heads &= ~(1u << i);  // drop: no head waiting
    }
    int at_x = 0;
    for (int i = 0; i < n; ++i) at_x += ((heads >> i) & 1u) && run_len[size_t(i)] >= x;
    for (int i = 0; i < n; ++i)
      if (((heads >> i) & 1u) && run_len[size_t(i)] == x) k_at_x[size_t(i)] = at_x;
    const int g = a.grant(heads);
    if (heads == 0) {
      EXPECT_EQ(g, -1);
      continue;
    }
    EXPECT_TRUE(g >= 0 && g < n && ((heads >> g) & 1u)) << "granted non-requester " << g;
    for (int i = 0; i < n; ++i) {
      const size_t s = size_t(i);
      const bool waiting = ((heads >> i) & 1u) && i != g;
      if (i == g) {
        const int k = run_len[s] >= x ? k_at_x[s] : 1;
        EXPECT_LE(run_len[s], x + k - 1) << "requester " << i << " cycle " << c;
      }
      run_len[s] = waiting ? run_len[s] + 1 : 0;
      if (!waiting) k_at_x[s] = 0;
      max_run = std::max(max_run, run_len[s]);
    }
    heads &= ~(1u << g);  // the granted head leaves
  }
  return max_run;
}

ArbiterSpec spec_for(const std::string& type, int n) {
  ArbiterSpec s;
  s.type = find_arbiter_type(type);
  if (type == "wrr") {  // includes a weight-0 requester for n >= 4 to exercise the fallback
    const V w2 = {3, 1}, w4 = {4, 2, 1, 0}, w8 = {8, 4, 2, 1, 1, 1, 1, 0};
    s.weights = n == 2 ? w2 : n == 4 ? w4 : w8;
  }
  return s;
}

TEST(StarvationGuard, WaitBoundOverRandomPatterns) {
  uint32_t seed = 1;
  for (const std::string type : {"rr", "strict", "wrr"}) {
    for (int n : {2, 4, 8}) {
      for (int x : {1, 3, 8}) {
        SCOPED_TRACE(type + " n=" + std::to_string(n) + " x=" + std::to_string(x));
        ArbiterSpec spec = spec_for(type, n);
        spec.starvation_threshold = x;
        auto a = make_arbiter(spec, n);
        const int max_run = check_bound(*a, n, x, seed++);
        EXPECT_LE(max_run, x + n - 2);
        if (n == 2) {
          EXPECT_LE(max_run, x);
        }
        if (type == "strict") {
          EXPECT_GE(max_run, x);  // strict starves without the guard: the bound was exercised
        }
      }
    }
  }
}

// ---------------------------------------------------------------- factory

ArbiterSpec spec(const std::string& type, V weights = {}, V phases = {}, int x = 0) {
  ArbiterSpec s;
  s.type = find_arbiter_type(type);  // nullptr for a name the catalogue lacks
  s.weights = std::move(weights);
  s.phases = std::move(phases);
  s.starvation_threshold = x;
  return s;
}

std::string error_of(const ArbiterSpec& s, int n) {
  try {
    make_arbiter(s, n);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// The catalogue is the one list of types: names, lookup and the weighted flag agree.
TEST(ArbiterCatalogue, ListsEachTypeOnce) {
  EXPECT_EQ(arbiter_type_names(), "rr, strict, wrr");
  for (const ArbiterType* t : arbiter_catalogue()) {
    EXPECT_EQ(find_arbiter_type(t->name), t);
    EXPECT_EQ(t->weighted, std::string(t->name) == "wrr");
  }
  EXPECT_EQ(find_arbiter_type("fifo"), nullptr);
}

TEST(ArbiterFactory, Describe) {
  EXPECT_EQ(make_arbiter(spec("rr"), 4)->describe(), "rr");
  EXPECT_EQ(make_arbiter(spec("strict"), 8)->describe(), "strict");
  EXPECT_EQ(make_arbiter(spec("wrr", {3, 1}), 2)->describe(), "wrr[0,0,1,0]");
  EXPECT_EQ(make_arbiter(spec("wrr", {}, {2, 0, 1}), 3)->describe(), "wrr[2,0,1]");
  EXPECT_EQ(make_arbiter(spec("strict", {}, {}, 16), 8)->describe(), "strict+starve(16)");
  EXPECT_EQ(make_arbiter(spec("rr"), 32)->requesters(), 32);
}

TEST(ArbiterFactory, BuildsWorkingArbiters) {
  EXPECT_EQ(make_arbiter(spec("strict"), 8)->grant(0b1001), 3);
  EXPECT_EQ(make_arbiter(spec("rr"), 8)->grant(0b1001), 0);
}

TEST(ArbiterFactory, Errors) {
  const std::string unknown = error_of(spec("fifo"), 4);
  EXPECT_TRUE(contains(unknown, "no arbiter type") && contains(unknown, "rr, strict, wrr")) << unknown;
  EXPECT_TRUE(contains(error_of(spec("rr"), 0), "requester count 0")) << error_of(spec("rr"), 0);
  EXPECT_TRUE(contains(error_of(spec("rr"), 4097), "requester count 4097"));
  EXPECT_TRUE(contains(error_of(spec("rr", {}, {}, -1), 4), "negative"));
  EXPECT_TRUE(contains(error_of(spec("rr", {1, 1}), 2), "only to type 'wrr'"));
  EXPECT_TRUE(contains(error_of(spec("wrr"), 2), "exactly one"));
  EXPECT_TRUE(contains(error_of(spec("wrr", {1, 1}, {0, 1}), 2), "exactly one"));
  EXPECT_TRUE(contains(error_of(spec("wrr", {1, 1, 1}), 2), "3 weights for 2"));
  EXPECT_TRUE(contains(error_of(spec("wrr", {1, -2}), 2), "must be >= 0"));
  EXPECT_TRUE(contains(error_of(spec("wrr", {0, 0}), 2), "sum to 0"));
  EXPECT_TRUE(contains(error_of(spec("wrr", {}, {0, 5}), 2), "requester 5"));
}

}  // namespace
}  // namespace arbsim
