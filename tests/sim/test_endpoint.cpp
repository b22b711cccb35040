// One Endpoint as a completer between stub neighbours (tests/sim/harness.h): an MRd arrives,
// and the endpoint answers after its read latency with CplDs split at multiples of its
// completion size (RCB or MPS, docs/pcie-reference.md §3: a completion may not cross an RCB
// boundary except to end at one; the first ends at the first boundary after the address).
// Raw 1 GB/s links with 10 ns of propagation; an MRd costs no wire time on a raw link.
#include <gtest/gtest.h>
#include "apps/run/simulation.h"
#include "models/common/transfer_tracker.h"
#include "models/pcie/endpoint.h"
#include "tests/sim/harness.h"

using namespace arbsim;
using namespace arbsim::test;

namespace {

// Reads 1000 bytes at 100 bytes into endpoint 0's window (requester: endpoint 3) and returns
// what came back. One per process: SystemC elaborates once.
std::vector<Seen> read_back(int completion_bytes) {
  TransferTracker tracker;
  EndpointParams p;
  p.index = 0;
  p.read_latency_ns = 300;
  p.completion_bytes = completion_bytes;
  PortSpec port;
  port.egress = raw_link(1.0, 8, Endpoint::arbitration_slots(p));
  port.peer = "host";
  Endpoint ep("ep", p, port, tracker);
  EgressPort tx("tx", raw_link(1.0, 8));
  Receiver rx("rx");
  Source src;
  tx.out.bind(ep.target(0));
  ep.egress(0).out.bind(rx.in);
  src.port = &tx;
  src.push(TlpType::MRd, 1000, endpoint_base_address(0) + 100, endpoint_requester_id(3));
  tx.offer(src.q);
  run_until(0, [] { return std::string(); });
  for (const Seen& s : rx.seen) EXPECT_EQ(s.type, TlpType::CplD);
  return rx.seen;
}

std::vector<uint32_t> sizes(const std::vector<Seen>& s) {
  std::vector<uint32_t> v;
  for (const Seen& x : s) v.push_back(x.bytes);
  return v;
}

std::vector<double> tails(const std::vector<Seen>& s) {
  std::vector<double> v;
  for (const Seen& x : s) v.push_back(x.tail_ns);
  return v;
}

}  // namespace

// Completion size 256 (MPS): 156 to the boundary at 256, then 256, 256, 256, and 76. The MRd's
// tail arrives at 10; the first CplD is ready at 310 and leaves 310-466 (tail 476); the
// rest follow back to back: tails at 732, 988, 1244, 1320.
TEST(Endpoint, CompletionsSplitAtTheCompletionBoundary) {
  const std::vector<Seen> s = read_back(256);
  EXPECT_EQ(sizes(s), (std::vector<uint32_t>{156, 256, 256, 256, 76}));
  EXPECT_EQ(tails(s), (std::vector<double>{476, 732, 988, 1244, 1320}));
}

// RCB 64: 28 to the boundary at 128, fifteen of 64, and the last 12 (28 + 960 + 12 = 1000);
// the last tail at 310 + 1000 + 10 = 1320 as before (no overhead on a raw link).
TEST(Endpoint, CompletionsSplitAtTheReadCompletionBoundary) {
  const std::vector<Seen> s = read_back(64);
  std::vector<uint32_t> want{28};
  for (int i = 0; i < 15; ++i) want.push_back(64);
  want.push_back(12);
  EXPECT_EQ(sizes(s), want);
  ASSERT_FALSE(s.empty());
  EXPECT_DOUBLE_EQ(s.back().tail_ns, 1320);
}
