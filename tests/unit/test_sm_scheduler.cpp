// The SM block dispatcher (seed 004 §3.3) on hand-worked timelines: small grids run
// concurrently, a full grid runs in waves and the next kernel's blocks wait for them, a grid
// that partly fits overlaps partly (Table 3's EP(M30), grid 4, on a 14-SM Tesla C2070), the
// concurrent-kernel limit, an owner capped to a share of the SMs (seed 003 §3.2), and blocks
// sharing an SM (seed 003 §5.2).
#include <gtest/gtest.h>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>
#include "models/gpu/sm_scheduler.h"

using namespace arbsim;

namespace {

constexpr uint64_t kMs = 1000000000ull;  // ps

SmParams c2070() {
  SmParams p;
  p.sms = 14;
  p.blocks_per_sm = 1;
  p.max_concurrent_kernels = 16;
  return p;
}

// Runs the scheduler to the end; returns each kernel's completion time in ms, by id.
std::vector<double> completions(SmScheduler& s, int kernels) {
  std::vector<double> at(kernels, -1);
  while (s.next_event_ps() != std::numeric_limits<uint64_t>::max()) {
    const uint64_t t = s.next_event_ps();
    for (int id : s.advance(t)) at[id] = static_cast<double>(t) / kMs;
  }
  return at;
}

}  // namespace

// Two one-block kernels on 14 SMs run side by side: both end at 1 ms.
TEST(SmScheduler, SmallGridsRunConcurrently) {
  SmScheduler s(c2070());
  s.submit(0, {1, kMs, 0});
  s.submit(0, {1, kMs, 1});
  EXPECT_EQ(s.free_slots(), 12);
  EXPECT_EQ(completions(s, 2), (std::vector<double>{1, 1}));
}

// A 28-block grid takes two waves (1 and 2 ms); a one-block kernel submitted after it gets
// an SM only when the second wave ends: 2 -> 3 ms.
TEST(SmScheduler, AFullGridRunsInWavesAndTheNextKernelWaits) {
  SmScheduler s(c2070());
  s.submit(0, {28, kMs, 0});
  s.submit(0, {1, kMs, 0});
  EXPECT_EQ(completions(s, 2), (std::vector<double>{2, 3}));
}

// EP(M30), grid 4 (seed 004 Table 3), four processes' kernels at once on 14 SMs: the first
// three take 12 SMs, the fourth gets the last 2 and its other 2 blocks at 1 ms: partial
// overlap, the fourth ends at 2 ms.
TEST(SmScheduler, AGridThatPartlyFitsOverlapsPartly) {
  SmScheduler s(c2070());
  for (int k = 0; k < 4; ++k) s.submit(0, {4, kMs, k});
  EXPECT_EQ(completions(s, 4), (std::vector<double>{1, 1, 1, 2}));
}

// 20 one-block kernels on 32 SMs with at most 16 kernels resident: 16 end at 1 ms, 4 at 2.
TEST(SmScheduler, ConcurrentKernelLimit) {
  SmParams p = c2070();
  p.sms = 32;
  SmScheduler s(p);
  for (int k = 0; k < 20; ++k) s.submit(0, {1, kMs, k});
  std::vector<double> want(16, 1.0);
  want.insert(want.end(), 4, 2.0);
  EXPECT_EQ(completions(s, 20), want);
}

// Owner 0 capped to half the SMs (7 of 14): its 28 blocks run in 4 waves (4 ms); owner 1's
// 7-block kernel beside it uses the other half and ends at 1 ms.
TEST(SmScheduler, ShareCapsAnOwnersSms) {
  SmScheduler s(c2070());
  s.set_share(0, 0.5);
  s.submit(0, {28, kMs, 0});
  s.submit(0, {7, kMs, 1});
  EXPECT_EQ(completions(s, 2), (std::vector<double>{4, 1}));
}

// A share raised while the kernel runs applies to blocks dispatched from then on: at 20 %
// (2 of 14 SMs) 28 blocks would take 14 waves (14 ms); raised to 100 % at 0.5 ms, the
// waiting blocks take every slot as it frees: the kernel ends at 2.5 ms.
TEST(SmScheduler, AShareChangeAppliesToLaterBlocks) {
  SmScheduler s(c2070());
  s.set_share(0, 0.2);
  s.submit(0, {28, kMs, 0});
  EXPECT_TRUE(s.advance(kMs / 2).empty());
  s.set_share(0, 1.0);  // at 0.5 ms: 12 more blocks start now (14 slots, 2 held)
  EXPECT_EQ(s.free_slots(), 0);
  // 0.5 ms: 12 start (end 1.5); 1 ms: the first 2 end, 2 start (end 2); 1.5 ms: 12 end,
  // the last 12 start (end 2.5).
  EXPECT_EQ(completions(s, 1), (std::vector<double>{2.5}));
}

