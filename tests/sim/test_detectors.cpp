// The detectors (issue 16, docs/observability.md "Detectors") on cases built to show one
// effect each, and one built to show none.
#include <gtest/gtest.h>
#include "tests/sim/sim_helpers.h"

using namespace arbsim;
using namespace arbsim::test;

namespace {

SimOutcome detected(const std::string& yaml, double bound_ns = 10000) {
  ObserveOptions o;
  o.detect = true;
  o.starvation_bound_ns = bound_ns;
  return simulate(load_scenario_text(yaml), "", o);
}

const nlohmann::ordered_json& kind(const SimOutcome& o, const char* k) { return o.results["detectors"][k]; }

uint64_t episodes(const SimOutcome& o, const char* k) { return kind(o, k)["episodes"].get<uint64_t>(); }

// slow_fast_push: the TLPs for both GPUs share sw0's FIFO ingress queue from rc0, so a head
// for sw0->gpu0 waits for that slower link while TLPs for gpu1 are ready behind it.
std::string pushed_to_two(const std::string& sw0) {
  return slow_fast_push(sw0, "",
                        "apps:\n"
                        "  - {name: slow, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 256KiB}, count: 1}\n"
                        "  - {name: fast, type: stream, gpu: gpu1, direction: h2d, size: {fixed: 256KiB}, count: 1}\n");
}

// Two GPUs write up to rc0 through sw0: hi (gpu0, TC1) and lo (gpu1, TC0). `uplink` sets the
// rc0-sw0 link, `gpu_links` both GPU links.
std::string two_writers(const std::string& uplink, const std::string& gpu_links, const std::string& hi_size,
                        const std::string& lo_size) {
  return two_gpu_platform(uplink, "", gpu_links) +
         "apps:\n"
         "  - {name: hi, type: stream, gpu: gpu0, direction: d2h, size: {fixed: " + hi_size + "}, count: 1, tc: 1}\n"
         "  - {name: lo, type: stream, gpu: gpu1, direction: d2h, size: {fixed: " + lo_size + "}, count: 1, tc: 0}\n";
}

}  // namespace

// Head-of-line blocking: found at sw0's egress to the slow GPU, fast's TLPs held behind slow's.
TEST(Detectors, HeadOfLineBlockingBehindAFifoIngressIsFound) {
  const SimOutcome o = detected(pushed_to_two(""));
  ASSERT_GT(episodes(o, "head_of_line_blocking"), 0u);
  for (const auto& e : kind(o, "head_of_line_blocking")["listed"]) {
    EXPECT_EQ(e["where"], "sw0->gpu0") << e.dump();
    EXPECT_EQ(e["waiting"]["app"], "fast") << e.dump();
    EXPECT_EQ(e["cause"]["app"], "slow") << e.dump();
    EXPECT_EQ(e["waiting"]["requester"], "rc0") << e.dump();
    EXPECT_NE(e["detail"].get<std::string>().find("TLPs for sw0->gpu1"), std::string::npos) << e.dump();
  }
  // Held behind slow's heads, fast's data moves only as slow's x4 link drains the shared
  // queue: both copies end together (the signature of head-of-line blocking; alone, fast's
  // x16 link would move it 4x faster), and fast is held for nearly all of its copy.
  const double slow_end = app(o, "slow")["last_done_ns"].get<double>();
  const double fast_end = app(o, "fast")["last_done_ns"].get<double>();
  EXPECT_NEAR(fast_end, slow_end, 0.01 * slow_end);
  const double total = kind(o, "head_of_line_blocking")["total_ns"].get<double>();
  EXPECT_GT(total, 0.95 * fast_end);
  EXPECT_LT(total, fast_end);
  EXPECT_EQ(episodes(o, "priority_inversion"), 0u);
}

// Virtual output queues at sw0: no TLP waits behind another egress's head. (fast still ends
// late, 70 us against slow's 79: slow's TLPs fill sw0's ingress buffer and hold the uplink's
// credits, backpressure that is not head-of-line blocking.)
TEST(Detectors, VoqIngressHasNoHeadOfLineBlocking) {
  const SimOutcome o = detected(pushed_to_two(", voq: true"));
  EXPECT_EQ(episodes(o, "head_of_line_blocking"), 0u);
  EXPECT_EQ(episodes(o, "priority_inversion"), 0u);
}

