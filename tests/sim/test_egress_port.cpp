// One EgressPort between stub neighbours (a queue it serves, a receiver it sends to:
// tests/sim/harness.h), with timelines worked by hand: serialisation, the credit stall, the
// cut-through bound onto a faster link, and a receiver that never frees its buffer, which
// must end the run as a named deadlock instead of a quiet stop.
#include <gtest/gtest.h>
#include "apps/run/logging.h"
#include "apps/run/simulation.h"
#include "tests/sim/harness.h"

using namespace arbsim;
using namespace arbsim::test;

// Three 100-B MWrs on a raw 1 GB/s link with room for all: back to back, each 100 ns, the
// tails arriving at 110, 210, 310 ns (10 ns propagation).
TEST(EgressPort, SerialisesBackToBack) {
  PortBench b(raw_link(1.0, 8));
  b.push_mwrs(3, 100);
  b.run();
  EXPECT_EQ(b.rx.tails(), (std::vector<double>{110, 210, 310}));
}

// Two posted header credits and a receiver that never frees them: two TLPs go, the third
// waits forever. With nothing left to happen the run ends as a deadlock naming the port, the
// requester and the credits it lacks.
TEST(EgressPort, CreditsNeverReturnedIsADeadlock) {
  init_logging("off", "");
  PortBench b(raw_link(1.0, 2));
  b.push_mwrs(3, 100);
  std::string error;
  try {
    b.run([&] { return b.port.waiting(); });
  } catch (const sc_core::sc_report& r) {
    error = r.what();
  }
  EXPECT_EQ(b.rx.seen.size(), 2u);
  EXPECT_NE(error.find("deadlock"), std::string::npos) << error;
  EXPECT_NE(error.find("port: 1 head(s) waiting: src0 MWr TC0 on VC0 (needs 1 header + 7 data credits, has 0 + 1010)"),
            std::string::npos)
      << error;
}

// One posted header credit; the receiver frees each TLP's buffer 50 ns after its tail
// arrived. TLP 1 is sent 0-100, its tail arrives at 110, the credit is back at 160; TLP 2
// is sent 160-260 (tail 270, credit back 320); TLP 3 is sent 320-420 (tail 430). The link
// stalls for credits with a head ready from 100 to 160 and from 260 to 320: 120 ns.
TEST(EgressPort, CreditStallWaitsForTheReturnedCredit) {
  PortBench b(raw_link(1.0, 1));
  b.rx.return_after_ns = 50;
  b.push_mwrs(3, 100);
  b.run();
  b.port.finish();
  EXPECT_EQ(b.rx.tails(), (std::vector<double>{110, 270, 430}));
  EXPECT_DOUBLE_EQ(b.port.stats().credit_stall_ps, 120e3);
  EXPECT_DOUBLE_EQ(b.port.stats().busy_ps, 300e3);
}

// The cut-through bound (docs/architecture.md, "Timing of one TLP"): a 100-B TLP whose
// head is ready at 0 but whose tail is through the node only at 400 (it came in on a link
// four times slower) may not start on this 1 GB/s link before 400 - 100 = 300, or its tail
// would underrun: the tail reaches the receiver at 300 + 100 + 10 = 410. The second, its
// tail through at 450, could start at 350 but the link is busy until 400: 400-500, tail 510.
TEST(EgressPort, CutThroughOntoAFasterLinkStartsWhenTheTailCannotUnderrun) {
  PortBench b(raw_link(1.0, 8));
  const std::vector<Tlp*> tlps = b.push_mwrs(2, 100);
  const double tail_ready_ns[] = {400, 450};
  for (int k = 0; k < 2; ++k) {
    tlps[k]->x().ready_at = sc_core::SC_ZERO_TIME;
    tlps[k]->x().tail_ready_at = sc_core::sc_time(tail_ready_ns[k], sc_core::SC_NS);
  }
  b.run();
  EXPECT_EQ(b.rx.tails(), (std::vector<double>{410, 510}));
}
