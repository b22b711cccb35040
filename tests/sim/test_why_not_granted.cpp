// "Why not granted" (issue 16, docs/observability.md) on hand-worked timelines. Two GPUs
// behind sw0 each write 16 MWr of 256 B up to the root complex, every link Gen3 x16, credits
// infinite: each TLP occupies a link for T (mwr_ns()), each GPU sends back to back, and a TLP
// is ready at sw0's egress to rc0 130 ns + (n - 1) T after the start (cut-through). gpu0 uses
// TC1 -> VC1, gpu1 TC0 -> VC0.
//
// Strict priority with a starvation guard of 2 at that egress: the grants repeat hi, hi, lo
// (the guard gives VC0 the third turn) for 8 cycles, then gpu1's 8 remaining TLPs go back to
// back. Worked by hand, per requester and reason:
//   gpu1 (VC0) loses both VC1 turns of each cycle: 16 arbitrations, 16 T, "lost to VC1".
//   gpu0 (VC1) loses the guard's turn in cycles 1..7 (in cycle 8 it has nothing left): 7
//     arbitrations, 7 T.
// Neither waits "link busy": each head of 2..16 becomes head when the one before it, its own,
// is granted, and waits only from when that one has left the link (serialisation is not a
// wait: a GPU alone on the link waits 0); heads that arrive later arrive as the link frees.
#include <gtest/gtest.h>
#include "tests/sim/sim_helpers.h"

using namespace arbsim;
using namespace arbsim::test;

namespace {

const std::string kWrites =
    "sim: {time_ns: 3000}\n"
    "apps:\n"
    "  - {name: hi, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 4KiB}, count: 1, tc: 1}\n"
    "  - {name: lo, type: stream, gpu: gpu1, direction: d2h, size: {fixed: 4KiB}, count: 1, tc: 0}\n";

SimOutcome traced(const std::string& uplink, const ObserveOptions& o) {
  const std::string platform = two_gpu_platform(", vcs: 2, credits: {ph: inf, pd: inf}" + uplink, "",
                                                ", vcs: 2, credits: {ph: inf, pd: inf}");
  return simulate(load_scenario_text(platform + kWrites), "", o);
}

struct Expect {
  std::string requester;
  int vc;
  std::string reason;
  uint64_t arbitrations;
  double waited_T;  // in units of T
};

// `slack_ns`: the window's edges sit a few ps off the grants (T is not a whole number of ps).
void expect_exactly(const nlohmann::ordered_json& why, const std::vector<Expect>& expected, double slack_ns = 0) {
  ASSERT_EQ(why.size(), expected.size()) << why.dump(1);
  const double T = mwr_ns();
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const Expect& e = expected[i];
    EXPECT_EQ(why[i]["requester"], e.requester) << i;
    EXPECT_EQ(why[i]["vc"], e.vc) << i;
    EXPECT_EQ(why[i]["reason"], e.reason) << i;
    EXPECT_EQ(why[i]["arbitrations"].get<uint64_t>(), e.arbitrations) << e.reason;
    // results.json rounds to 1 ps; T itself is rounded to the 1 ps kernel tick per TLP.
    EXPECT_NEAR(why[i]["waited_ns"].get<double>(), e.waited_T * T, 0.001 * e.waited_T + 0.0015 + slack_ns) << e.reason;
  }
}

}  // namespace

TEST(WhyNotGranted, StrictPriorityWithAGuardOfTwoIsExplainedTurnByTurn) {
  ObserveOptions o;
  o.on = true;
  o.filter = "sw0->rc0";
  const SimOutcome r = traced(", arbitration_up: {vc_arbiter: {type: strict, starvation_threshold: 2}}", o);
  const auto& arb = arbiter(r, "sw0->rc0");
  ASSERT_TRUE(arb.contains("why_not_granted")) << arb.dump(1);
  expect_exactly(arb["why_not_granted"], {{"gpu0", 1, "starvation guard gave the turn to VC0", 7, 7},
                                          {"gpu1", 0, "lost to VC1 (VC strict priority)", 16, 16}});
  // Only the watched direction has a summary.
  EXPECT_FALSE(arbiter(r, "rc0->sw0").contains("why_not_granted"));
}

// Plain strict priority: gpu1 loses every arbitration while gpu0 has a head (16 of them: T
// apart, gpu0's TLPs arriving exactly as the link frees), then goes, each of its heads
// after the first granted as the one before it leaves the link; gpu0 never waits.
TEST(WhyNotGranted, PlainStrictPriorityStarvesTheLowVcUntilTheHighOneIsDone) {
  ObserveOptions o;
  o.on = true;
  o.filter = "sw0->rc0";
  const SimOutcome r = traced(", arbitration_up: {vc_arbiter: {type: strict}}", o);
  expect_exactly(arbiter(r, "sw0->rc0")["why_not_granted"],
                 {{"gpu1", 0, "lost to VC1 (VC strict priority)", 16, 16}});
}