// Two blocks per SM: a 28-block grid fits in one wave on 14 SMs.
TEST(SmScheduler, BlocksPerSmRaiseTheSlots) {
  SmParams p = c2070();
  p.blocks_per_sm = 2;
  SmScheduler s(p);
  s.submit(0, {28, kMs, 0});
  EXPECT_EQ(completions(s, 1), (std::vector<double>{1}));
}

TEST(SmScheduler, RejectsBadArguments) {
  SmParams p;
  p.sms = 0;
  EXPECT_THROW(SmScheduler{p}, std::invalid_argument);
  SmScheduler s(c2070());
  EXPECT_THROW(s.submit(0, {0, kMs, 0}), std::invalid_argument);
  EXPECT_THROW(s.set_share(0, 0), std::invalid_argument);
  EXPECT_THROW(s.set_share(0, 1.5), std::invalid_argument);
  s.advance(10);
  EXPECT_THROW(s.submit(5, {1, kMs, 0}), std::invalid_argument);
}

// Co-resident blocks share their SM (block_slowdown b: k blocks each at 1 / (1 + b (k - 1))).
// One SM holding two, b = 1: A (1 ms alone) starts at 0, B (1 ms) at 0.5 ms. A does 0.5 ms
// alone, then both run at half speed: A's other 0.5 ms takes 1 ms (ends 1.5 ms); B has done
// 0.5 ms of work by then and finishes the rest alone (ends 2 ms).
TEST(SmScheduler, CoResidentBlocksShareTheSm) {
  SmParams p;
  p.sms = 1;
  p.blocks_per_sm = 2;
  p.block_slowdown = 1;
  SmScheduler s(p);
  s.submit(0, {1, kMs, 0});
  EXPECT_TRUE(s.advance(kMs / 2).empty());
  s.submit(kMs / 2, {1, kMs, 1});
  const std::vector<double> at = completions(s, 2);
  EXPECT_DOUBLE_EQ(at[0], 1.5);
  EXPECT_DOUBLE_EQ(at[1], 2.0);
}

// Seed 003 §5.2 (V100: 80 SMs, 16 resident 128-thread blocks an SM, b = 0.125): two 56-block
// PRNG kernels of 4.2 ms. Together at 100 %: the second's blocks fill the 24 free SMs, then
// share 32 of the first's: those blocks take 4.2 x 1.125 = 4.725 ms, ending both kernels
// (measured 4.74). The second capped at 20 % (16 SMs): 56 blocks least-loaded on 16 SMs, 4 on
// eight of them and 3 on the rest: 4.2 x 1.375 = 5.775 ms (measured 5.64), and the first
// alone on its own SMs: 4.2 ms (measured 4.2).
TEST(SmScheduler, SeedThreePartitionsOnAV100) {
  SmParams p;
  p.sms = 80;
  p.blocks_per_sm = 16;
  p.block_slowdown = 0.125;
  const uint64_t block = 42 * kMs / 10;
  SmScheduler together(p);
  together.submit(0, {56, block, 0});
  together.submit(0, {56, block, 1});
  const std::vector<double> t = completions(together, 2);
  EXPECT_NEAR(t[0], 4.725, 1e-9);
  EXPECT_NEAR(t[1], 4.725, 1e-9);
  SmScheduler capped(p);
  capped.set_share(1, 0.2);
  capped.submit(0, {56, block, 0});
  capped.submit(0, {56, block, 1});
  const std::vector<double> c = completions(capped, 2);
  EXPECT_NEAR(c[0], 4.2, 1e-9);
  EXPECT_NEAR(c[1], 5.775, 1e-9);
}

// Without a slowdown a block's time is its own, however full its SM (the default).
TEST(SmScheduler, NoSlowdownByDefault) {
  SmParams p;
  p.sms = 1;
  p.blocks_per_sm = 4;
  SmScheduler s(p);
  s.submit(0, {4, kMs, 0});
  EXPECT_DOUBLE_EQ(completions(s, 1)[0], 1.0);
}
