// One Switch between stub neighbours (tests/sim/harness.h): a sending EgressPort on each
// port (the third idle), receivers on all three egress ports. Routing (address windows, ID-routed
// completions, the upstream default) and FIFO against VOQ ingress, with timelines worked by
// hand: raw 1 GB/s links with 10 ns of propagation, 100-B TLPs (100 ns each), 110 ns of
// switch latency.
#include <gtest/gtest.h>
#include "apps/run/simulation.h"
#include "models/pcie/fabric_node.h"
#include "models/pcie/switch.h"
#include "tests/sim/harness.h"

using namespace arbsim;
using namespace arbsim::test;

namespace {

// Port 0 faces the root ("up"), ports 1 and 2 endpoints 0 and 1 ("d1", "d2"). Port 1's
// receiver has `d1_headers` posted header credits.
struct Bench {
  std::unique_ptr<Switch> sw;
  EgressPort tx0{"tx0", raw_link(1.0, 8)}, tx1{"tx1", raw_link(1.0, 8)}, tx2{"tx2", raw_link(1.0, 8)};
  Receiver up{"up"}, d1{"d1"}, d2{"d2"};
  Source src0, src1;

  Bench(bool voq, int64_t d1_headers) {
    std::vector<PortSpec> ports(3);
    const char* peers[] = {"up", "d1", "d2"};
    for (int p = 0; p < 3; ++p) {
      ports[p].egress = raw_link(1.0, p == 1 ? d1_headers : 8, 3);
      ports[p].ingress.voq = voq;
      ports[p].peer = peers[p];
    }
    SwitchParams sp;
    sp.latency_ns = 110;
    sp.voq = voq;
    sw = std::make_unique<Switch>("sw", sp, ports);
    sw->set_routes({{0, 1, 1}, {1, 2, 2}}, 0);
    tx0.out.bind(sw->target(0));
    tx1.out.bind(sw->target(1));
    tx2.out.bind(sw->target(2));  // idle: d2 sends nothing
    sw->egress(0).out.bind(up.in);
    sw->egress(1).out.bind(d1.in);
    sw->egress(2).out.bind(d2.in);
    src0.port = &tx0;
    src1.port = &tx1;
  }
  void run() {
    if (!src0.q.empty()) tx0.offer(src0.q);
    if (!src1.q.empty()) tx1.offer(src1.q);
    run_until(0, [] { return std::string(); });
  }
  // Three MWrs on port 0: two to endpoint 0 (d1), then one to endpoint 1 (d2).
  void blocked_then_other() {
    src0.push(TlpType::MWr, 100, endpoint_base_address(0));
    src0.push(TlpType::MWr, 100, endpoint_base_address(0));
    src0.push(TlpType::MWr, 100, endpoint_base_address(1));
    run();
  }
};

}  // namespace

// From the root: an MWr to endpoint 1's window goes to port 2, a completion for requester
// ID 1 (endpoint 0) to port 1 (ID routing); from port 1, an MWr to endpoint 7 (outside both
// windows) goes up. Timeline of the first: sent 0-100 on tx0, head at the switch at 10, tail
// at 110; ready at 10 + 110 = 120 (cut-through), its tail through at 220; out 120-220, tail
// at d2 at 230. The completion: sent 100-200, head at 110, ready at 220, tail at d1 330. The
// upward MWr: sent 0-100 on tx1, the same timeline as the first: 230.
TEST(Switch, RoutesByAddressWindowIdAndDefault) {
  Bench b(false, 8);
  b.src0.push(TlpType::MWr, 100, endpoint_base_address(1));
  b.src0.push(TlpType::CplD, 100, 0, endpoint_requester_id(0));
  b.src1.push(TlpType::MWr, 100, endpoint_base_address(7));
  b.run();
  ASSERT_EQ(b.d2.seen.size(), 1u);
  EXPECT_EQ(b.d2.seen[0].type, TlpType::MWr);
  EXPECT_DOUBLE_EQ(b.d2.seen[0].tail_ns, 230);
  ASSERT_EQ(b.d1.seen.size(), 1u);
  EXPECT_EQ(b.d1.seen[0].type, TlpType::CplD);
  EXPECT_DOUBLE_EQ(b.d1.seen[0].tail_ns, 330);
  ASSERT_EQ(b.up.seen.size(), 1u);
  EXPECT_EQ(b.up.seen[0].address, endpoint_base_address(7));
  EXPECT_DOUBLE_EQ(b.up.seen[0].tail_ns, 230);
}

// d1 has one posted header credit and never returns it. Three MWrs arrive on port 0: to
// endpoint 0, endpoint 0 again, endpoint 1. With one FIFO per VC the second waits for a
// credit that never comes and the third, bound for the idle port 2, waits behind it
// (head-of-line blocking): d2 gets nothing.
TEST(Switch, FifoIngressBlocksBehindAHeadWithoutCredits) {
  Bench b(false, 1);
  b.blocked_then_other();
  EXPECT_EQ(b.d1.seen.size(), 1u);
  EXPECT_EQ(b.d2.seen.size(), 0u);
}

// The same with virtual output queues: the third has its own queue for port 2 and passes.
// Its timeline: sent 200-300 on tx0, head at the switch at 210, ready at 320, out 320-420,
// tail at d2 at 430.
TEST(Switch, VoqIngressLetsOtherEgressesPass) {
  Bench b(true, 1);
  b.blocked_then_other();
  EXPECT_EQ(b.d1.seen.size(), 1u);
  ASSERT_EQ(b.d2.seen.size(), 1u);
  EXPECT_DOUBLE_EQ(b.d2.seen[0].tail_ns, 430);
}
