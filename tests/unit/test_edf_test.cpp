// The non-preemptive EDF test of Jeffay, Stanat and Martel (seed 002 §4.2's reference [4]),
// on task sets worked by hand.
#include <gtest/gtest.h>
#include "models/batch/edf_test.h"

using namespace arbsim;

TEST(EdfTest, UtilizationAboveOneFails) {
  const EdfVerdict v = nonpreemptive_edf_test({{60, 100}, {50, 100}});
  EXPECT_FALSE(v.schedulable);
  EXPECT_DOUBLE_EQ(v.utilization, 1.1);
}

TEST(EdfTest, EqualPeriodsReduceToUtilization) {
  // Wafer inspection's two tasks (period 25 ms): no L lies strictly between equal periods.
  EXPECT_TRUE(nonpreemptive_edf_test({{15e6, 25e6}, {10e6, 25e6}}).schedulable);
  EXPECT_FALSE(nonpreemptive_edf_test({{15e6, 25e6}, {10.001e6, 25e6}}).schedulable);
}

TEST(EdfTest, LongJobBlockingAShortPeriodFails) {
  // (e=1, p=2) and (e=3, p=10): U = 0.8, but at L = 3 the long job (3) plus the short task's
  // job released at 0 (floor(2/2) = 1) need 4 > 3: a short job misses while the long one runs.
  const EdfVerdict v = nonpreemptive_edf_test({{3, 10}, {1, 2}});
  EXPECT_FALSE(v.schedulable);
  EXPECT_NE(v.reason.find("L = 3"), std::string::npos) << v.reason;
}

TEST(EdfTest, BlockingThatFitsPasses) {
  // (e=1, p=2) and (e=2, p=10): L = 3: 2 + 1 = 3 <= 3; L = 5: 2 + 2 = 4; L = 7: 2 + 3 = 5;
  // L = 9: 2 + 4 = 6. U = 0.7.
  EXPECT_TRUE(nonpreemptive_edf_test({{2, 10}, {1, 2}}).schedulable);
}

TEST(EdfTest, BadTasksAreRejected) {
  EXPECT_FALSE(nonpreemptive_edf_test({{1, 0}}).schedulable);
  const EdfVerdict v = nonpreemptive_edf_test({{0, 1}, {1, 1e12}});  // 10^12 points to check
  EXPECT_FALSE(v.schedulable);
  EXPECT_NE(v.reason.find("too far apart"), std::string::npos) << v.reason;
}
