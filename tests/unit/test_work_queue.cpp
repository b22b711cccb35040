// The stream ordering rules of one GPU context (seed 004 §4.2) on hand-worked timelines: with
// fixed phase times (one copy per direction at a time, kernels overlapping completely, the
// paper's assumptions) the single hardware queue gives Eq. 2, 3, 4 and 7 exactly, computed
// independently by models/gpu/sharing_model.h; per-stream queues free them.
#include <gtest/gtest.h>
#include <algorithm>
#include <map>
#include <stdexcept>
#include <vector>
#include "models/gpu/sharing_model.h"
#include "models/gpu/work_queue.h"

using namespace arbsim;

namespace {

struct Times {
  double in, comp, out;
};

// Issues N streams of (copy in, kernel, copy out) in PS-1 order (all copies in, all kernels,
// all copies out) or PS-2 order (stream by stream).
void issue(WorkQueue& q, int n, bool ps1) {
  if (ps1) {
    for (const OpKind k : {OpKind::H2D, OpKind::Kernel, OpKind::D2H})
      for (int s = 0; s < n; ++s) q.issue(k, s);
  } else {
    for (int s = 0; s < n; ++s)
      for (const OpKind k : {OpKind::H2D, OpKind::Kernel, OpKind::D2H}) q.issue(k, s);
  }
}

// Runs the queue with one engine per copy direction and unlimited kernel concurrency;
// returns each operation's start time and the end of the last.
struct Timeline {
  std::vector<double> start;
  double end = 0;
};
Timeline run(WorkQueue& q, int ops, const Times& t) {
  Timeline r;
  r.start.assign(ops, -1);
  std::multimap<double, int> ends;
  bool busy[3] = {false, false, false};
  double now = 0;
  for (;;) {
    for (const int id : q.ready()) {
      const OpKind k = q.kind(id);
      if (k != OpKind::Kernel && busy[static_cast<int>(k)]) continue;
      if (k != OpKind::Kernel) busy[static_cast<int>(k)] = true;
      q.started(id);
      r.start[id] = now;
      ends.emplace(now + (k == OpKind::H2D ? t.in : k == OpKind::Kernel ? t.comp : t.out), id);
    }
    if (ends.empty()) break;
    now = ends.begin()->first;
    const int id = ends.begin()->second;
    ends.erase(ends.begin());
    if (q.kind(id) != OpKind::Kernel) busy[static_cast<int>(q.kind(id))] = false;
    q.completed(id);
  }
  EXPECT_TRUE(q.all_completed());
  r.end = now;
  return r;
}

double total(int n, bool ps1, const Times& t, Queues qs = Queues::Single) {
  WorkQueue q(qs);
  issue(q, n, ps1);
  return run(q, 3 * n, t).end;
}

gpu_sharing::Phases phases(const Times& t) {
  gpu_sharing::Phases p;
  p.data_in = t.in;
  p.comp = t.comp;
  p.data_out = t.out;
  return p;
}

const Times kComputeIntensive{1, 20, 1.5};
const Times kIoIntensive{10, 2, 6};
const Times kIoOutHeavy{6, 2, 10};

TEST(WorkQueue, ComputeIntensivePs1IsEquation2) {
  for (int n = 1; n <= 8; ++n)
    EXPECT_DOUBLE_EQ(total(n, true, kComputeIntensive), gpu_sharing::total_ps1(phases(kComputeIntensive), n)) << n;
}

TEST(WorkQueue, ComputeIntensivePs2IsEquation3) {
  for (int n = 1; n <= 8; ++n)
    EXPECT_DOUBLE_EQ(total(n, false, kComputeIntensive), gpu_sharing::total_ci_ps2(phases(kComputeIntensive), n))
        << n;
}

TEST(WorkQueue, IoIntensivePs1IsEquation4) {
  for (int n = 1; n <= 8; ++n)
    EXPECT_DOUBLE_EQ(total(n, true, kIoIntensive), gpu_sharing::total_ps1(phases(kIoIntensive), n)) << n;
}

TEST(WorkQueue, IoIntensivePs2IsEquation7BothWays) {
  for (int n = 1; n <= 8; ++n) {
    EXPECT_DOUBLE_EQ(total(n, false, kIoIntensive), gpu_sharing::total_ioi_ps2(phases(kIoIntensive), n)) << n;
    EXPECT_DOUBLE_EQ(total(n, false, kIoOutHeavy), gpu_sharing::total_ioi_ps2(phases(kIoOutHeavy), n)) << n;
  }
}

// PS-2, three compute-intensive streams, hand-worked: copies in back to back at 0, 1, 2;
// kernel 1 at 1 (its copy done), kernel 2 only at 21, when copy out 1's check on kernel 1
// completes (rule 2), kernel 3 at 41; copy out i right after kernel i.
TEST(WorkQueue, Ps2CopyOutBlocksTheNextKernelLaunch) {
  WorkQueue q(Queues::Single);
  issue(q, 3, false);
  const Timeline r = run(q, 9, kComputeIntensive);
  const std::vector<double> want = {0, 1, 21, 1, 21, 41, 2, 41, 61};
  EXPECT_EQ(r.start, want);
  EXPECT_DOUBLE_EQ(r.end, 62.5);
}

// PS-1: copy out 1 waits for every kernel issued before it (the last ends at 3 + 20), not
// only its own (which ends at 21).
TEST(WorkQueue, Ps1CopyOutWaitsForEveryEarlierKernel) {
  WorkQueue q(Queues::Single);
  issue(q, 3, true);
  const Timeline r = run(q, 9, kComputeIntensive);
  EXPECT_DOUBLE_EQ(r.start[3], 1);  // kernels at 1, 2, 3: they overlap
  EXPECT_DOUBLE_EQ(r.start[5], 3);
  EXPECT_DOUBLE_EQ(r.start[6], 23);
  EXPECT_DOUBLE_EQ(r.start[8], 26);
}

// Per-stream queues (Hyper-Q class): only each stream's order holds, so PS-1 and PS-2 give
// the same time: copies in back to back, kernel i at i x T_in, copy out i after its own
// kernel; copies out (1.5) longer than the spacing of the kernels' ends (1) queue on their
// engine: T_in + T_comp + N x T_out.
TEST(WorkQueue, PerStreamQueuesKeepOnlyStreamOrder) {
  for (int n = 1; n <= 4; ++n) {
    const double a = total(n, true, kComputeIntensive, Queues::PerStream);
    EXPECT_DOUBLE_EQ(a, total(n, false, kComputeIntensive, Queues::PerStream));
    EXPECT_DOUBLE_EQ(a, 1.0 + 20 + n * 1.5) << n;
  }
}

TEST(WorkQueue, StartingOutOfOrderIsRefused) {
  WorkQueue q(Queues::Single);
  issue(q, 2, true);
  EXPECT_THROW(q.started(2), std::logic_error);  // kernel 1 before its copy in completed
  EXPECT_THROW(q.completed(0), std::logic_error);
  EXPECT_THROW(q.issue(OpKind::H2D, -1), std::invalid_argument);
}

}  // namespace
