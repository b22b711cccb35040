// PriorityTcPolicy against a fake fabric: which TC each command gets (Eq. 1), when the map is
// reprogrammed (command arrival and completion, seed 000 §3.2), and QoS escalation by
// Eq. 3 (§3.3), on hand-worked sequences.
#include <gtest/gtest.h>
#include <map>
#include "models/host/priority_policy.h"

using namespace arbsim;

namespace {

class FakeFabric : public FabricControl {
 public:
  void set_tc_map(const std::array<uint8_t, kNumTcs>& vc8) override {
    map = vc8;
    ++updates;
  }
  uint64_t delivered_bytes(uint64_t transfer) const override {
    auto it = delivered.find(transfer);
    return it == delivered.end() ? 0 : it->second;
  }
  double now_ns() const override { return now; }
  std::vector<int> vc_counts() const override { return counts; }
  void ranking_tie(int first, int second, uint64_t bytes, const std::vector<uint32_t>& flows) override {
    ties.push_back({first, second, bytes, flows.size()});
  }
  struct Tie {
    int first, second;
    uint64_t bytes;
    std::size_t flows;
  };
  std::vector<Tie> ties;
  std::array<uint8_t, kNumTcs> map{};
  int updates = 0;
  std::map<uint64_t, uint64_t> delivered;
  double now = 0;
  std::vector<int> counts{8};
};

MemcpyRequest h2d(int gpu, uint64_t bytes, double deadline = 0) {
  MemcpyRequest r;
  r.dir = CopyDir::H2D;
  r.gpu = gpu;
  r.bytes = bytes;
  r.response_data = true;
  r.deadline_ns = deadline;
  return r;
}

}  // namespace

TEST(PriorityTcPolicy, Eq1TcForReadsWritesAndPeers) {
  PriorityTcPolicy p(PriorityMode::RoundRobin, 4, 10.0, 0);
  EXPECT_EQ(p.assign_tc(h2d(2, 100)), 5);  // device read: data are completions, ID_T = 1
  MemcpyRequest w = h2d(2, 100);
  w.dir = CopyDir::D2H;
  w.response_data = false;
  EXPECT_EQ(p.assign_tc(w), 4);
  MemcpyRequest peer = w;
  peer.dir = CopyDir::P2P;
  peer.peer = 3;
  EXPECT_EQ(p.assign_tc(peer), 6);  // ID_D is the destination GPU
}

TEST(PriorityTcPolicy, RoundRobinNeverRemaps) {
  FakeFabric f;
  PriorityTcPolicy p(PriorityMode::RoundRobin, 2, 10.0, 0);
  p.attach(f);
  p.on_submit(1, h2d(0, 100));
  p.on_complete(1);
  EXPECT_EQ(f.updates, 0);
}

TEST(PriorityTcPolicy, SmallFirstRanksByRemainingBytesAtEachEvent) {
  FakeFabric f;
  PriorityTcPolicy p(PriorityMode::SmallestFirst, 2, 10.0, 0);
  p.attach(f);
  p.on_submit(1, h2d(0, 1000000));  // GPU0: 1 MB
  p.on_start(1, 11);
  p.on_submit(2, h2d(1, 100000));   // GPU1: 100 KB -> GPU1 responses on VC7
  EXPECT_EQ(f.map[3], 7);
  EXPECT_EQ(f.map[1], 6);
  // GPU0 has 950 KB delivered: 50 KB left < 100 KB. Nothing changes until an event...
  f.delivered[11] = 950000;
  EXPECT_EQ(f.map[3], 7);
  p.on_submit(3, h2d(1, 1));        // ...an arrival re-ranks: GPU0 first now
  EXPECT_EQ(f.map[1], 7);
  EXPECT_EQ(f.map[3], 6);
}

TEST(PriorityTcPolicy, LargeFirstIsTheReverse) {
  FakeFabric f;
  PriorityTcPolicy p(PriorityMode::LargestFirst, 2, 10.0, 0);
  p.attach(f);
  p.on_submit(1, h2d(0, 1000000));
  p.on_submit(2, h2d(1, 100000));
  EXPECT_EQ(f.map[1], 7);
  EXPECT_EQ(f.map[3], 6);
}

TEST(PriorityTcPolicy, QosEscalatesWhenEq3PredictsAMiss) {
  FakeFabric f;
  // BW = 10 B/ns. GPU0's 1 MB command needs 100 us alone; its deadline is 150 us.
  PriorityTcPolicy p(PriorityMode::DeadlineAware, 2, 10.0, 1000);
  p.attach(f);
  p.on_submit(1, h2d(0, 1000000, 150000));
  p.on_start(1, 11);
  p.on_submit(2, h2d(1, 100000));
  EXPECT_EQ(f.map[3], 7);  // small first: GPU1 on top
  f.now = 40000;           // 40 us later nothing delivered: 40 + 100 < 150, still fine
  p.on_tick();
  EXPECT_EQ(f.map[3], 7);
  f.now = 60000;           // 60 + 100 > 150: predicted miss -> GPU0 raised to the top
  p.on_tick();
  EXPECT_EQ(f.map[1], 7);
  f.delivered[11] = 999999;  // stays escalated until its command completes
  p.on_tick();
  EXPECT_EQ(f.map[1], 7);
  // GPU1 is alone once GPU0's command completes: no order to enforce, so the map is not
  // reprogrammed (a remap costs its TCs' drain, EgressPort::set_tc_map).
  const int updates = f.updates;
  p.on_complete(1);
  EXPECT_EQ(f.updates, updates);
  EXPECT_EQ(f.map[1], 7);
}

