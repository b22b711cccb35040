// Copy-then-execute on one GPU (seed 000 §1): each iteration copies S bytes in, then runs a
// kernel of K ns; the next copy starts when the kernel ends. With the H2D time T(S) of
// tests/sim/test_h2d_copy.cpp (800 ns + wire bytes / 14.21 GB/s), N iterations take
// N x (T(S) + K), the GPU computes N x K and copies N x T(S), and its four state times add
// up to the simulated time.
#include <cmath>
#include <gtest/gtest.h>
#include "tests/config/config_text.h"
#include "tests/sim/sim_helpers.h"

using namespace arbsim;
using namespace arbsim::test;

TEST(CopyExec, IterationTimelineMatchesHandWorkedSum) {
  const double s = 262144, k = 50000, n = 10;
  const std::string yaml = two_gpu_platform() +
                           "apps:\n  - {name: c, type: copy_exec, gpu: gpu0, h2d_bytes: 256KiB, kernel_ns: 50000,"
                           " iterations: 10}\n";
  SimOutcome o = run_yaml(yaml);
  const double t_copy = 800.0 + (s + std::ceil(s / 256.0) * 20.0) / 14.21;
  const double total = n * (t_copy + k);
  EXPECT_NEAR(o.results["makespan_ns"].get<double>(), total, 0.01 * total);
  EXPECT_EQ(app(o, "c")["iterations"].get<int>(), 10);
  const auto& g = o.results["gpus"][0];
  EXPECT_NEAR(g["compute_ns"].get<double>(), n * k, 1e-3);
  EXPECT_NEAR(g["copy_ns"].get<double>(), n * t_copy, 0.01 * n * t_copy);
  const double sum = g["compute_ns"].get<double>() + g["copy_ns"].get<double>() +
                     g["stalled_ns"].get<double>() + g["idle_ns"].get<double>();
  EXPECT_NEAR(sum, o.results["sim_time_ns"].get<double>(), 1e-2);
  // gpu1 did nothing: idle all the time.
  EXPECT_NEAR(o.results["gpus"][1]["idle_ns"].get<double>(), o.results["sim_time_ns"].get<double>(), 1e-2);
}

// Issue 9 item 6: a queued copy used to win over a moving one, so a GPU streaming copies
// back to back was reported "stalled" nearly all the time. Two back-to-back 1 MiB H2D copies
// on one engine: the second waits behind the first, which is moving the whole time, so the
// GPU is in `copy` from the first copy's start to the second's end (T(S) each, hand-worked
// in test_h2d_copy.cpp, the second starting when the first has issued its last request);
// nothing is `stalled` (no copy waits while none moves), and the states add up.
TEST(CopyExec, QueuedCopyBehindAMovingOneIsCopyNotStalled) {
  const std::string yaml = two_gpu_platform() +
                           "apps:\n  - {name: s, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 1MiB},"
                           " count: 2, depth: 2}\n";
  SimOutcome o = run_yaml(yaml);
  const auto& g = o.results["gpus"][0];
  const double one_copy = 800.0 + (1048576.0 + 4096 * 20.0) / 14.21;  // test_h2d_copy.cpp
  const double sim = o.results["sim_time_ns"].get<double>();
  EXPECT_EQ(g["stalled_ns"].get<double>(), 0.0);
  EXPECT_NEAR(g["copy_ns"].get<double>(), sim, 1e-3);
  EXPECT_NEAR(g["copy_any_ns"].get<double>(), sim, 1e-3);
  EXPECT_GT(sim, 1.9 * one_copy);  // two copies, nearly back to back on the link
  EXPECT_LT(sim, 2.1 * one_copy);
  EXPECT_NEAR(g["idle_ns"].get<double>(), 0.0, 1e-3);
}

// copy_any_ns counts copies under a kernel too: copy-then-execute with a D2H copy after the
// kernel never overlaps, so copy_any = copy; the states still partition the run.
TEST(CopyExec, CopyAnyCountsCopiesWithOrWithoutKernel) {
  const std::string yaml = two_gpu_platform() +
                           "apps:\n  - {name: c, type: copy_exec, gpu: gpu0, h2d_bytes: 64KiB, kernel_ns: 10000,"
                           " d2h_bytes: 64KiB, iterations: 3}\n";
  SimOutcome o = run_yaml(yaml);
  const auto& g = o.results["gpus"][0];
  EXPECT_NEAR(g["copy_any_ns"].get<double>(), g["copy_ns"].get<double>(), 1e-3);
  EXPECT_NEAR(g["compute_ns"].get<double>(), 30000.0, 1e-3);
  const double sum = g["compute_ns"].get<double>() + g["copy_ns"].get<double>() +
                     g["stalled_ns"].get<double>() + g["idle_ns"].get<double>();
  EXPECT_NEAR(sum, o.results["sim_time_ns"].get<double>(), 1e-2);
}

