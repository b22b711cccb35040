// Stub neighbours for harness tests of one SystemC model at a time (tests/sim/test_egress_port,
// test_switch, test_endpoint): a receiver at the far end of a link, and a source queue an
// EgressPort serves. Timelines are then worked by hand from the link's rate and latency.
#pragma once
#include <functional>
#include <string>
#include <vector>
#include <tlm_utils/simple_target_socket.h>
#include "models/pcie/egress_port.h"
#include "models/pcie/tlp_pool.h"
#include "apps/run/simulation.h"

namespace arbsim::test {

// What a receiver saw of one TLP.
struct Seen {
  TlpType type;
  uint32_t bytes;
  uint64_t address;
  double tail_ns;  // its tail reached the receiver
};

// The receiving end of a link. It keeps every TLP; with `return_after_ns` >= 0 it frees each
// TLP's buffer that long after its tail arrived (credits go back through END_REQ), otherwise
// never (credits are not returned).
struct Receiver : sc_core::sc_module {
  tlm_utils::simple_target_socket<Receiver> in{"in"};
  std::vector<Seen> seen;
  double return_after_ns = -1;
  explicit Receiver(sc_core::sc_module_name n) : sc_core::sc_module(n) {
    in.register_nb_transport_fw(this, &Receiver::fw);
  }
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase&, sc_core::sc_time&) {
    const TlpExtension& x = as_tlp(gp)->x();
    seen.push_back({x.type, x.byte_count, x.address, x.tail_at.to_double() / 1000.0});  // ps -> ns, exact
    if (return_after_ns >= 0) {
      sc_core::sc_time delay = x.tail_at - sc_core::sc_time_stamp() + sc_core::sc_time(return_after_ns, sc_core::SC_NS);
      tlm::tlm_phase ph = tlm::END_REQ;
      in->nb_transport_bw(gp, ph, delay);
    }
    return tlm::TLM_ACCEPTED;
  }
  std::vector<double> tails() const {
    std::vector<double> t;
    for (const Seen& s : seen) t.push_back(s.tail_ns);
    return t;
  }
};

// A source queue in slot 0 of `port`: its owner re-offers the next head when one leaves.
struct Source : QueueOwner {
  EgressPort* port = nullptr;
  TlpQueue q{this, 0, 0};
  void on_pop(TlpQueue& queue, Tlp*) override {
    if (!queue.empty()) port->offer(queue);
  }
  Tlp* push(TlpType type, uint32_t bytes, uint64_t address = 0, uint16_t requester = 0) {
    Tlp* t = tlp_pool().acquire();
    t->x().type = type;
    t->x().byte_count = bytes;
    t->x().address = address;
    t->x().requester_id = requester;
    q.push(t);
    return t;
  }
};

// An EgressPort serving one Source and sending to one Receiver.
struct PortBench {
  EgressPort port;
  Receiver rx{"rx"};
  Source src;
  explicit PortBench(const EgressConfig& c) : port("port", c) {
    port.out.bind(rx.in);
    src.port = &port;
  }
  std::vector<Tlp*> push_mwrs(int n, uint32_t bytes) {
    std::vector<Tlp*> v;
    for (int i = 0; i < n; ++i) v.push_back(src.push(TlpType::MWr, bytes));
    return v;
  }
  // Offers the queue and runs until nothing is left to happen (`stuck` says what waits).
  void run(const std::function<std::string()>& stuck = [] { return std::string(); }) {
    port.offer(src.q);
    run_until(0, stuck);
  }
};

// A raw link direction of `gbps` GB/s (a byte per ns at 1) and 10 ns of propagation, no TLP
// overhead, with `posted_headers` posted header credits and 1024 posted data credits
// (16 KiB), for `slots` requesters.
inline EgressConfig raw_link(double gbps, int64_t posted_headers, int slots = 1) {
  EgressConfig c;
  c.link = LinkDirection::make_raw(gbps, 10);
  c.credits.header[0] = posted_headers;
  c.credits.data[0] = 1024;
  c.slots = slots;
  for (int s = 0; s < slots; ++s) c.slot_names.push_back("src" + std::to_string(s));
  return c;
}

}  // namespace arbsim::test
