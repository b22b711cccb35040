// A read's window draining (models/flow/flow_scheduler.cpp): where a link on its requests'
// way comes to hold a read, the data of the requests it already has out keep coming at what
// its data path gives until they have drained. Timelines worked by hand.
#include <gtest/gtest.h>
#include "models/flow/flow_scheduler.h"

using namespace arbsim::flow;

namespace {

// Edge 0 carries a read's data (10 GB/s), edge 1 its requests (10 GB/s; 0.05 B of request
// per byte of data) under strict VC priority, TCn on VCn. The read has 100 requests of 1,000
// B out at most: a 100,000 B window.
std::vector<EdgeArbitration> strict_vcs() {
  EdgeArbitration a;
  a.vc.kind = ShareKind::Strict;
  for (int t = 0; t < 8; ++t) a.tc_to_vc[static_cast<std::size_t>(t)] = static_cast<uint8_t>(t);
  return {a, a};
}

FlowSpec read_spec() {
  FlowSpec f;
  f.path.push_back(Hop{0, 1.0});
  f.path.push_back(Hop{1, 0.05});
  f.path[0].starts = f.path[1].starts = true;
  f.path[1].cls = 1;
  f.path[1].window = 100;
  f.path[1].tlp = 1000;
  f.tc = 0;
  return f;
}

FlowSpec write_spec(int tc) {
  FlowSpec f;
  f.path.push_back(Hop{1, 1.0});
  f.path[0].starts = true;
  f.tc = tc;
  return f;
}

}  // namespace

// The read (1,000,000 B) moves alone at 10 and has its window out. At 10 us a write of
// 500,000 B in TC1 takes the request link whole (strict, no guard): the read's requests stop,
// but its 100,000 B out come at 10 until 20 us; then it waits for the write's end at 60 us
// and moves its last 800,000 B at 10: it ends at 140 us (150 us if held whole at once).
TEST(WindowDrain, AReadsWindowOutComesAtItsDataRateWhileItsRequestsAreHeld) {
  Scheduler s({10, 10}, strict_vcs());
  const int r = s.add(0, 1e6, read_spec());
  s.advance(10000);
  EXPECT_DOUBLE_EQ(s.sent(r), 100000);
  const int w = s.add(10000, 5e5, write_spec(1));
  EXPECT_DOUBLE_EQ(s.rate(w), 10);
  EXPECT_DOUBLE_EQ(s.rate(r), 10);  // draining
  EXPECT_DOUBLE_EQ(s.next_finish_ns(), 20000);
  s.advance(20000);
  EXPECT_DOUBLE_EQ(s.rate(r), 0);
  EXPECT_NEAR(s.sent(r), 200000, 1e-6);
  EXPECT_DOUBLE_EQ(s.next_finish_ns(), 60000);
  EXPECT_EQ(s.advance(60000), std::vector<int>{w});
  EXPECT_DOUBLE_EQ(s.rate(r), 10);
  EXPECT_NEAR(s.next_finish_ns(), 140000, 1e-6);
}

// A read whose requests are held from its start has nothing out: it waits (the write above
// it holds the request link from 0 to 50 us), then moves at 10: ends at 150 us.
TEST(WindowDrain, AReadHeldFromItsStartHasNothingOut) {
  Scheduler s({10, 10}, strict_vcs());
  const int w = s.add(0, 5e5, write_spec(1));
  const int r = s.add(0, 1e6, read_spec());
  EXPECT_DOUBLE_EQ(s.rate(r), 0);
  EXPECT_DOUBLE_EQ(s.next_finish_ns(), 50000);
  EXPECT_EQ(s.advance(50000), std::vector<int>{w});
  EXPECT_NEAR(s.next_finish_ns(), 150000, 1e-6);
}

// Its requests out at its start (add()'s requests_out: behind an earlier read's) come at once
// though its requests are held: 60,000 B at 10, then nothing until the write's end at 50 us:
// the last 940,000 B end at 144 us.
TEST(WindowDrain, RequestsOutAtItsStartComeThoughItsRequestsAreHeld) {
  Scheduler s({10, 10}, strict_vcs());
  const int w = s.add(0, 5e5, write_spec(1));
  const int r = s.add(0, 1e6, read_spec(), {}, {}, 60000, 0);
  EXPECT_DOUBLE_EQ(s.rate(r), 10);
  EXPECT_DOUBLE_EQ(s.next_finish_ns(), 6000);
  s.advance(6000);
  EXPECT_DOUBLE_EQ(s.rate(r), 0);
  EXPECT_EQ(s.advance(50000), std::vector<int>{w});
  EXPECT_NEAR(s.next_finish_ns(), 144000, 1e-6);
}

// In a VC above the write's, the read's requests pass: nothing drains. The two share only
// the request link, where the read's requests go first and take 0.05 x 10 of it: the read
// moves at 10, the write at the 9.5 left.
TEST(WindowDrain, AReadWhoseRequestsPassDoesNotDrain) {
  Scheduler s({10, 10}, strict_vcs());
  FlowSpec read = read_spec();
  read.tc = 2;
  const int r = s.add(0, 1e6, read);
  const int w = s.add(0, 5e5, write_spec(1));
  EXPECT_DOUBLE_EQ(s.rate(r), 10);
  EXPECT_NEAR(s.rate(w), 9.5, 1e-9);
}
