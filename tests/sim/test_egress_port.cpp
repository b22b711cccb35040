// One EgressPort between stub neighbours (a queue it serves, a receiver it sends to), with
// timelines worked by hand: serialisation, the credit stall, and a receiver that never
// frees its buffer, which must end the run as a named deadlock instead of a quiet stop.
#include <gtest/gtest.h>
#include <tlm_utils/simple_target_socket.h>
#include "models/pcie/egress_port.h"
#include "models/pcie/tlp_pool.h"
#include "apps/run/logging.h"
#include "apps/run/simulation.h"

using namespace arbsim;

namespace {

// The receiving end: keeps every TLP (never returns credits) and records arrival times.
struct Receiver : sc_core::sc_module {
  tlm_utils::simple_target_socket<Receiver> in{"in"};
  std::vector<double> tail_ns;
  explicit Receiver(sc_core::sc_module_name n) : sc_core::sc_module(n) {
    in.register_nb_transport_fw(this, &Receiver::fw);
  }
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase&, sc_core::sc_time&) {
    tail_ns.push_back(as_tlp(gp)->x().tail_at.to_seconds() * 1e9);
    return tlm::TLM_ACCEPTED;
  }
};

// A source queue in slot 0: its owner re-offers the next head when one leaves.
struct Source : QueueOwner {
  EgressPort* port = nullptr;
  TlpQueue q{this, 0, 0};
  void on_pop(TlpQueue& queue, Tlp*) override {
    if (!queue.empty()) port->offer(queue);
  }
  void push_mwr(uint32_t bytes) {
    Tlp* t = tlp_pool().acquire();
    t->x().type = TlpType::MWr;
    t->x().byte_count = bytes;
    q.push(t);
  }
};

EgressConfig raw_link(double gbps, int64_t posted_headers) {
  EgressConfig c;
  c.link = LinkDirection::make_raw(gbps, 10);
  c.credits.header[0] = posted_headers;
  c.credits.data[0] = 1024;
  c.slot_names = {"src"};
  return c;
}

}  // namespace

// Three 100-B MWrs on a raw 1 GB/s link with room for all: back to back, each 100 ns, the
// tails arriving at 110, 210, 310 ns (10 ns propagation).
TEST(EgressPort, SerialisesBackToBack) {
  EgressPort port("port", raw_link(1.0, 8));
  Receiver rx("rx");
  port.out.bind(rx.in);
  Source src;
  src.port = &port;
  for (int i = 0; i < 3; ++i) src.push_mwr(100);
  port.offer(src.q);
  run_until(0, [] { return std::string(); });
  ASSERT_EQ(rx.tail_ns.size(), 3u);
  EXPECT_DOUBLE_EQ(rx.tail_ns[0], 110.0);
  EXPECT_DOUBLE_EQ(rx.tail_ns[1], 210.0);
  EXPECT_DOUBLE_EQ(rx.tail_ns[2], 310.0);
}

// Two posted header credits and a receiver that never frees them: two TLPs go, the third
// waits forever. With nothing left to happen the run ends as a deadlock naming the port, the
// requester and the credits it lacks.
TEST(EgressPort, CreditsNeverReturnedIsADeadlock) {
  init_logging("off", "");
  EgressPort port("port", raw_link(1.0, 2));
  Receiver rx("rx");
  port.out.bind(rx.in);
  Source src;
  src.port = &port;
  for (int i = 0; i < 3; ++i) src.push_mwr(100);
  port.offer(src.q);
  std::string error;
  try {
    run_until(0, [&] { return port.waiting(); });
  } catch (const sc_core::sc_report& r) {
    error = r.what();
  }
  EXPECT_EQ(rx.tail_ns.size(), 2u);
  EXPECT_NE(error.find("deadlock"), std::string::npos) << error;
  EXPECT_NE(error.find("port: 1 head(s) waiting: src MWr TC0 on VC0 (needs 1 header + 7 data credits, has 0 + 1010)"),
            std::string::npos)
      << error;
}
