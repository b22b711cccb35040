// The memo of computed rates (models/flow/rate_memo.h): the order it gives the solver is a
// total order by content, and a recomputation over specs equal to an earlier one's is looked
// up, with the rates worked out by hand from the arbiters' rules (not read back from a run),
// and forgotten when a remap changes what the rates would be.
#include <gtest/gtest.h>
#include <random>
#include "models/flow/flow_scheduler.h"
#include "models/flow/rate_memo.h"

using namespace arbsim::flow;

namespace {

FlowSpec spec(std::vector<int> edges, int tc, double cap = kUnbounded) {
  FlowSpec f;
  for (int e : edges) f.path.push_back(Hop{e, 1.0});
  f.path.front().starts = true;
  f.tc = tc;
  f.cap = cap;
  return f;
}

// VC weights 1:3 over VC0 and VC1, TCn on VCn: 8 GB/s shares as 2 (TC0) and 6 (TC1).
EdgeArbitration weighted_vcs() {
  EdgeArbitration a;
  a.vc = SharePolicy{ShareKind::Weighted, {1, 3}, 0};
  for (int t = 0; t < 8; ++t) a.tc_to_vc[static_cast<std::size_t>(t)] = static_cast<uint8_t>(t);
  return a;
}

}  // namespace

// On 2,000 random pairs of specs (few values per field, so many are equal): exactly one of
// a < b, b < a, a == b holds, equal specs hash alike, and a copy equals its original.
TEST(RateMemo, SpecOrderIsTotalByContent) {
  std::mt19937_64 rng(5);
  const auto random_spec = [&] {
    FlowSpec f = spec({static_cast<int>(rng() % 3)}, static_cast<int>(rng() % 2), rng() % 2 ? kUnbounded : 4.0);
    if (rng() % 2) f.path.push_back(Hop{static_cast<int>(rng() % 3), rng() % 2 ? 1.0 : 1.25});
    f.path.back().cls = static_cast<int>(rng() % 3);
    return f;
  };
  int equal = 0;
  for (int k = 0; k < 2000; ++k) {
    const FlowSpec a = random_spec(), b = random_spec();
    const uint64_t ha = spec_hash(a), hb = spec_hash(b);
    const bool lt = spec_less(ha, a, hb, b), gt = spec_less(hb, b, ha, a), eq = spec_equal(a, b);
    EXPECT_EQ(1, lt + gt + eq);
    if (eq) {
      EXPECT_EQ(ha, hb);
    }
    equal += eq;
    const FlowSpec c = a;
    EXPECT_TRUE(spec_equal(a, c));
    EXPECT_FALSE(spec_less(ha, a, spec_hash(c), c));
  }
  EXPECT_GT(equal, 5);  // distinct specs that are equal do occur (17 of 2,000 with this seed)
}

// A stream's copies of one spec, each started 100 ns after the one before ended (not at its
// instant: that is a replacement, next test). 4000 B at 2 B/ns. The first is fresh (no flow
// had its spec), so that computation is neither looked up nor stored; at 2,000 ns {big}
// alone and at 2,100 {big, second} are computed and stored; at the second's end (4,100)
// {big} is looked up, and at 4,200 {big, third}: two hits, with the arbiter's 2 and 6.
TEST(RateMemo, ANextCopyOfTheSameSpecIsLookedUp) {
  Scheduler s({8}, {weighted_vcs()});
  const int big = s.add(0, 1e6, spec({0}, 1));
  const int first = s.add(0, 4000, spec({0}, 0));
  EXPECT_DOUBLE_EQ(s.rate(first), 2);
  EXPECT_DOUBLE_EQ(s.rate(big), 6);
  EXPECT_EQ(s.advance(2000), std::vector<int>{first});
  EXPECT_DOUBLE_EQ(s.rate(big), 8);
  const int second = s.add(2100, 4000, spec({0}, 0));
  EXPECT_DOUBLE_EQ(s.rate(second), 2);
  EXPECT_EQ(s.memo_hits(), 0u);
  EXPECT_EQ(s.advance(4100), std::vector<int>{second});
  EXPECT_DOUBLE_EQ(s.rate(big), 8);
  const int third = s.add(4200, 4000, spec({0}, 0));
  EXPECT_DOUBLE_EQ(s.rate(third), 2);
  EXPECT_DOUBLE_EQ(s.rate(big), 6);
  EXPECT_EQ(s.memo_hits(), 2u);
  EXPECT_EQ(s.replacements(), 0u);
  EXPECT_DOUBLE_EQ(s.next_finish_ns(), 6200);
}

