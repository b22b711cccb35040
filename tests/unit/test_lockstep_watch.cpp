// LockstepWatch (models/flow/lockstep_watch.h): equal copies of different apps started at one
// instant and held by one link at one rate, for the same pair of apps at least twice, are a
// tie; anything else is not.
#include <gtest/gtest.h>
#include <map>
#include "models/flow/lockstep_watch.h"

using arbsim::flow::LockstepWatch;

namespace {

// held(id) from a table: flow id -> the links that hold it.
std::function<std::vector<int>(int)> holding(std::map<int, std::vector<int>> h) {
  return [h](int id) { return h.count(id) ? h.at(id) : std::vector<int>{}; };
}
// rate(id): 5 GB/s for every flow but those given.
std::function<double(int)> rates(std::map<int, double> r = {}) {
  return [r](int id) { return r.count(id) ? r.at(id) : 5.0; };
}

}  // namespace

TEST(LockstepWatch, EqualCopiesOfTwoAppsHeldByOneLinkTwiceAreATie) {
  LockstepWatch w;
  w.started(1, 10, 1 << 20, 5000);
  w.started(2, 11, 1 << 20, 5000);
  w.settle(5000, holding({{1, {3, 7}}, {2, {7}}}), rates());
  EXPECT_TRUE(w.ties().empty());  // once: a TLP at most
  w.started(3, 11, 1 << 20, 9000);  // the next iteration, the other app first
  w.started(4, 10, 1 << 20, 9000);
  w.settle(9000, holding({{3, {7}}, {4, {7}}}), rates());
  ASSERT_EQ(w.ties().size(), 1u);
  const auto t = w.ties().at(7);
  EXPECT_EQ(t.times, 2u);
  EXPECT_DOUBLE_EQ(t.first_ns, 5.0);
  EXPECT_EQ(t.flows, (std::set<uint32_t>{10, 11}));
}

TEST(LockstepWatch, UnequalSizesRatesOrHoldsOtherInstantsOrOneAppAreNot) {
  LockstepWatch w;
  for (uint64_t at : {0, 100000}) {
    w.started(1, 10, 4096, at);
    w.started(2, 11, 8192, at);  // another size
    w.started(3, 10, 4096, at);  // the same app
    w.started(4, 12, 4096, at);  // equal to 1 and 3, held elsewhere
    w.started(5, 13, 4096, at);  // equal, held with 1 but faster (a higher priority)
    w.settle(at, holding({{1, {1}}, {2, {1}}, {3, {1}}, {4, {2}}, {5, {1}}}), rates({{5, 9.0}}));
    w.started(6, 14, 4096, at + 1000);
    w.started(7, 15, 4096, at + 1000);
    w.settle(at + 1000, holding({{6, {1}}}), rates());  // 7 held by nothing (its own cap) or ended
    w.started(8, 16, 4096, at + 2000);
    w.settle(at + 2000, holding({{8, {1}}}), rates());  // alone at its instant
  }
  EXPECT_TRUE(w.ties().empty());
}

TEST(LockstepWatch, PairsAreLookedAtOnceWithTheRatesOfTheirStart) {
  LockstepWatch w;
  for (uint64_t at : {0, 100000}) {
    w.started(1, 10, 4096, at);
    w.started(2, 11, 4096, at);
    w.settle(at, holding({}), rates());  // not held together then
    w.settle(at, holding({{1, {4}}, {2, {4}}}), rates());  // a second computation at the instant
  }
  EXPECT_TRUE(w.ties().empty());
  for (uint64_t at : {200000, 300000}) {
    w.started(1, 10, 4096, at);
    w.started(2, 11, 4096, at);
    w.settle(at, holding({}), rates());
    w.started(3, 12, 4096, at);  // a third at the same instant pairs with both
    w.settle(at, holding({{1, {4}}, {2, {4}}, {3, {4}}}), rates());
  }
  ASSERT_EQ(w.ties().size(), 1u);
  EXPECT_EQ(w.ties().at(4).times, 4u);
  EXPECT_EQ(w.ties().at(4).flows, (std::set<uint32_t>{10, 11, 12}));
}
