// Seed 004's execution model (Eq. 1-11) on hand-worked numbers, and the relations the paper
// draws from it: PS-1 beats PS-2 for compute-intensive kernels exactly when T_comp exceeds
// T_in + T_out; PS-2 beats PS-1 for I/O-intensive ones; Eq. 7 is Eq. 5 or 6; the speedups
// tend to Eq. 10 and 11.
#include <gtest/gtest.h>
#include <stdexcept>
#include "models/gpu/sharing_model.h"

using namespace arbsim::gpu_sharing;

namespace {

// A compute-intensive profile: 1 ms in, 10 ms kernel, 1 ms out, 50 ms init, 2 ms switch.
Phases ci() { return {1, 10, 1, 50, 2}; }
// An I/O-intensive one: 8 ms in, 1 ms kernel, 4 ms out.
Phases ioi() { return {8, 1, 4, 50, 2}; }

}  // namespace

TEST(SharingModel, HandWorkedTotals) {
  // Eq. 1, N = 4: 4 x (50 + 1 + 10 + 1) + 3 x 2 = 248 + 6 = 254.
  EXPECT_DOUBLE_EQ(total_without_sharing(ci(), 4), 254);
  // Eq. 2: 4 x 2 + 10 = 18; Eq. 3: 1 + 40 + 1 = 42.
  EXPECT_DOUBLE_EQ(total_ps1(ci(), 4), 18);
  EXPECT_DOUBLE_EQ(total_ci_ps2(ci(), 4), 42);
  // Eq. 7, N = 4: 4 x 8 + 1 + 4 = 37 (Eq. 5, T_out < T_in); Eq. 4: 4 x 12 + 1 = 49.
  EXPECT_DOUBLE_EQ(total_ioi_ps2(ioi(), 4), 37);
  EXPECT_DOUBLE_EQ(total_ps1(ioi(), 4), 49);
  // Eq. 8: 254 / 18.
  EXPECT_DOUBLE_EQ(speedup_ci(ci(), 4), 254.0 / 18);
}

TEST(SharingModel, Eq7IsEq5OrEq6) {
  const Phases out_longer{2, 1, 6, 0, 0};  // Eq. 6: T_in + T_comp + N T_out = 2 + 1 + 18
  EXPECT_DOUBLE_EQ(total_ioi_ps2(out_longer, 3), 21);
  const Phases in_longer{6, 1, 2, 0, 0};   // Eq. 5: N T_in + T_comp + T_out = 18 + 1 + 2
  EXPECT_DOUBLE_EQ(total_ioi_ps2(in_longer, 3), 21);
}

// Eq. 2 < Eq. 3 iff (N - 1)(T_in + T_out) < (N - 1) T_comp: for N > 1, iff T_comp > T_in + T_out.
TEST(SharingModel, Ps1BeatsPs2ForComputeIntensiveKernels) {
  for (int n = 2; n <= 8; ++n) {
    EXPECT_LT(total_ps1(ci(), n), total_ci_ps2(ci(), n));
    EXPECT_LT(total_ioi_ps2(ioi(), n), total_ps1(ioi(), n));
  }
  EXPECT_DOUBLE_EQ(total_ps1(ci(), 1), total_ci_ps2(ci(), 1));  // one process: the same
}

// Eq. 10: (50 + 1 + 10 + 1 + 2) / 2 = 32; Eq. 11: (50 + 8 + 1 + 4 + 2) / 8 = 8.125; the
// speedups approach them from below as N grows.
TEST(SharingModel, SpeedupsTendToTheirLimits) {
  EXPECT_DOUBLE_EQ(max_speedup_ci(ci()), 32);
  EXPECT_DOUBLE_EQ(max_speedup_ioi(ioi()), 8.125);
  EXPECT_LT(speedup_ci(ci(), 8), speedup_ci(ci(), 1000));
  EXPECT_NEAR(speedup_ci(ci(), 1000000), 32, 1e-3);
  EXPECT_NEAR(speedup_ioi(ioi(), 1000000), 8.125, 1e-3);
}

TEST(SharingModel, RejectsNoProcesses) {
  EXPECT_THROW(total_ps1(ci(), 0), std::invalid_argument);
}
