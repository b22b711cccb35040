// The AIMD share controller (seed 003 §3.4) on hand-worked sequences: halving on a
// higher-priority miss, one point back on a hit, the floor, the ceiling, priorities that
// do not act on each other, and the sawtooth against a plant with a known threshold.
#include <gtest/gtest.h>
#include <stdexcept>
#include <vector>
#include "models/host/aimd_controller.h"

using namespace arbsim;

// hi misses three times: lo 100 -> 50 -> 25 -> 12.5; then hits three times: 13.5, 14.5, 15.5.
// lo's own results change nothing (no task below it), and hi's share never moves.
TEST(Aimd, HalvesOnMissAndAddsAPointOnHit) {
  AimdController c;
  c.add_task("hi", 2);
  c.add_task("lo", 1);
  std::vector<double> lo;
  for (bool met : {false, false, false, true, true, true}) {
    EXPECT_EQ(c.report("hi", met), 1);
    lo.push_back(c.share_pct("lo"));
  }
  EXPECT_EQ(lo, (std::vector<double>{50, 25, 12.5, 13.5, 14.5, 15.5}));
  EXPECT_EQ(c.report("lo", false), 0);
  EXPECT_EQ(c.share_pct("lo"), 15.5);
  EXPECT_EQ(c.share_pct("hi"), 100);
  EXPECT_EQ(c.misses(), 4u);
  EXPECT_EQ(c.hits(), 3u);
}

// Three levels: a miss of the middle task halves only the lowest; a miss of the top halves
// both below it; equal priorities leave each other alone.
TEST(Aimd, OnlyLowerPrioritiesMove) {
  AimdController c;
  c.add_task("top", 3);
  c.add_task("mid", 2);
  c.add_task("mid2", 2);
  c.add_task("low", 1);
  c.report("mid", false);
  EXPECT_EQ(c.share_pct("mid2"), 100);
  EXPECT_EQ(c.share_pct("low"), 50);
  c.report("top", false);
  EXPECT_EQ(c.share_pct("mid"), 50);
  EXPECT_EQ(c.share_pct("mid2"), 50);
  EXPECT_EQ(c.share_pct("low"), 25);
  EXPECT_EQ(c.share_pct("top"), 100);
}

// Eight misses take 100 to 0.39 without a floor; with the default floor of 1 the share stops
// at 1 (the seventh miss: 1.5625 -> 1). Hits stop at 100.
TEST(Aimd, FloorAndCeiling) {
  AimdController c;
  c.add_task("hi", 1);
  c.add_task("lo", 0);
  for (int i = 0; i < 8; ++i) c.report("hi", false);
  EXPECT_EQ(c.share_pct("lo"), 1);
  EXPECT_EQ(c.report("hi", false), 0);  // already at the floor: nothing changes
  for (int i = 0; i < 150; ++i) c.report("hi", true);
  EXPECT_EQ(c.share_pct("lo"), 100);
}

// A plant where hi meets its deadline exactly when lo's share is at most 30 %. From 100:
// miss (-> 50), miss (-> 25), six hits at 25..30 (-> 31), miss (-> 15.5), then cycles of 15
// hits at 15.x .. 29.x and one miss at 30.x, which halves back to 15.x: hi meets 15 of every
// 16 deadlines after the first cycle, 93.75 %, and lo never drops below 15 %. (Seed 003 §5.3's
// sawtooth, Figs. 6-7; the bar for the reproduction is 90 %.)
TEST(Aimd, SawtoothAgainstAThresholdPlant) {
  AimdController c;
  c.add_task("hi", 1);
  c.add_task("lo", 0);
  int met_after_warmup = 0, jobs_after_warmup = 0;
  double lowest = 100;
  for (int job = 0; job < 1600 + 24; ++job) {
    const bool met = c.share_pct("lo") <= 30;
    c.report("hi", met);
    if (job >= 24) {  // past the first halvings and the first full cycle
      ++jobs_after_warmup;
      met_after_warmup += met;
      lowest = std::min(lowest, c.share_pct("lo"));
    }
  }
  EXPECT_EQ(jobs_after_warmup, 1600);
  EXPECT_NEAR(static_cast<double>(met_after_warmup) / jobs_after_warmup, 15.0 / 16.0, 1.0 / 1600);
  EXPECT_GE(lowest, 15.0);
}

TEST(Aimd, RejectsBadArguments) {
  AimdParams p;
  p.decrease_factor = 1;
  EXPECT_THROW(AimdController{p}, std::invalid_argument);
  p = {};
  p.min_share_pct = 0;
  EXPECT_THROW(AimdController{p}, std::invalid_argument);
  p = {};
  p.initial_share_pct = 0.5;
  EXPECT_THROW(AimdController{p}, std::invalid_argument);
  AimdController c;
  c.add_task("a", 1);
  EXPECT_THROW(c.add_task("a", 2), std::invalid_argument);
  EXPECT_THROW(c.report("b", true), std::invalid_argument);
  EXPECT_THROW(c.share_pct("b"), std::invalid_argument);
}
