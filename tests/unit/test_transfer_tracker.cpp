// TransferTracker on hand-made delivery sequences: the checks the delivery test relies on
// must be able to fail.
#include <gtest/gtest.h>
#include "models/common/transfer_tracker.h"

using arbsim::TransferTracker;

TEST(TransferTracker, CompletesOnLastByteExactlyOnce) {
  TransferTracker t;
  int done = 0;
  const uint64_t id = t.open(1000, [&] { ++done; });
  t.deliver(id, 0, 256, true);
  t.deliver(id, 256, 256, true);
  EXPECT_EQ(done, 0);
  t.deliver(id, 512, 488, true);
  EXPECT_EQ(done, 1);
  EXPECT_EQ(t.delivered_bytes(), 1000u);
  EXPECT_EQ(t.order_violations(), 0u);
  EXPECT_EQ(t.duplicate_bytes(), 0u);
  EXPECT_EQ(t.open_transfers(), 0u);
}

TEST(TransferTracker, CountsOutOfOrderPostedWrites) {
  TransferTracker t;
  const uint64_t id = t.open(768, nullptr);
  t.deliver(id, 256, 256, true);  // arrives before offset 0
  t.deliver(id, 0, 256, true);
  t.deliver(id, 512, 256, true);
  // Expected offset 0, got 256 (1); then expected 512, got 0 (2); then expected 256,
  // got 512 (3): every arrival that is not the next in address order counts.
  EXPECT_EQ(t.order_violations(), 3u);
}

TEST(TransferTracker, CompletionsMayArriveInAnyOrder) {
  TransferTracker t;
  const uint64_t id = t.open(512, nullptr);
  t.deliver(id, 256, 256, false);
  t.deliver(id, 0, 256, false);
  EXPECT_EQ(t.order_violations(), 0u);
  EXPECT_EQ(t.completed_transfers(), 1u);
}

TEST(TransferTracker, CountsDuplicates) {
  TransferTracker t;
  const uint64_t id = t.open(256, nullptr);
  t.deliver(id, 0, 256, true);
  t.deliver(id, 0, 256, true);  // after completion
  EXPECT_EQ(t.duplicate_bytes(), 256u);
}
