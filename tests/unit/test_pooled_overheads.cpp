// pool_overheads() (models/flow/flow_network.h): copies of at least kPooledTlps TLPs get
// weights that do not depend on their size, and links are never charged less than the
// packet model sends. Every expectation is worked by hand from the TLP counts.
#include <gtest/gtest.h>
#include "models/flow/flow_network.h"
#include "models/flow/rate_memo.h"

using namespace arbsim;
using namespace arbsim::flow;

namespace {

// requester -> switch -> memory port: two PCIe links (MWr 24 B, CplD 20 B, MRd 24 B of
// overhead) and a raw link of none; edges back the other way in the same order.
Network host_path() {
  Network n;
  const int gpu = n.add_node({}), sw = n.add_node({100, false, 0}), rc = n.add_node({}), mem = n.add_node({0, false, 50});
  Edge e;
  e.bytes_per_ns = 16;
  e.overhead = {24, 24, 20, 20};
  for (auto [a, b] : {std::pair{gpu, sw}, {sw, rc}}) {
    e.from = a, e.to = b;
    n.add_edge(e);
  }
  Edge raw;
  raw.bytes_per_ns = 64;
  raw.from = rc, raw.to = mem;
  n.add_edge(raw);
  for (auto [a, b] : {std::pair{mem, rc}, {rc, sw}, {sw, gpu}}) {
    Edge& x = a == mem ? raw : e;
    x.from = a, x.to = b;
    n.add_edge(x);
  }
  return n;
}

TransferPlan pooled(const Network& n, bool read, uint64_t bytes) {
  TransferSpec t;
  t.read = read;
  t.requester = 0;
  t.remote = 3;
  t.bytes = bytes;
  TransferPlan p = plan_transfer(n, FabricParams{}, t);
  pool_overheads(n, FabricParams{}, t, p);
  return p;
}

// A write of 1,000 full MWrs and one of 100 B: 1,001 TLPs. Exact: (256,100 + 1,001 x 24) /
// 256,100 wire bytes per byte on each PCIe link. Pooled: 280/256 per unit of a volume of
// (256,100 + 24,024) x 256 / 280 = 256,113.371...: the PCIe links are charged exactly
// 280,124 wire bytes, the memory port 13.4 B more than the copy (under one overhead).
TEST(PooledOverheads, AWriteChargesEveryPcieLinkItsExactWireBytes) {
  const Network n = host_path();
  const TransferPlan p = pooled(n, false, 256100);
  ASSERT_EQ(p.flow.path.size(), 3u);
  EXPECT_DOUBLE_EQ(p.volume, 280124.0 * 256 / 280);
  EXPECT_DOUBLE_EQ(p.flow.path[0].weight, 280.0 / 256);
  EXPECT_DOUBLE_EQ(p.flow.path[1].weight, 280.0 / 256);
  EXPECT_DOUBLE_EQ(p.flow.path[2].weight, 1.0);
  EXPECT_DOUBLE_EQ(p.volume * p.flow.path[0].weight, 280124.0);
  EXPECT_GE(p.volume, 256100.0);
  EXPECT_LT(p.volume - 256100.0, 24.0);
}

// Copies of other sizes of at least 256 TLPs have the same spec (the memo can serve them);
// one of whole TLPs keeps its volume; one of 255 TLPs keeps its exact weights.
TEST(PooledOverheads, LargeCopiesShareOneSpecSmallOnesStayExact) {
  const Network n = host_path();
  const TransferPlan a = pooled(n, false, 256100), b = pooled(n, false, 1234567), whole = pooled(n, false, 1 << 20);
  EXPECT_TRUE(spec_equal(a.flow, b.flow));
  EXPECT_TRUE(spec_equal(a.flow, whole.flow));
  EXPECT_DOUBLE_EQ(whole.volume, 1 << 20);
  const TransferPlan small = pooled(n, false, 255 * 256 - 1);  // 255 TLPs, the last of 255 B
  EXPECT_DOUBLE_EQ(small.volume, 255 * 256 - 1);
  EXPECT_DOUBLE_EQ(small.flow.path[0].weight, (255.0 * 256 - 1 + 255 * 24) / (255 * 256 - 1));
}

// A read of 600,000 B: 2,344 CplDs of 256 B (the last of 96), 1,172 MRds of 512 B (the last
// of 96). Data: 20 B per CplD, so a volume of (600,000 + 2,344 x 20) x 256 / 276. Requests:
// 24 B per MRd on the two PCIe links up, 28,128 B exact; pooled 24 / 512 x 256 / 255 per
// unit of volume: at least that, at most 1/255 of it (and the volume's few bytes) more. Into
// the memory port (a raw link) an MRd takes a turn and no time: kTurnOnlyWeight, one turn
// per 512 B of data.
TEST(PooledOverheads, AReadsRequestsAreNeverChargedLessThanTheirWireBytes) {
  const Network n = host_path();
  const TransferPlan p = pooled(n, true, 600000);
  EXPECT_DOUBLE_EQ(p.volume, (600000.0 + 2344 * 20) * 256 / 276);
  ASSERT_EQ(p.flow.path.size(), 6u);  // memory port, two PCIe links down; two PCIe links up, memory port
  EXPECT_DOUBLE_EQ(p.flow.path[1].weight * p.volume, 600000.0 + 2344 * 20);
  for (std::size_t k = 3; k < 5; ++k) {
    const double charged = p.flow.path[k].weight * p.volume;
    EXPECT_GE(charged, 1172 * 24.0);
    EXPECT_LE(charged, 1172 * 24.0 * 256 / 255 + 24);
  }
  EXPECT_EQ(p.flow.path[5].weight, kTurnOnlyWeight);
  EXPECT_EQ(p.flow.path[5].tlp, 512.0);
  // Another size shares the spec; a whole number of MRRS keeps exact requests.
  EXPECT_TRUE(spec_equal(p.flow, pooled(n, true, 777777).flow));
  const TransferPlan whole = pooled(n, true, 1 << 20);
  EXPECT_DOUBLE_EQ(whole.flow.path[3].weight, 24.0 / 512);
}

}  // namespace
