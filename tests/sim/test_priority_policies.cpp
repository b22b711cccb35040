// Seed 000 policies on the Fig. 2 platform, against hand-worked timelines. Two tasks on
// gpu2 and gpu3 (behind sw1) each get one host-pushed copy at t = 0: A = 64 KiB (256 MWr
// of 256 B), B = 256 KiB (1024 MWr). Both cross rc0 -> sw1, the bottleneck, where each MWr
// takes s = 280 B / 14.21 GB/s. A copy completes 150 ns after its last MWr leaves rc0
// (20 ns link + 110 ns switch + 20 ns link, cut-through: docs/architecture.md).
//  rr:          VC4 (A, TC4 by Eq. 1) and VC6 (B, TC6) alternate, A first: A's last MWr is
//               the 511th on the link, B's the 1280th.
//  priority_s:  A has fewer bytes, so its TC goes to VC7: A's 256 MWr go first.
#include <gtest/gtest.h>
#include "tests/sim/sim_helpers.h"

using namespace arbsim;
using namespace arbsim::test;

namespace {

const double kS = 280.0 / 14.21;  // ns per 256-B MWr on Gen3 x16 (docs/pcie-reference.md §2)

SimOutcome two_copies(const std::string& policy, const std::string& extra = "") {
  const std::string yaml =
      "platform: {include: configs/platforms/seed000_fig2.yaml, h2d_mode: push}\n"
      "driver: {policy: " + policy + extra + "}\n"
      "apps:\n"
      "  - {name: a, type: copy_exec, gpu: gpu2, h2d_bytes: 64KiB, kernel_ns: 0, iterations: 1}\n"
      "  - {name: b, type: copy_exec, gpu: gpu3, h2d_bytes: 256KiB, kernel_ns: 0, iterations: 1}\n";
  return run_yaml(yaml);
}

}  // namespace

TEST(PriorityPolicies, RoundRobinInterleavesBothCopies) {
  SimOutcome o = two_copies("rr");
  const double a = app(o, "a")["max_ns"].get<double>(), b = app(o, "b")["max_ns"].get<double>();
  EXPECT_NEAR(a, 511 * kS + 150, 0.01 * (511 * kS + 150));
  EXPECT_NEAR(b, 1280 * kS + 150, 0.01 * (1280 * kS + 150));
  EXPECT_EQ(o.results["policy"], "rr");
}

TEST(PriorityPolicies, PrioritySmallFirstFinishesTheSmallCopyAlone) {
  SimOutcome o = two_copies("priority_s");
  const double a = app(o, "a")["max_ns"].get<double>(), b = app(o, "b")["max_ns"].get<double>();
  EXPECT_NEAR(a, 256 * kS + 150, 0.01 * (256 * kS + 150));
  EXPECT_NEAR(b, 1280 * kS + 150, 0.01 * (1280 * kS + 150));
  EXPECT_LT(a, b);
}

TEST(PriorityPolicies, PriorityLargeFirstMakesTheSmallCopyWait) {
  SimOutcome o = two_copies("priority_l");
  const double a = app(o, "a")["max_ns"].get<double>();
  EXPECT_NEAR(a, 1280 * kS + 150, 0.01 * (1280 * kS + 150));
}

TEST(PriorityPolicies, StarvationThresholdBoundsTheLowTasksHeadWait) {
  // priority_s with x = 4: B's head at rc0 -> sw1 waits at most 4 grants plus the one in
  // progress, and B gets every 5th grant while A transfers.
  const int x = 4;
  SimOutcome o = two_copies("priority_s", ", starvation_threshold: " + std::to_string(x));
  const auto arb = arbiter(o, "rc0->sw1");
  EXPECT_LE(arb["max_head_wait_ns"].get<double>(), x * kS + kS + 1.0);
  EXPECT_GT(arb["max_head_wait_ns"].get<double>(), (x - 1) * kS);
  // A's 256 MWr take 256 + 256/4 = 320 slots (one of every 5 goes to B).
  const double a = app(o, "a")["max_ns"].get<double>();
  EXPECT_NEAR(a, 320 * kS + 150, 0.01 * (320 * kS + 150));
}

// Issue 9 item 5: the priority policies reprogram TC/VC maps while transfers are in flight.
// Applied at once, a transfer's later posted writes went out on the new VC and passed its
// earlier ones still queued on the old VC downstream (ordering_violations 2 here). A port
// now moves a TC only once its TLPs sent on the old VC have drained (their credits are
// back), holding new ones meanwhile (EgressPort::set_tc_map), so order holds. Host-pushed
// 64 KiB copies to two GPUs on 8 VCs, re-ranked at every arrival and completion.
TEST(PriorityPolicies, RemapsKeepPostedWritesInOrder) {
  const std::string yaml =
      "platform: {include: configs/platforms/seed002_sec24_example.yaml, h2d_mode: push, defaults: {link: {vcs: 8}}}\n"
      "driver: {policy: priority_s}\n"
      "apps:\n"
      "  - {type: stream, gpu: gpu0, size: {fixed: 64KiB}, count: 4}\n"
      "  - {type: stream, gpu: gpu1, size: {fixed: 64KiB}, count: 4}\n";
  SimOutcome o = run_yaml(yaml);
  EXPECT_EQ(o.results["ordering_violations"].get<int>(), 0);
  EXPECT_EQ(o.results["transfers_completed"].get<int>(), 8);
  EXPECT_EQ(o.results["bytes_delivered"].get<int>(), 8 * 65536);
}