// The second copy's rates (2 and 6) are stored at 2,100 ns; then a remap swaps the VCs (TC0
// -> VC1, weight 3) at 3,000 ns: the rates become 6 and 2, not the memo's 2 and 6 (the memo
// forgets them: without that it served them here). The second copy's last 2,200 B then take
// 366.7 ns at 6, and the third copy under the new map, 100 ns later, is looked up.
TEST(RateMemo, ARemapForgetsTheRatesOfTheOldMap) {
  Scheduler s({8}, {weighted_vcs()});
  const int big = s.add(0, 1e6, spec({0}, 1));
  const int first = s.add(0, 4000, spec({0}, 0));
  EXPECT_EQ(s.advance(2000), std::vector<int>{first});
  const int second = s.add(2100, 4000, spec({0}, 0));
  EXPECT_DOUBLE_EQ(s.rate(second), 2);
  std::array<uint8_t, 8> swapped{1, 0, 2, 3, 4, 5, 6, 7};
  s.set_tc_map(3000, 0, swapped);
  s.reshare(3000);
  EXPECT_DOUBLE_EQ(s.rate(second), 6);
  EXPECT_DOUBLE_EQ(s.rate(big), 2);
  EXPECT_EQ(s.memo_hits(), 0u);
  const double end = 3000 + 2200.0 / 6;
  EXPECT_EQ(s.advance(end), std::vector<int>{second});
  const int third = s.add(end + 100, 4000, spec({0}, 0));
  EXPECT_DOUBLE_EQ(s.rate(third), 6);
  EXPECT_EQ(s.memo_hits(), 1u);
}

// A copy that starts at the instant one of the same spec ended, nothing else changing (a
// stream's next copy): it takes the ended one's rate, the others keep theirs, and nothing
// is computed or looked up (Scheduler::replacements()). A copy of another spec at that
// instant (TC 1, in the big flow's VC: they split it, 4 each) is computed: no replacement.
TEST(RateMemo, ACopyReplacingOneOfTheSameSpecTakesItsRate) {
  Scheduler s({8}, {weighted_vcs()});
  const int big = s.add(0, 1e6, spec({0}, 1));
  const int first = s.add(0, 4000, spec({0}, 0));
  EXPECT_EQ(s.advance(2000), std::vector<int>{first});
  const int second = s.add(2000, 4000, spec({0}, 0));
  EXPECT_DOUBLE_EQ(s.rate(second), 2);
  EXPECT_DOUBLE_EQ(s.rate(big), 6);
  EXPECT_EQ(s.replacements(), 1u);
  EXPECT_EQ(s.memo_hits(), 0u);
  EXPECT_DOUBLE_EQ(s.next_finish_ns(), 4000);
  EXPECT_EQ(s.advance(4000), std::vector<int>{second});
  const int other = s.add(4000, 4000, spec({0}, 1));  // shares VC1 with big: 4 each
  EXPECT_DOUBLE_EQ(s.rate(other), 4);
  EXPECT_DOUBLE_EQ(s.rate(big), 4);
  EXPECT_EQ(s.replacements(), 1u);
}

// A cap at or above what the flow's links let it move (8 B/ns here) cannot bind, so it is no
// part of the flow's spec: a copy paced at 8 takes the place of an unpaced one of its path as
// the last test's does (its VC's share, 2). A cap under that is kept and binds: paced at 1,
// the next copy moves at 1 and big takes the other 7 (its VC's 6 and what TC 0 leaves).
TEST(RateMemo, ACapThatCannotBindLeavesTheSpecAsItWas) {
  Scheduler s({8}, {weighted_vcs()});
  const int big = s.add(0, 1e6, spec({0}, 1));
  const int first = s.add(0, 4000, spec({0}, 0));
  EXPECT_EQ(s.advance(2000), std::vector<int>{first});
  const int paced_at_link = s.add(2000, 4000, spec({0}, 0, 8));
  EXPECT_DOUBLE_EQ(s.rate(paced_at_link), 2);
  EXPECT_EQ(s.replacements(), 1u);
  EXPECT_EQ(s.advance(4000), std::vector<int>{paced_at_link});
  const int paced = s.add(4000, 4000, spec({0}, 0, 1));
  EXPECT_DOUBLE_EQ(s.rate(paced), 1);
  EXPECT_DOUBLE_EQ(s.rate(big), 7);
  EXPECT_EQ(s.replacements(), 1u);
}

