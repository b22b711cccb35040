// The no-progress watchdog (models/common/progress_guard.h): a process that wakes more than
// kMaxActivationsAtOneTime times at one simulated time is stuck in a zero-delay loop.
#include <gtest/gtest.h>
#include "models/common/progress_guard.h"

using namespace arbsim;

TEST(ProgressGuard, StuckOnlyPastTheBoundAtOneTime) {
  ProgressGuard g;
  for (uint64_t i = 0; i < ProgressGuard::kMaxActivationsAtOneTime; ++i) ASSERT_FALSE(g.stuck(42));
  EXPECT_TRUE(g.stuck(42));
}

TEST(ProgressGuard, TimeAdvancingResetsTheCount) {
  ProgressGuard g;
  for (uint64_t t = 0; t < 3 * ProgressGuard::kMaxActivationsAtOneTime; ++t) ASSERT_FALSE(g.stuck(t / 2));
}