// A kernel given as a duration takes that long alone, whatever its blocks do to each other:
// a whole-GPU grid puts blocks_per_sm blocks on every SM, each at 1 / (1 + s (k - 1)) of its
// speed (block_slowdown s), so its block time is kernel_ns / (1 + s (k - 1)). It took
// 1.5 ms for 1 ms with 2 blocks an SM at s = 0.5, and 2.875 ms on seed 003's V100 (16
// blocks an SM, s = 0.125). One simulation per test (SystemC elaborates once a process).
double compute_ns_of(const std::string& gpu, const std::string& app) {
  const std::string yaml = replace(two_gpu_platform(), "{name: gpu0, type: gpu}", "{name: gpu0, type: gpu, " + gpu + "}") +
                           "apps:\n  - " + app + "\n";
  return run_yaml(yaml).results["gpus"][0]["compute_ns"].get<double>();
}

const char* kOneMsKernel = "{name: c, type: copy_exec, gpu: gpu0, h2d_bytes: 4KiB, kernel_ns: 1ms, iterations: 1}";

TEST(CopyExec, AWholeGpuKernelTakesItsDurationWithItsBlocksSlowingEachOther) {
  EXPECT_NEAR(compute_ns_of("sms: 4, blocks_per_sm: 2, block_slowdown: 0.5", kOneMsKernel), 1e6, 1.0);
}

TEST(CopyExec, AWholeV100KernelTakesItsDuration) {
  EXPECT_NEAR(compute_ns_of("sms: 80, blocks_per_sm: 16, block_slowdown: 0.125", kOneMsKernel), 1e6, 1.0);
}

// A grid of 3 x 8 + 4 = 28 blocks on 4 SMs of 2 (a periodic app's `blocks`): three full
// waves (k = 2, 1.5 block times each) and one of 4 blocks (k = 1, one): 5.5 block times in
// the kernel's 1 ms.
TEST(CopyExec, AKernelInWavesTakesItsDuration) {
  EXPECT_NEAR(compute_ns_of("sms: 4, blocks_per_sm: 2, block_slowdown: 0.5",
                            "{name: p, type: periodic, gpu: gpu0, period_ns: 10ms, count: 1, kernel_ns: 1ms, blocks: 28}"),
              1e6, 1.0);
}

// kernel_ns 0 is no kernel (docs/config.md): a copy-only app's copy-out follows its copy-in,
// not another app's kernel. gpu0 runs a's 200 us kernel from ~1 us; b copies 1 MiB in from
// 50 us (T(S) of test_h2d_copy.cpp: 800 ns + wire bytes / 14.21 GB/s, ~80 us), then 1 MiB
// out (~81 us at the D2H rate): done by ~211 us. A kernel of no time queued behind a's held
// the copy-out until a's kernel ended at ~201 us, and b ended at ~282 us. The GPU ran one
// kernel.
TEST(CopyExec, NoKernelMeansNoKernelToWaitFor) {
  const std::string yaml = two_gpu_platform() +
                           "apps:\n"
                           "  - {name: a, type: copy_exec, gpu: gpu0, h2d_bytes: 4KiB, kernel_ns: 200us, iterations: 1}\n"
                           "  - {name: b, type: copy_exec, gpu: gpu0, h2d_bytes: 1MiB, d2h_bytes: 1MiB, iterations: 1,"
                           " start_ns: 50us}\n";
  SimOutcome o = run_yaml(yaml);
  const double copy_in = 800.0 + (1048576.0 + 4096 * 20.0) / 14.21;
  const double a_kernel_end = app(o, "a")["last_done_ns"].get<double>();
  EXPECT_GT(a_kernel_end, 200000);
  // b's copy-out started when its copy-in ended, before a's kernel ended:
  EXPECT_LT(app(o, "b")["last_done_ns"].get<double>(), 50000 + copy_in + 1.1 * copy_in);
  EXPECT_EQ(o.results["gpus"][0]["kernels"].get<int>(), 1);
}
