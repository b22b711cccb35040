// The batch method's timelines (seed 002) on the worked example of §2.4: four images of
// 32, 128, 128 and 32 MB go from host memory to GPUs 0-3 over a shared 8 GB/s CPU->IOH
// link and a 6 GB/s link per GPU; each GPU scans at 10 GB/s (kernels 3.2, 12.8, 12.8,
// 3.2 ms). The paper gives 76.8 ms for bandwidth allocation and 44.8 ms for the batch
// method; time division, best order, moves 320 MB at 6 GB/s then runs the last 3.2 ms
// kernel: 56.53 ms.
#include <gtest/gtest.h>
#include <algorithm>
#include "models/batch/batch_predictor.h"

using namespace arbsim;

namespace {

// Units: bytes and ns, so GB/s = bytes/ns. Edge 0: CPU->IOH; edge 1+i: IOH->GPUi.
const std::vector<double> kCapacity = {8, 6, 6, 6, 6};

// Max-min on this star, by hand: n transfers share edge 0, each also capped by its own 6.
std::vector<double> star_rates(const std::vector<const BatchTransfer*>& moving) {
  const double share = std::min(6.0, 8.0 / static_cast<double>(moving.size()));
  return std::vector<double>(moving.size(), share);
}

// A stream of `bytes` to GPU `gpu` (edges 0 and 1+gpu) on engine `engine`, then a kernel.
BatchStream to_gpu(double bytes, double kernel_ns, int gpu, int engine, double latency_ns = 0) {
  BatchStream s;
  if (bytes > 0) s.transfers.push_back({bytes, {0, 1 + gpu}, {}, latency_ns});
  s.kernel_ns = kernel_ns;
  s.engines = {engine};
  return s;
}

std::vector<BatchStream> example() {
  std::vector<BatchStream> s;
  const double mb[] = {32e6, 128e6, 128e6, 32e6};
  for (int i = 0; i < 4; ++i) s.push_back(to_gpu(mb[i], mb[i] / 10.0, i, i));
  return s;
}

}  // namespace

TEST(BatchPredictor, BandwidthAllocationIs76_8ms) {
  const BatchTimeline t = predict_bandwidth_allocation(example(), kCapacity);
  EXPECT_NEAR(t.makespan_ns, 76.8e6, 1.0);
}

TEST(BatchPredictor, BatchMethodIs44_8ms) {
  const BatchTimeline t = predict_batch(example(), star_rates);
  EXPECT_NEAR(t.makespan_ns, 44.8e6, 1.0);
  // The 128 MB streams transfer first, at 4 GB/s each, for 32 ms ...
  EXPECT_NEAR(t.streams[1].copy_start, 0.0, 1.0);
  EXPECT_NEAR(t.streams[1].copy_end, 32e6, 1.0);
  // ... the 32 MB ones are delayed to 33.6-41.6 ms, overlapping the large kernels.
  EXPECT_NEAR(t.streams[0].copy_start, 33.6e6, 1.0);
  EXPECT_NEAR(t.streams[0].copy_end, 41.6e6, 1.0);
  for (const StreamTimes& s : t.streams) EXPECT_NEAR(s.kernel_end, 44.8e6, 1.0);  // aligned completions
}

TEST(BatchPredictor, TimeDivisionRunsOneTransferAtATime) {
  const BatchTimeline t = predict_time_division(example(), star_rates);
  EXPECT_NEAR(t.makespan_ns, 320e6 / 6.0 + 3.2e6, 1.0);
  // Longest kernel first: a 128 MB image starts at 0 and takes 21.33 ms.
  EXPECT_NEAR(t.streams[1].copy_end, 128e6 / 6.0, 1.0);
}

// A kernel-only stream holds no bandwidth and takes no turn under time division: it starts
// at once (as the run-time starts it), whatever its kernel's place in the longest-first
// order. Here its 5 ms kernel comes after the 60 MB copy's stream (a 30 ms kernel) in that
// order: it was predicted to start when that copy ends (10 ms), where the run starts it at 0.
TEST(BatchPredictor, TimeDivisionStartsAKernelOnlyStreamAtOnce) {
  std::vector<BatchStream> s = {to_gpu(60e6, 30e6, 0, 0), to_gpu(0, 5e6, 1, 1)};
  const BatchTimeline t = predict_time_division(s, star_rates);
  EXPECT_NEAR(t.streams[1].kernel_start, 0.0, 1.0);
  EXPECT_NEAR(t.streams[1].kernel_end, 5e6, 1.0);
  EXPECT_NEAR(t.streams[0].copy_end, 10e6, 1.0);  // 60 MB at 6 GB/s
  EXPECT_NEAR(t.makespan_ns, 40e6, 1.0);
}

TEST(BatchPredictor, StreamsWithoutTransferOrKernel) {
  std::vector<BatchStream> s = {to_gpu(0, 5e6, 0, 0), to_gpu(60e6, 0, 0, 1)};
  const BatchTimeline t = predict_batch(s, star_rates);
  EXPECT_NEAR(t.makespan_ns, 10e6, 1.0);  // 60 MB at 6 GB/s; the 5 ms kernel runs at the end
  EXPECT_NEAR(t.streams[0].kernel_start, 5e6, 1.0);
}

TEST(BatchPredictor, StreamsOnOneEngineAreMerged) {
  std::vector<BatchStream> s = {to_gpu(10e6, 1e6, 0, 7), to_gpu(20e6, 2e6, 0, 7), to_gpu(5e6, 0, 1, 3)};
  std::vector<int> into, part;
  const std::vector<BatchStream> m = merge_shared_engines(s, &into, &part);
  ASSERT_EQ(m.size(), 2u);
  ASSERT_EQ(m[0].transfers.size(), 2u);  // joined, in issue order
  EXPECT_DOUBLE_EQ(m[0].transfers[0].bytes, 10e6);
  EXPECT_DOUBLE_EQ(m[0].transfers[1].bytes, 20e6);
  EXPECT_DOUBLE_EQ(m[0].kernel_ns, 3e6);
  EXPECT_EQ(into, (std::vector<int>{0, 0, 1}));
  EXPECT_EQ(part, (std::vector<int>{0, 1, 0}));
}

