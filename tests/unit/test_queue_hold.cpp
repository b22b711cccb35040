// Where and since when a queue that backs up holds a flow (Scheduler::QueueHold): what the
// flow mode times a read's last wave by (models/flow/flow_fabric.cpp, last_wave_ns()).
// Timelines worked by hand.
#include <gtest/gtest.h>
#include "models/flow/flow_scheduler.h"

using namespace arbsim::flow;

namespace {

// Edge 0 (10 per ns) into a FIFO ingress of 128 TLPs of credits per class; after it a
// write goes over edge 1 (1 per ns), a read's MRds over edge 2 (10 per ns). One TLP per
// unit of rate everywhere.
std::vector<EdgeArbitration> fifo_after_edge_0() {
  std::vector<EdgeArbitration> arb(3);
  arb[0].buffered = {128, 128, EdgeArbitration::kNoLimit};
  arb[0].fifo_ingress = true;
  return arb;
}

FlowSpec flow_over(int first, int second, int cls, double window) {
  FlowSpec f;
  f.path = {Hop{first, 1.0}, Hop{second, 1.0}};
  f.path[0].starts = true;
  for (Hop& h : f.path) h.cls = cls, h.window = window;
  return f;
}

}  // namespace

// The MRds (window 64) move alone at 10 per ns. At 100 ns a write starts, held by edge 1 at
// 1 per ns: it backs up into the FIFO after edge 0 (128 TLPs), where the MRds wait behind it
// and leave 64 per 128 of its: 0.5 per ns. The queue holds them from 100 ns with 9,000 of
// their 10,000 left, and 64 of their window there; they end at 100 + 9,000 / 0.5 = 18,100 ns.
// The write, held by an egress, has no queue hold.
TEST(QueueHold, AFlowAQueueComesToHoldKeepsWhenAndWhatWasLeft) {
  Scheduler s({10, 1, 10}, fifo_after_edge_0());
  const int mrds = s.add(0, 10000, flow_over(0, 2, 1, 64));
  EXPECT_DOUBLE_EQ(s.rate(mrds), 10);
  s.advance(100);
  const int write = s.add(100, 1e9, flow_over(0, 1, 0, kUnbounded));
  EXPECT_NEAR(s.rate(mrds), 0.5, 1e-9);
  EXPECT_NEAR(s.rate(write), 1, 1e-9);
  EXPECT_NEAR(s.next_finish_ns(), 18100, 1e-6);
  EXPECT_EQ(s.advance(18100), std::vector<int>{mrds});
  ASSERT_EQ(s.finished_holds().size(), 1u);
  const Scheduler::QueueHold& h = s.finished_holds()[0];
  EXPECT_NEAR(h.window, 64, 1e-9);
  EXPECT_DOUBLE_EQ(h.since_ns, 100);
  EXPECT_NEAR(h.left, 9000, 1e-6);
}

// A flow that no queue holds has none: the MRds alone, 1,000 at 10 per ns, end at 100 ns.
TEST(QueueHold, AFlowNoQueueHoldsHasNone) {
  Scheduler s({10, 1, 10}, fifo_after_edge_0());
  const int mrds = s.add(0, 1000, flow_over(0, 2, 1, 64));
  EXPECT_EQ(s.advance(100), std::vector<int>{mrds});
  ASSERT_EQ(s.finished_holds().size(), 1u);
  EXPECT_EQ(s.finished_holds()[0].window, 0.0);
  EXPECT_LT(s.finished_holds()[0].since_ns, 0);
}