// A new ranking that orders the open commands' TCs as the programmed map does is not
// programmed; one that reverses two of them is. Idle destinations rank by GPU index, so the
// first map already orders GPU0 (TC1) > GPU1 (TC3) > GPU2 (TC5).
TEST(PriorityTcPolicy, RemapsOnlyWhenTheOrderOfOpenTcsChanges) {
  FakeFabric f;
  PriorityTcPolicy p(PriorityMode::SmallestFirst, 3, 10.0, 0);
  p.attach(f);
  p.on_submit(1, h2d(0, 1000));  // ranking 0, 1, 2: TC1 -> VC7, TC3 -> VC6, TC5 -> VC5
  EXPECT_EQ(f.updates, 1);
  EXPECT_EQ(f.map[1], 7);
  EXPECT_EQ(f.map[3], 6);
  p.on_submit(2, h2d(1, 5000));  // GPU1 larger than GPU0: the same order
  EXPECT_EQ(f.updates, 1);
  p.on_complete(1);              // GPU1 alone: nothing to order
  EXPECT_EQ(f.updates, 1);
  p.on_submit(3, h2d(2, 100));   // GPU2 smaller than GPU1: TC5 must go above TC3
  EXPECT_EQ(f.updates, 2);
  EXPECT_GT(f.map[5], f.map[3]);
  p.on_submit(4, h2d(0, 10));    // GPU0 smallest: TC1 must go above TC5
  EXPECT_EQ(f.updates, 3);
  EXPECT_GT(f.map[1], f.map[5]);
  EXPECT_GT(f.map[5], f.map[3]);
  p.on_submit(5, h2d(2, 1));     // GPU2 now 101 B: still between GPU0 and GPU1
  EXPECT_EQ(f.updates, 3);
}

TEST(PriorityTcPolicy, QosMarginEscalatesEarlier) {
  FakeFabric f;
  // As above, with a 20 us margin: at 40 us, 40 + 100 + 20 > 150 already.
  PriorityTcPolicy p(PriorityMode::DeadlineAware, 2, 10.0, 1000, 20000);
  p.attach(f);
  p.on_submit(1, h2d(0, 1000000, 150000));
  p.on_start(1, 11);
  p.on_submit(2, h2d(1, 100000));
  EXPECT_EQ(f.map[3], 7);
  f.now = 25000;  // 25 + 100 + 20 < 150
  p.on_tick();
  EXPECT_EQ(f.map[3], 7);
  f.now = 40000;
  p.on_tick();
  EXPECT_EQ(f.map[1], 7);
}

// Equal remaining bytes: the lower GPU index ranks first, and the fabric hears of it when the
// other order would program another map (the flow fabric lists it in fidelity_notes).
TEST(PriorityTcPolicy, ReportsTiesThatDecideTheMap) {
  FakeFabric f;
  PriorityTcPolicy p(PriorityMode::SmallestFirst, 4, 10.0, 0);
  p.attach(f);
  p.on_submit(1, h2d(1, 4096));
  p.on_submit(2, h2d(2, 4096));  // equal, nothing arrived: the packet model ties the same way
  EXPECT_TRUE(f.ties.empty());
  EXPECT_GT(f.map[3], f.map[5]);  // GPU1 first
  p.on_start(1, 11);
  p.on_start(2, 22);
  f.delivered[11] = f.delivered[22] = 1024;  // both a KB in: a tie the packet model's TLPs split
  p.on_submit(3, h2d(0, 100000));
  ASSERT_EQ(f.ties.size(), 1u);
  EXPECT_EQ(f.ties[0].first, 1);
  EXPECT_EQ(f.ties[0].second, 2);
  EXPECT_EQ(f.ties[0].bytes, 3072u);
  EXPECT_EQ(f.ties[0].flows, 2u);
  f.delivered[22] = 1025;  // GPU2 a byte ahead: no tie
  p.on_submit(4, h2d(3, 100000));
  EXPECT_EQ(f.ties.size(), 1u);
  EXPECT_GT(f.map[5], f.map[3]);
}

// On a link of fewer VCs a map is scaled (VC v of 8 -> v x n / 8): TCs on 8-VC VCs 7 and 6
// share VC 3 of 4, those on 5 and 4 VC 2. GPU0, GPU1 and GPU2 open (ranked 0, 1, 2: TC1 on
// VC 7, TC3 on 6, TC5 on 5); GPU1's copy ends: ranked 0, 2, 1, TC5 moves to VC 6. TC1 stays
// above TC5 on 8 VCs, so an 8-VC platform needs no remap; on 4 VCs TC5 joins TC1 on VC 3,
// which only the new map gives it (the remap was skipped there before).
TEST(PriorityTcPolicy, RemapsWhereAScaledMapGroupsTheOpenTcsDifferently) {
  for (const int vcs : {8, 4}) {
    FakeFabric f;
    f.counts = {vcs};
    PriorityTcPolicy p(PriorityMode::SmallestFirst, 4, 10.0, 0);
    p.attach(f);
    p.on_submit(1, h2d(0, 1000));
    p.on_submit(2, h2d(1, 2000));
    p.on_submit(3, h2d(2, 3000));
    EXPECT_EQ(f.updates, 1);
    EXPECT_EQ(f.map[5], 5);
    p.on_complete(2);
    EXPECT_EQ(f.updates, vcs == 8 ? 1 : 2) << vcs << " VCs";
    if (vcs == 4) {
      EXPECT_EQ(f.map[5], 6);
    }
  }
}