// One VC on the uplink: TC1 and TC0 share it, so hi loses round-robin port arbitration to
// lo, and with 4 MWr of posted data credits (pd: 64) it waits for credits lo's TLPs hold.
TEST(Detectors, PriorityInversionThroughASharedVcAndItsCreditsIsFound) {
  const SimOutcome o = detected(two_writers(", credits: {pd: 64}", "", "16KiB", "16KiB"));
  ASSERT_GT(episodes(o, "priority_inversion"), 0u);
  bool by_credits = false, by_port = false;
  for (const auto& e : kind(o, "priority_inversion")["listed"]) {
    EXPECT_EQ(e["where"], "sw0->rc0") << e.dump();
    EXPECT_EQ(e["waiting"]["app"], "hi") << e.dump();
    EXPECT_EQ(e["waiting"]["tc"], 1) << e.dump();
    EXPECT_EQ(e["cause"]["app"], "lo") << e.dump();
    EXPECT_EQ(e["cause"]["tc"], 0) << e.dump();
    const std::string d = e["detail"];
    by_credits = by_credits || d.find("has no credits on VC0") != std::string::npos;
    by_port = by_port || d.find("lost port arbitration to TC0 on the VC they share") != std::string::npos;
  }
  EXPECT_TRUE(by_credits);
  EXPECT_TRUE(by_port);
  EXPECT_EQ(episodes(o, "head_of_line_blocking"), 0u);
}

// Two VCs, TC1 -> VC1 above TC0 -> VC0 under round robin, credits infinite, short copies:
// heads wait for each other's turn and the busy link, which no detector names.
TEST(Detectors, FairSharingOnSeparateVcsIsNotReported) {
  const SimOutcome o =
      detected(two_writers(", vcs: 2, credits: {ph: inf, pd: inf}", ", vcs: 2, credits: {ph: inf, pd: inf}", "4KiB", "4KiB"));
  EXPECT_EQ(episodes(o, "head_of_line_blocking"), 0u);
  EXPECT_EQ(episodes(o, "priority_inversion"), 0u);
  EXPECT_EQ(episodes(o, "starvation"), 0u);
  // The arbitration did make heads wait: the detectors had something to look at.
  EXPECT_GT(arbiter(o, "sw0->rc0")["max_head_wait_ns"].get<double>(), 0);
}

// Strict priority without a guard: hi's 256 MWr (64 KiB), ready one per T from 130 ns, win
// every arbitration, so lo's first head, ready at 130 ns too, waits 256 T; its next heads
// wait one T each. With a bound of 1 us: one episode, lo's, from 130 ns, 256 T long. hi on the
// higher VC never waits for lo: no inversion.
TEST(Detectors, StarvationBeyondTheBoundIsFoundWithItsTimes) {
  const std::string strict = ", vcs: 2, credits: {ph: inf, pd: inf}, arbitration_up: {vc_arbiter: {type: strict}}";
  const SimOutcome o = detected(two_writers(strict, ", vcs: 2, credits: {ph: inf, pd: inf}", "64KiB", "4KiB"), 1000);
  ASSERT_EQ(episodes(o, "starvation"), 1u) << kind(o, "starvation").dump(1);
  const auto& e = kind(o, "starvation")["listed"][0];
  const double T = mwr_ns();
  EXPECT_EQ(e["where"], "sw0->rc0");
  EXPECT_EQ(e["waiting"]["app"], "lo");
  EXPECT_EQ(e["waiting"]["requester"], "gpu1");
  EXPECT_NEAR(e["from_ns"].get<double>(), 130, 0.001);
  EXPECT_NEAR(e["ns"].get<double>(), 256 * T, 0.001 * 256);  // each T rounds to the 1 ps tick
  EXPECT_FALSE(e["to_end"].get<bool>());
  EXPECT_EQ(episodes(o, "priority_inversion"), 0u);
  EXPECT_EQ(episodes(o, "head_of_line_blocking"), 0u);
}
