// Max-min fair sharing (progressive filling) on hand-worked graphs, the flow scheduler's
// event loop (seed 002 Algorithm 1) and the flow network's first-TLP timing.
#include <cmath>
#include <gtest/gtest.h>
#include <stdexcept>
#include "models/flow/flow_network.h"
#include "models/flow/flow_scheduler.h"
#include "models/flow/max_min.h"

using namespace arbsim;
using namespace arbsim::flow;

namespace {

FlowSpec over(std::vector<int> edges, double cap = kUnbounded) {
  FlowSpec f;
  for (int e : edges) f.path.push_back({e, 1.0});
  f.cap = cap;
  return f;
}

// The example: two flows share an 8 GB/s link; one is also capped at 2 GB/s by a
// link of its own. Progressive filling: both rise to 2, the small link fills, the other
// flow takes the rest of the shared link: 2 and 6.
TEST(MaxMin, SharedLinkWithOneFlowCappedElsewhere) {
  const std::vector<double> cap = {8, 2};
  const auto r = max_min_rates(cap, {over({0, 1}), over({0})});
  EXPECT_DOUBLE_EQ(r[0], 2);
  EXPECT_DOUBLE_EQ(r[1], 6);
}

TEST(MaxMin, EqualSharesOfOneBottleneck) {
  const auto r = max_min_rates({12}, {over({0}), over({0}), over({0})});
  for (double v : r) EXPECT_DOUBLE_EQ(v, 4);
}

// Nested bottlenecks, a tree of links: A (12) carries flows 0-3, B (6) flows 0-2, C (1)
// flow 0. Round 1: all rise to 1, C is full (flow 0 = 1). Round 2: flows 1-3 rise by
// 1.5 to 2.5, B is full (1 + 2.5 + 2.5 = 6). Round 3: flow 3 alone takes what A has
// left: 12 - 1 - 2.5 - 2.5 = 6.
TEST(MaxMin, NestedBottlenecks) {
  const auto r = max_min_rates({12, 6, 1}, {over({0, 1, 2}), over({0, 1}), over({0, 1}), over({0})});
  EXPECT_DOUBLE_EQ(r[0], 1);
  EXPECT_DOUBLE_EQ(r[1], 2.5);
  EXPECT_DOUBLE_EQ(r[2], 2.5);
  EXPECT_DOUBLE_EQ(r[3], 6);
}

// Parking lot: flow 0 crosses both links, flows 1 and 2 one each. Link 1 (4) fills first
// at 2 each; flow 2 then takes the rest of link 0 (10 - 2 = 8).
TEST(MaxMin, ParkingLot) {
  const auto r = max_min_rates({10, 4}, {over({0, 1}), over({1}), over({0})});
  EXPECT_DOUBLE_EQ(r[0], 2);
  EXPECT_DOUBLE_EQ(r[1], 2);
  EXPECT_DOUBLE_EQ(r[2], 8);
}

// Weights: a PCIe link of 14.2 wire GB/s carries a MWr flow (280 wire bytes per 256
// payload) and a CplD flow (276 per 256); equal payload rates r with r (280 + 276) / 256 = 14.2.
TEST(MaxMin, WeightedHopsShareWireCapacity) {
  FlowSpec w, c;
  w.path = {{0, 280.0 / 256}};
  c.path = {{0, 276.0 / 256}};
  const auto r = max_min_rates({14.2}, {w, c});
  EXPECT_NEAR(r[0], 14.2 * 256 / 556, 1e-12);
  EXPECT_DOUBLE_EQ(r[0], r[1]);
}

// A read's MRds go ahead of the fair share on the up link: the read (data on the down
// link, 14.2 x 256/276 there) is not held back by the writer it shares the up link with,
// and the writer gets what the requests leave: (14.2 - r x 24/512) x 256/280.
TEST(MaxMin, AheadHopsTakeCapacityButNeverLimit) {
  FlowSpec write, read;
  write.path = {{0, 280.0 / 256}};
  read.path = {{1, 276.0 / 256}, {0, 24.0 / 512, true}};
  const auto r = max_min_rates({14.2, 14.2}, {write, read});
  const double read_rate = 14.2 * 256 / 276;
  EXPECT_NEAR(r[1], read_rate, 1e-12);
  EXPECT_NEAR(r[0], (14.2 - read_rate * 24 / 512) * 256 / 280, 1e-9);
}

TEST(MaxMin, OwnCapAndUnboundedFlows) {
  const auto r = max_min_rates({10}, {over({0}, 1.5), over({0}), over({})});
  EXPECT_DOUBLE_EQ(r[0], 1.5);
  EXPECT_DOUBLE_EQ(r[1], 8.5);
  EXPECT_EQ(r[2], kUnbounded);
}

TEST(MaxMin, RejectsBadInput) {
  EXPECT_THROW(max_min_rates({1}, {over({1})}), std::invalid_argument);
  EXPECT_THROW(max_min_rates({0}, {over({0})}), std::invalid_argument);
  FlowSpec neg;
  neg.path = {{0, -1}};
  EXPECT_THROW(max_min_rates({1}, {neg}), std::invalid_argument);
}

// Algorithm 1's loop: 8000 and 16000 bytes on a shared 8 B/ns link start together at 4
// each; the first ends at 2000 ns, the second then runs alone at 8: 8000 left, 3000 ns.
TEST(Scheduler, RatesChangeOnlyWhenAFlowEnds) {
  Scheduler s({8});
  const int a = s.add(0, 8000, over({0}));
  const int b = s.add(0, 16000, over({0}));
  EXPECT_DOUBLE_EQ(s.rate(a), 4);
  EXPECT_DOUBLE_EQ(s.next_finish_ns(), 2000);
  EXPECT_TRUE(s.advance(1000).empty());
  EXPECT_EQ(s.advance(2000), std::vector<int>{a});
  EXPECT_DOUBLE_EQ(s.rate(b), 8);
  EXPECT_DOUBLE_EQ(s.next_finish_ns(), 3000);
  EXPECT_EQ(s.advance(3000), std::vector<int>{b});
  EXPECT_EQ(s.next_finish_ns(), kUnbounded);
}

// The rate a flow finished at is the one it moved at, not a share recomputed at the very
// instant it ran out: a (8000 B alone at 8) ends at 1000 ns; b starts at 1000 ns before
// a is retired, which recomputes a's share to 4; a still reports 8, and b, alone from
// 1000 ns, ends at 2000 ns at 8.
TEST(Scheduler, FinishedRateIsTheRateOfItsLastInterval) {
  Scheduler s({8});
  const int a = s.add(0, 8000, over({0}));
  const int b = s.add(1000, 8000, over({0}));
  EXPECT_DOUBLE_EQ(s.rate(a), 4);  // the share now, with a already out of bytes
  EXPECT_EQ(s.advance(1000), std::vector<int>{a});
  EXPECT_EQ(s.finished_rates(), std::vector<double>{8});
  EXPECT_EQ(s.advance(2000), std::vector<int>{b});
  EXPECT_EQ(s.finished_rates(), std::vector<double>{8});
}

// A flow that starts while another runs takes its share from then on: a (12000 B) alone
// at 8 until 1000 ns (4000 left), then 4 each: b (2000 B) ends at 1500, a at 2250.
TEST(Scheduler, LateArrivalSharesFromItsStart) {
  Scheduler s({8});
  const int a = s.add(0, 12000, over({0}));
  EXPECT_TRUE(s.advance(1000).empty());
  const int b = s.add(1000, 2000, over({0}));
  EXPECT_DOUBLE_EQ(s.sent(a), 8000);
  EXPECT_DOUBLE_EQ(s.next_finish_ns(), 1500);
  EXPECT_EQ(s.advance(1500), std::vector<int>{b});
  EXPECT_DOUBLE_EQ(s.next_finish_ns(), 1750);
  EXPECT_EQ(s.advance(1750), std::vector<int>{a});
}

// A flow released before its end (a read whose engine has issued its last request): 12000
// bytes alone at 8 B/ns, released when 4000 are left, at (12000 - 4000) / 8 = 1000 ns, and
// not before `not_before_ns` where that is later; it runs on to its end at 1500 ns.
TEST(Scheduler, ReleasedWhenWhatIsLeftIsItsWindow) {
  Scheduler s({8});
  const int a = s.add(0, 12000, over({0}), Release{4000, 0});
  EXPECT_DOUBLE_EQ(s.next_finish_ns(), 1000);
  EXPECT_TRUE(s.advance(1000).empty());
  EXPECT_EQ(s.released(), std::vector<int>{a});
  EXPECT_DOUBLE_EQ(s.next_finish_ns(), 1500);
  EXPECT_TRUE(s.advance(1200).empty());
  EXPECT_TRUE(s.released().empty());  // once
  EXPECT_EQ(s.advance(1500), std::vector<int>{a});

  Scheduler paced({8});
  const int b = paced.add(0, 12000, over({0}), Release{4000, 1300});
  EXPECT_DOUBLE_EQ(paced.next_finish_ns(), 1300);
  EXPECT_TRUE(paced.advance(1300).empty());
  EXPECT_EQ(paced.released(), std::vector<int>{b});

  // Due a hair after the picosecond a wake is rounded to: released then, not asked for again
  // at the same instant (the run fuzzer's zero-delay loop, cases 268, 316 and 818).
  Scheduler hair({8});
  const int c = hair.add(0, 12000, over({0}), Release{4000, 1300.0000004});
  EXPECT_TRUE(hair.advance(1300).empty());
  EXPECT_EQ(hair.released(), std::vector<int>{c});
}

// A read's tag-window cap applies once its first window has moved (LaterCap): 12,000 B on an
// 8 B/ns edge, capped at 2 B/ns after 4,000: 500 ns at 8, then 8,000 B at 2 = 4,000 ns more.
// The rate it finishes at is its burst rate, 8 (its windows come back at its share). A later
// cap above what the flow can move at all never applies (no event, no recomputation).
TEST(Scheduler, ALaterCapAppliesOnceItsBytesHaveMoved) {
  Scheduler s({8});
  const int a = s.add(0, 12000, over({0}), Release{}, LaterCap{4000, 2});
  EXPECT_DOUBLE_EQ(s.rate(a), 8);
  EXPECT_DOUBLE_EQ(s.next_finish_ns(), 500);
  EXPECT_TRUE(s.advance(500).empty());
  EXPECT_DOUBLE_EQ(s.rate(a), 2);
  EXPECT_DOUBLE_EQ(s.sent(a), 4000);
  EXPECT_DOUBLE_EQ(s.next_finish_ns(), 4500);
  EXPECT_EQ(s.advance(4500), std::vector<int>{a});
  EXPECT_DOUBLE_EQ(s.finished_rates()[0], 8);

  Scheduler never({8});
  const int b = never.add(0, 12000, over({0}), Release{}, LaterCap{4000, 9});
  EXPECT_DOUBLE_EQ(never.next_finish_ns(), 1500);
  EXPECT_EQ(never.advance(1500), std::vector<int>{b});
  EXPECT_DOUBLE_EQ(never.finished_rates()[0], 8);
}

// Two links (1 B/ns, 10 ns propagation, 24 B MWr overhead) through one node of 100 ns.
// A 256-B MWr serialises in 280 ns. Cut-through: the head reaches the node at 10, leaves
// at 110, but the tail (in at 290) bounds the second link's end: max(110 + 280, 290) =
// 390, tail at 400. Store-and-forward: leaves at 290 + 100 = 390, tail at 680.
Network chain(bool store_and_forward) {
  Network n;
  const int a = n.add_node({}), mid = n.add_node({100, store_and_forward, 0}), b = n.add_node({});
  Edge e;
  e.bytes_per_ns = 1;
  e.propagation_ns = 10;
  e.overhead = {24, 24, 20, 20};
  e.from = a, e.to = mid;
  n.add_edge(e);
  e.from = mid, e.to = b;
  n.add_edge(e);
  return n;
}

TEST(FlowNetwork, FirstTlpTimingFollowsThePacketRules) {
  const Network ct = chain(false), sf = chain(true);
  EXPECT_DOUBLE_EQ(transit_ns(ct, ct.path(0, 2), TlpType::MWr, 256), 400);
  EXPECT_DOUBLE_EQ(transit_ns(sf, sf.path(0, 2), TlpType::MWr, 256), 680);
  EXPECT_THROW(ct.path(2, 0), std::invalid_argument);  // no edge back
}

// A write's plan: MWr weights (280/256) on its data path, latency = the first MWr's
// transit; the TLP counts the packet model would send.
TEST(FlowNetwork, WritePlan) {
  const Network n = chain(false);
  TransferSpec t;
  t.requester = 0;
  t.remote = 2;
  t.bytes = 1000;
  const TransferPlan p = plan_transfer(n, FabricParams{}, t);
  ASSERT_EQ(p.flow.path.size(), 2u);
  // 1000 B as MWrs of at most 256: four TLPs, each with 24 B of overhead (the last, of 232 B,
  // too): (1000 + 4 x 24) / 1000 wire bytes per payload byte, not the full-size 280/256.
  EXPECT_DOUBLE_EQ(p.flow.path[0].weight, 1096.0 / 1000);
  EXPECT_DOUBLE_EQ(p.latency_ns, 400);
  EXPECT_EQ(p.first_bytes, 256u);
  EXPECT_EQ(data_tlps(FabricParams{}, false, 1000), 4u);
  EXPECT_EQ(data_tlps(FabricParams{}, true, 1000), 4u);     // 256-B CplDs
  EXPECT_EQ(request_tlps(FabricParams{}, true, 1000), 2u);  // 512-B MRds
}

// A receiver's credits carry at most its window per round trip (flow_network.h,
// credit_loop_cap()). One link, 2 B/ns, 100 ns flight, an endpoint at the end; credits come
// back 50 ns after the buffer frees. A 256-B MWr (24 B overhead) serialises in 140 ns, so a
// TLP's credits are back 140 + 100 + 50 = 290 ns after it starts. The link carries
// 2 x 256 / 280 = 1.829 B/ns of payload.
TEST(FlowNetwork, CreditsThatBindACopyAloneAreFound) {
  const auto one_link = [](double posted_tlps) {
    Network n;
    const int a = n.add_node({}), b = n.add_node({});
    Edge e;
    e.from = a, e.to = b;
    e.bytes_per_ns = 2;
    e.propagation_ns = 100;
    e.overhead = {24, 24, 20, 20};
    e.credit_tlps = {posted_tlps, kUnbounded, kUnbounded};
    e.credit_return_ns = 50;
    n.add_edge(e);
    return n;
  };
  TransferSpec t;
  t.requester = 0;
  t.remote = 1;
  t.bytes = 1 << 20;
  // Four TLPs per 290 ns (3.531 B/ns) is more than the link: left out (no cap).
  const TransferPlan four = plan_transfer(one_link(4), FabricParams{}, t);
  EXPECT_DOUBLE_EQ(credit_loop_cap(one_link(4), 0, 0, TlpType::MWr, 256, 256), 4 * 256 / 290.0);
  EXPECT_EQ(four.flow.cap, kUnbounded);
  EXPECT_TRUE(four.credit_loops.empty());
  // One TLP per 290 ns (0.883 B/ns) is less: it binds, and the plan says where (the fluid
  // does not represent it: no cap, the fidelity watch names it).
  const TransferPlan one = plan_transfer(one_link(1), FabricParams{}, t);
  EXPECT_EQ(one.flow.cap, kUnbounded);
  ASSERT_EQ(one.credit_loops.size(), 1u);
  EXPECT_EQ(one.credit_loops[0].edge, 0);
  EXPECT_FALSE(one.credit_loops[0].request);
  EXPECT_DOUBLE_EQ(credit_loop_cap(one_link(1), 0, 0, TlpType::MWr, 256, 256), 256 / 290.0);
  // Infinite credits: no loop.
  EXPECT_TRUE(plan_transfer(one_link(kUnbounded), FabricParams{}, t).credit_loops.empty());
  // A copy of no more TLPs than the window sends them all at once: no loop. A window of 2
  // (2 x 256 / 290 = 1.766 B/ns, under the link's 1.829) binds a copy of 3 TLPs, not of 2.
  t.bytes = 3 * 256;
  EXPECT_EQ(plan_transfer(one_link(2), FabricParams{}, t).credit_loops.size(), 1u);
  t.bytes = 2 * 256;
  EXPECT_TRUE(plan_transfer(one_link(2), FabricParams{}, t).credit_loops.empty());
  t.bytes = 256;
  EXPECT_TRUE(plan_transfer(one_link(1), FabricParams{}, t).credit_loops.empty());
}

// A turn is one TLP whatever its size: a hop's units per TLP are the copy's bytes over its
// TLPs (MPS 256, MRRS 512): 64 B in one; 293 B in two, 146.5; 1 MiB at 256; a 1000 B read's
// two MRds 500 each and its four CplDs (completion size 256) 250.
TEST(FlowNetwork, ATurnCarriesTheCopysMeanTlp) {
  Network n;
  const int a = n.add_node({}), b = n.add_node({});
  Edge e;
  e.from = a, e.to = b;
  e.bytes_per_ns = 2;
  e.overhead = {24, 24, 20, 20};
  n.add_edge(e);
  Edge back = e;
  back.from = b, back.to = a;
  n.add_edge(back);
  const auto tlp_of = [&](uint64_t bytes, bool read, std::size_t hop) {
    TransferSpec t;
    t.requester = 0, t.remote = 1, t.bytes = bytes, t.read = read;
    return plan_transfer(n, FabricParams{}, t).flow.path.at(hop).tlp;
  };
  EXPECT_DOUBLE_EQ(tlp_of(64, false, 0), 64);
  EXPECT_DOUBLE_EQ(tlp_of(293, false, 0), 146.5);
  EXPECT_DOUBLE_EQ(tlp_of(1 << 20, false, 0), 256);
  EXPECT_DOUBLE_EQ(tlp_of(1000, true, 0), 250);  // its data, back over edge 1
  EXPECT_DOUBLE_EQ(tlp_of(1000, true, 1), 500);  // its MRds, over edge 0
}

// A receiver holds TLPs by its headers or its data credits (16 bytes each), whichever run out
// first: 16 headers and 2048 data credits hold 16 TLPs of 64 B (4 credits) or 256 B (16);
// 128 headers and 64 data credits hold 4 of 256 B, 16 of 64 B, 9 of 100 B (7 credits) and
// 6 of a 293 B copy's TLPs (256 + 37 B: 16 + 3 credits, 9.5 each); an MRd takes none.
TEST(FlowNetwork, ACreditWindowCountsTheCopysOwnTlps) {
  Edge e;
  e.credit_headers = {16, 8, kUnbounded};
  e.credit_data = {2048, kUnbounded, kUnbounded};
  EXPECT_EQ(e.window_tlps(0, 4), 16);
  EXPECT_EQ(e.window_tlps(0, 16), 16);
  EXPECT_EQ(e.window_tlps(1, 0), 8);
  e.credit_headers[0] = 128;
  e.credit_data[0] = 64;
  EXPECT_EQ(e.window_tlps(0, 16), 4);
  EXPECT_EQ(e.window_tlps(0, 4), 16);
  EXPECT_EQ(e.window_tlps(0, 7), 9);
  EXPECT_EQ(e.window_tlps(0, 9.5), 6);
  // Neither given: the full-size count.
  e.credit_tlps[2] = 5;
  EXPECT_EQ(e.window_tlps(2, 4), 5);
}

}  // namespace
