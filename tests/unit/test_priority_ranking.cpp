// Seed 000's ranking rules on hand-worked cases (seed 000 §3.1-3.3, Eq. 1-3).
#include <gtest/gtest.h>
#include "models/host/priority_ranking.h"
#include "models/pcie/tc_vc_map.h"

using namespace arbsim;

TEST(PriorityEquations, Eq1AssignsEightTcsToFourGpus) {
  // TC = 2 * ID_D + ID_T: GPU0 requests TC0, responses TC1, ..., GPU3 responses TC7.
  EXPECT_EQ(eq1_tc(0, 0), 0);
  EXPECT_EQ(eq1_tc(0, 1), 1);
  EXPECT_EQ(eq1_tc(2, 0), 4);
  EXPECT_EQ(eq1_tc(3, 1), 7);
}

TEST(PriorityEquations, Eq2FoldsTcsOntoVcs) {
  EXPECT_EQ(eq2_vc(7, 8), 7);
  EXPECT_EQ(eq2_vc(5, 2), 1);
  EXPECT_EQ(eq2_vc(6, 4), 2);
}

TEST(PriorityEquations, Eq3PredictsRemainingTime) {
  EXPECT_DOUBLE_EQ(eq3_transfer_ns(1300000, 13.0), 100000.0);  // 1.3 MB at 13 GB/s = 100 us
}

TEST(Ranking, SmallFirstOrdersByRemainingBytes) {
  const std::vector<DestinationLoad> loads = {{0, 1000, false}, {1, 10, false}, {2, 0, false}, {3, 500, false}};
  EXPECT_EQ(rank_destinations(loads, RankOrder::SmallFirst), (std::vector<int>{1, 3, 0, 2}));
  EXPECT_EQ(rank_destinations(loads, RankOrder::LargeFirst), (std::vector<int>{0, 3, 1, 2}));
}

TEST(Ranking, EscalatedDestinationGoesFirst) {
  const std::vector<DestinationLoad> loads = {{0, 1000, true}, {1, 10, false}};
  EXPECT_EQ(rank_destinations(loads, RankOrder::SmallFirst), (std::vector<int>{0, 1}));
}

TEST(Ranking, TiesBreakByGpuIndex) {
  const std::vector<DestinationLoad> loads = {{2, 64, false}, {1, 64, false}};
  EXPECT_EQ(rank_destinations(loads, RankOrder::SmallFirst), (std::vector<int>{1, 2}));
}

TEST(VcMap, ResponsesAboveRequestsInRankOrder) {
  // Ranking 1, 3, 0, 2: responses of GPU1 (TC3) VC7, GPU3 (TC7) VC6, GPU0 (TC1) VC5,
  // GPU2 (TC5) VC4; requests TC2 VC3, TC6 VC2, TC0 VC1, TC4 VC0 -- but TC0 is
  // hard-wired to VC0, so TC0 and TC4 trade: TC0 VC0, TC4 VC1.
  const auto m = priority_vc_map({1, 3, 0, 2});
  const std::array<uint8_t, 8> expected = {0, 5, 3, 7, 1, 4, 2, 6};
  EXPECT_EQ(m, expected);
}

TEST(VcMap, TwoGpusLeaveUnusedTcsOnVc0) {
  const auto m = priority_vc_map({1, 0});
  EXPECT_EQ(m[3], 7);  // GPU1 responses
  EXPECT_EQ(m[1], 6);  // GPU0 responses
  EXPECT_EQ(m[2], 3);  // GPU1 requests
  EXPECT_EQ(m[0], 0);  // GPU0 requests: VC2 by rank, but TC0 stays on VC0
  for (int tc = 4; tc < 8; ++tc) EXPECT_EQ(m[tc], 0);
}

TEST(VcMap, ScalingKeepsOrder) {
  EXPECT_EQ(scale_vc(7, 2), 1);
  EXPECT_EQ(scale_vc(4, 2), 1);
  EXPECT_EQ(scale_vc(3, 2), 0);
  EXPECT_EQ(scale_vc(5, 4), 2);
  EXPECT_EQ(scale_vc(0, 1), 0);
}
