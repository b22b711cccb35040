// Deadline checks at the kernel's 1 ps resolution (testbenches/deadline.h). A response is a
// picosecond count converted to ns in floating point: 5,113,456 ps as sc_time's
// to_seconds() x 1e9 gives 5113.456000000001, one ulp above the config's 5113.456, and a
// plain `<=` counted that response as a miss while results.json printed both as 5113.456.
#include <gtest/gtest.h>
#include "testbenches/deadline.h"

using namespace arbsim;

TEST(Deadline, AResponseEqualToItsDeadlineMeetsItWhateverTheRounding) {
  // SystemC 2.3.4 to_seconds(): value x resolution in fs (1000) x 1e-15; then x 1e9 to ns.
  const double response = 5113456.0 * 1000.0 * 1e-15 * 1e9;
  ASSERT_GT(response, 5113.456);                    // the double comparison's mistake
  EXPECT_TRUE(meets_deadline(response, 5113.456));
  EXPECT_TRUE(meets_deadline(5113.456, 5113.456));
}

TEST(Deadline, OnePicosecondLateIsLate) {
  EXPECT_FALSE(meets_deadline(5113.457, 5113.456));
  EXPECT_TRUE(meets_deadline(5113.455, 5113.456));
  // Below a picosecond nothing is resolved: the deadline is taken to the nearest one.
  EXPECT_TRUE(meets_deadline(5113.456, 5113.4556));
}

TEST(Deadline, AnOpenJobHasMissedOnlyOnceItsDeadlineHasPassed) {
  EXPECT_FALSE(past_deadline_at(1000.0, 5113.456, 6113.456));  // due exactly at the end
  EXPECT_TRUE(past_deadline_at(1000.0, 5113.456, 6113.457));
  EXPECT_FALSE(past_deadline_at(0.1 + 0.2, 1.0, 1.3));  // 0.30000000000000004 + 1 is 1.3 at 1 ps
}