TEST(BatchPredictor, FixedLatencyDelaysEachDelivery) {
  // One 60 MB stream at 6 GB/s with a 1 ms delivery latency and a 5 ms kernel: 10 + 1 + 5.
  std::vector<BatchStream> s = {to_gpu(60e6, 5e6, 0, 0, 1e6)};
  EXPECT_NEAR(predict_batch(s, star_rates).makespan_ns, 16e6, 1.0);
  EXPECT_NEAR(predict_time_division(s, star_rates).makespan_ns, 16e6, 1.0);
  EXPECT_NEAR(predict_bandwidth_allocation(s, kCapacity).makespan_ns, 16e6, 1.0);
}

TEST(BatchPredictor, MergedStreamsCopyOneAfterAnother) {
  // A (12 MB) and B (6 MB) share engine 7, C (30 MB) has its own; no kernels. Reversed
  // timeline: B then A (the group, 18 MB) and C share edge 0 at 4 GB/s each until the group
  // is done at 4.5 ms (B's 6 MB by 1.5 ms); C's last 12 MB go alone at 6 GB/s: 6.5 ms.
  std::vector<BatchStream> s = {to_gpu(12e6, 0, 0, 7), to_gpu(6e6, 0, 0, 7), to_gpu(30e6, 0, 1, 3)};
  std::vector<int> into, part;
  const std::vector<BatchStream> m = merge_shared_engines(s, &into, &part);
  const BatchTimeline t = predict_batch(m, star_rates);
  EXPECT_NEAR(t.makespan_ns, 6.5e6, 1.0);
  const StreamTimes& g = t.streams[into[0]];
  EXPECT_NEAR(g.part_start[part[0]], 2.0e6, 1.0);  // forward: A at 2.0-5.0 ms, then B at 5.0-6.5 ms
  EXPECT_NEAR(g.part_end[part[0]], 5.0e6, 1.0);
  EXPECT_NEAR(g.part_start[part[1]], 5.0e6, 1.0);
  EXPECT_NEAR(g.part_end[part[1]], 6.5e6, 1.0);
  EXPECT_NEAR(t.streams[into[2]].copy_start, 0.0, 1.0);
}

TEST(BatchPredictor, EnginesMergeTransitively) {
  // A staged copy holds two engines: {1,2} and {2,3} and {3} form one group; {4} another.
  std::vector<BatchStream> s(4);
  s[0].engines = {1, 2};
  s[1].engines = {2, 3};
  s[2].engines = {3};
  s[3].engines = {4};
  std::vector<int> into;
  EXPECT_EQ(merge_shared_engines(s, &into).size(), 2u);
  EXPECT_EQ(into, (std::vector<int>{0, 0, 0, 1}));
}

TEST(BatchPredictor, BandwidthAllocationReservesForTheApplicationsTransfers) {
  // The §2.4 batch in an application that also makes four other transfers over edge 0:
  // eight reservations share the 8 GB/s, 1 GB/s each: 128 MB / 1 GB/s + 12.8 ms = 140.8 ms.
  std::vector<BatchTransfer> app;
  for (const BatchStream& s : example()) app.push_back(s.transfers.front());
  for (int i = 0; i < 4; ++i) app.push_back({1e6, {0}, {}, 0});
  const BatchTimeline t = predict_bandwidth_allocation(example(), kCapacity, app);
  EXPECT_NEAR(t.makespan_ns, 140.8e6, 1.0);
  EXPECT_NEAR(t.streams[1].part_pace.front(), 1.0, 1e-12);
}

TEST(BatchPredictor, MergedKernelsRunInTurnPerGpuAndInParallelAcrossGpus) {
  // Three streams share engine 5; kernels 3 and 2 ms on GPU 0, 4 ms on GPU 1: after the
  // joined transfers, GPU 0 needs 5 ms and GPU 1 4 ms, so the group's kernels take 5 ms.
  std::vector<BatchStream> s = {to_gpu(6e6, 3e6, 0, 5), to_gpu(6e6, 2e6, 0, 5), to_gpu(6e6, 4e6, 1, 5)};
  s[0].compute = s[1].compute = 0;
  s[2].compute = 1;
  std::vector<int> into;
  const std::vector<BatchStream> m = merge_shared_engines(s, &into);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_DOUBLE_EQ(m[0].kernel_ns, 5e6);
  // 18 MB at 6 GB/s (3 ms), then 5 ms of kernels.
  EXPECT_NEAR(predict_batch(m, star_rates).makespan_ns, 8e6, 1.0);
}

// Far from t = 0 a transfer's last bytes can take less than the clock's resolution: at
// t = 3e14 ns one ulp is 0.0625 ns, and 0.001 B at 6 B/ns take 1.7e-4 ns, so t + left/r
// == t. The loop must still end the transfer (it used to spin forever: F15 of issue 9).
TEST(BatchPredictor, TransferEndingBelowTheClockResolutionStillEnds) {
  std::vector<BatchStream> s = {to_gpu(0.001, 0, 0, 0, 3e14), to_gpu(32e6, 0, 1, 1, 0)};
  const BatchTimeline t = predict_batch(s, star_rates);
  ASSERT_EQ(t.streams.size(), 2u);
  EXPECT_NEAR(t.makespan_ns, 3e14, 1.0);  // the latency dominates; the bytes add < 1 ns
}