// A window counts only what happens inside it: [130 + 6T, 130 + 12T) holds cycles 2 and 3
// exactly (grants hi, hi, lo, hi, hi, lo), so each requester's totals are two cycles' worth:
// gpu1 4 arbitrations lost and 4 T; gpu0 2 guard turns and 2 T (its heads 5..8 wait behind
// their own predecessors on the link: no wait).
TEST(WhyNotGranted, AWindowCountsOnlyTheArbitrationsInsideIt) {
  const double T = mwr_ns();
  ObserveOptions o;
  o.on = true;
  o.filter = "sw0->rc0";
  o.from_ns = 130 + 6 * T - 0.002;  // just before the cycle's first grant
  o.to_ns = 130 + 12 * T - 0.002;   // just before the arbitration that starts cycle 4
  const SimOutcome r = traced(", arbitration_up: {vc_arbiter: {type: strict, starvation_threshold: 2}}", o);
  expect_exactly(arbiter(r, "sw0->rc0")["why_not_granted"],
                 {{"gpu0", 1, "starvation guard gave the turn to VC0", 2, 2},
                  {"gpu1", 0, "lost to VC1 (VC strict priority)", 4, 4}},
                 0.005);
}

// A window opening while a head waits: under plain strict priority gpu1's first head waits
// from 130 ns through 16 arbitrations at 130 + kT, losing each to VC1. [130 + 4.5T,
// 130 + 8.5T) holds the arbitrations at 5T..8T: 4 lost, and all 4 T of the window lost to
// VC1 (it read 0.5 T "link busy" up to the first arbitration inside, found by a user trial).
TEST(WhyNotGranted, AWaitAcrossTheWindowsStartKeepsItsReason) {
  const double T = mwr_ns();
  ObserveOptions o;
  o.on = true;
  o.filter = "sw0->rc0";
  o.from_ns = 130 + 4.5 * T;
  o.to_ns = 130 + 8.5 * T;
  const SimOutcome r = traced(", arbitration_up: {vc_arbiter: {type: strict}}", o);
  expect_exactly(arbiter(r, "sw0->rc0")["why_not_granted"], {{"gpu1", 0, "lost to VC1 (VC strict priority)", 4, 4}},
                 0.005);
}

// Without --trace nothing is observed and results.json has no why_not_granted.
TEST(WhyNotGranted, NothingIsObservedWithoutBeingAsked) {
  const SimOutcome r = traced(", arbitration_up: {vc_arbiter: {type: strict}}", ObserveOptions{});
  EXPECT_FALSE(arbiter(r, "sw0->rc0").contains("why_not_granted"));
  EXPECT_EQ(r.trace_json, "");
}

// A requester alone waits 0 at every egress: gpu0 writes 4 KiB up a Gen3 x4 link into sw0 and
// on up a Gen4 x16 link, so each TLP is held at sw0 until its tail can keep up (cut-through
// onto a faster link: eligibility, not a wait) and each head follows its own predecessor onto
// the link (serialisation, not a wait). max_head_wait_ns read 67.2 ns at sw0->rc0 (the held
// tail) and 18.4 ns at the memory port (the predecessor), and 16.6 us on a Gen1 x1 link with
// 4 KiB TLPs, which --detect called starvation.
TEST(HeadWait, ARequesterAloneWaitsNothing) {
  const std::string yaml = two_gpu_platform(", gen: 4", "", ", gen: 3, width: 4") +
                           "apps:\n"
                           "  - {name: w, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 4KiB}, count: 4}\n";
  const SimOutcome o = run_yaml(yaml);
  for (const auto& a : o.results["arbiters"]) EXPECT_EQ(a["max_head_wait_ns"].get<double>(), 0.0) << a["name"];
}

// Two writers under round robin at sw0's uplink (the same VC): the grants alternate, and each
// head, after its own predecessor leaves the link, waits for exactly the other's TLP: T.
TEST(HeadWait, TwoWritersUnderRoundRobinEachWaitOneTlp) {
  const std::string yaml = two_gpu_platform(", credits: {ph: inf, pd: inf}", "", ", credits: {ph: inf, pd: inf}") +
                           "apps:\n"
                           "  - {name: a, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 4KiB}, count: 1}\n"
                           "  - {name: b, type: stream, gpu: gpu1, direction: d2h, size: {fixed: 4KiB}, count: 1}\n";
  const SimOutcome o = run_yaml(yaml);
  EXPECT_NEAR(arbiter(o, "sw0->rc0")["max_head_wait_ns"].get<double>(), mwr_ns(), 0.002);  // was 2 T
}

// The same for a head that arrives while its own predecessor is on the wire (not queued
// behind it at its grant): 4 KiB TLPs pushed from rc0 through sw0 onto a Gen1 x1 link to
// gpu0 (16.6 us each), each arriving long before the one ahead has left. sw0->gpu0 has one
// requester: it waits 0 there (it read 16,452.67 ns, "link busy"). Upstream, rc0->sw0 waits
// for the credits sw0's full buffer holds back: a wait for credits, which counts.
TEST(HeadWait, AHeadArrivingBehindItsOwnPredecessorOnTheWireWaitsNothing) {
  const std::string yaml = "platform:\n"
                           "  name: slow-leaf\n"
                           "  mps: 4096\n"
                           "  h2d_mode: push\n"
                           "  nodes: [{name: rc0, type: root_complex}, {name: sw0, type: switch}, {name: gpu0, type: gpu}]\n"
                           "  links: [{up: rc0, down: sw0, gen: 4, width: 16}, {up: sw0, down: gpu0, gen: 1, width: 1}]\n"
                           "apps:\n"
                           "  - {name: h, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 64KiB}, count: 2}\n";
  const SimOutcome o = run_yaml(yaml);
  EXPECT_EQ(arbiter(o, "sw0->gpu0")["max_head_wait_ns"].get<double>(), 0.0);
}
