// sim.warmup_ns (issue 16, docs/results.md "Warm-up") on a hand-worked timeline. Two GPUs
// behind sw0 each write one 4 KiB copy (16 MWr of 256 B) up to rc0, every link Gen3 x16,
// credits infinite: each MWr occupies a link for T (mwr_ns()) and a lone GPU's MWr n is on
// sw0's uplink in [130 + (n - 1) T, 130 + n T) ns (cut-through: see test_why_not_granted).
//   early (gpu0) issues at 0: its 16 MWr leave the uplink by 130 + 16 T = 445 ns.
//   late  (gpu1) issues at 1000 ns: the same timeline shifted by 1000 ns.
// early's copy is done when its last MWr reaches host memory, ~520 ns. With a warm-up of
// 600 ns and a cut-off at 3000 ns the statistics cover [600, 3000]:
//   early counts nothing (issued during the warm-up); late counts its one copy;
//   the uplink carried late's 16 MWr only: 16 TLPs, 4096 B, busy 16 T, utilization 16 T / 2400;
//   gpu0 is idle for the whole 2400 ns; gpu1's state times add up to 2400 ns.
// Without a warm-up the uplink carries 32 MWr, busy 32 T of 3000 ns.
// A warm-up ending at 130 + 10.5 T cuts early's 11th MWr on the wire: it ends in the window
// and counts (6 of early's TLPs, 5.5 T of busy time), as a TLP on the wire at the cut-off
// does not (finish()).
#include <gtest/gtest.h>
#include "tests/sim/sim_helpers.h"

// Its own namespace: the test programs are unity builds (tests/README.md).
namespace warmup_test {

using namespace arbsim;
using namespace arbsim::test;

namespace {

const std::string kTwoWrites = two_gpu_platform(", credits: {ph: inf, pd: inf}", "", ", credits: {ph: inf, pd: inf}") +
                               "sim: {time_ns: 3000}\n"
                               "apps:\n"
                               "  - {name: early, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 4KiB}, count: 1}\n"
                               "  - {name: late, type: stream, gpu: gpu1, direction: d2h, size: {fixed: 4KiB}, count: 1, "
                               "start_ns: 1000}\n";

double gpu_ns(const SimOutcome& o, int k, const char* key) { return o.results["gpus"][k][key].get<double>(); }

double state_sum(const SimOutcome& o, int k) {
  return gpu_ns(o, k, "copy_ns") + gpu_ns(o, k, "compute_ns") + gpu_ns(o, k, "stalled_ns") + gpu_ns(o, k, "idle_ns");
}

}  // namespace

TEST(Warmup, PacketStatisticsCoverOnlyTheWindow) {
  const SimOutcome o = run_yaml(kTwoWrites, {"sim.warmup_ns=600"});
  const double T = mwr_ns();
  const auto& w = o.results["statistics_window"];
  EXPECT_EQ(w["from_ns"].get<double>(), 600);
  EXPECT_EQ(w["to_ns"].get<double>(), 3000);
  // Apps: early's copy was issued during the warm-up.
  EXPECT_EQ(app(o, "early")["transfers"].get<int>(), 0);
  EXPECT_EQ(app(o, "early")["bytes"].get<int>(), 0);
  EXPECT_EQ(app(o, "late")["transfers"].get<int>(), 1);
  EXPECT_EQ(app(o, "late")["bytes"].get<int>(), 4096);
  // The uplink: late's 16 MWr.
  const auto& up = link(o, "rc0-sw0", "up");
  EXPECT_EQ(up["tlps"].get<int>(), 16);
  EXPECT_EQ(up["bytes"].get<int>(), 4096);
  EXPECT_EQ(up["wire_bytes"].get<int>(), 16 * (256 + 24));
  EXPECT_NEAR(up["utilization"].get<double>(), 16 * T / 2400, 0.001);
  EXPECT_EQ(arbiter(o, "sw0->rc0")["grants"][0].get<int>(), 16);
  // GPUs: state times cover the window exactly; gpu0 did nothing in it.
  EXPECT_NEAR(state_sum(o, 0), 2400, 0.002);
  EXPECT_NEAR(state_sum(o, 1), 2400, 0.002);
  EXPECT_NEAR(gpu_ns(o, 0, "idle_ns"), 2400, 0.001);
  // What stays whole-run is said so, and is.
  EXPECT_EQ(o.results["transfers_completed"].get<int>(), 2);
  EXPECT_EQ(o.results["bytes_delivered"].get<int>(), 8192);
}

// The same run without a warm-up: everything counts, over 3000 ns.
TEST(Warmup, WithoutWarmupTheWholeRunCounts) {
  const SimOutcome whole = run_yaml(kTwoWrites);
  EXPECT_FALSE(whole.results.contains("statistics_window"));
  EXPECT_EQ(app(whole, "early")["transfers"].get<int>(), 1);
  EXPECT_LT(app(whole, "early")["last_done_ns"].get<double>(), 600);  // the timeline above
  EXPECT_EQ(link(whole, "rc0-sw0", "up")["tlps"].get<int>(), 32);
  EXPECT_NEAR(link(whole, "rc0-sw0", "up")["utilization"].get<double>(), 32 * mwr_ns() / 3000, 0.001);
  EXPECT_NEAR(state_sum(whole, 0), 3000, 0.002);
}

// A copy issued after the warm-up counts whole: its latency runs from its issue.
TEST(Warmup, ACopyIssuedAfterTheWarmupCountsWhole) {
  const SimOutcome o = run_yaml(kTwoWrites, {"sim.warmup_ns=600"});
  const auto& late = app(o, "late");
  EXPECT_EQ(late["first_issue_ns"].get<double>(), 1000);
  EXPECT_NEAR(late["p50_ns"].get<double>(), late["last_done_ns"].get<double>() - 1000, 0.001);
}

// A warm-up that ends while early's 11th MWr is on the uplink: it counts, with the part of
// its time that lies in the window.
TEST(Warmup, TlpOnTheWireAtTheEndOfTheWarmupCountsInTheWindow) {
  const double T = mwr_ns();
  const double warmup = 130 + 10.5 * T;
  const SimOutcome o = run_yaml(kTwoWrites, {"sim.warmup_ns=" + std::to_string(warmup)});
  const auto& up = link(o, "rc0-sw0", "up");
  EXPECT_EQ(up["tlps"].get<int>(), 6 + 16);
  EXPECT_EQ(up["bytes"].get<int>(), (6 + 16) * 256);
  EXPECT_NEAR(up["utilization"].get<double>(), (5.5 + 16) * T / (3000 - warmup), 0.001);
  EXPECT_EQ(arbiter(o, "sw0->rc0")["grants"][0].get<int>(), 5 + 16);  // the 11th was granted before
}

// The flow-level fabric windows its statistics alike: the uplink's payload in the window is
// late's copy alone, and the apps count as in the packet mode.
TEST(Warmup, FlowStatisticsCoverOnlyTheWindow) {
  const SimOutcome o = run_yaml(kTwoWrites, {"sim.warmup_ns=600", "sim.fidelity=flow"});
  EXPECT_EQ(app(o, "early")["transfers"].get<int>(), 0);
  EXPECT_EQ(app(o, "late")["transfers"].get<int>(), 1);
  const auto& up = link(o, "rc0-sw0", "up");
  EXPECT_EQ(up["bytes"].get<int>(), 4096);
  EXPECT_NEAR(up["utilization"].get<double>(), 16 * mwr_ns() / 2400, 0.01);
  EXPECT_NEAR(state_sum(o, 1), 2400, 0.002);
}

// A flow still moving at the end of the warm-up: its bytes split between the warm-up and the
// window, so the window holds what was sent after it. early's fluid moves from its issue at
// 0 at the link's payload rate, 256 B per T (its latency is added at its end), so a warm-up
// of 8 T cuts it half-way: the window holds 2048 B of it (within one TLP) and late's 4096 B.
TEST(Warmup, FlowCopyMovingAtTheEndOfTheWarmupSplits) {
  const double T = mwr_ns();
  const SimOutcome o =
      run_yaml(kTwoWrites, {"sim.warmup_ns=" + std::to_string(8 * T), "sim.fidelity=flow"});
  EXPECT_NEAR(link(o, "rc0-sw0", "up")["bytes"].get<int>(), 4096 + 2048, 256);
}

// early's copy, issued at 0, is still finishing at 400 ns: it counts nowhere (not as a
// transfer, nor as an iteration of its stream), though gpu0 copies for the rest of it.
TEST(Warmup, ACopyIssuedInTheWarmupAndEndingAfterItCountsNowhere) {
  const SimOutcome o = run_yaml(kTwoWrites, {"sim.warmup_ns=400"});
  const auto& early = app(o, "early");
  EXPECT_EQ(early["transfers"].get<int>(), 0);
  EXPECT_EQ(early["bytes"].get<int>(), 0);
  EXPECT_EQ(early["iterations"].get<int>(), 0);
  EXPECT_GT(gpu_ns(o, 0, "copy_ns"), 0);
  EXPECT_LT(gpu_ns(o, 0, "copy_ns"), 200);
  EXPECT_EQ(o.results["transfers_completed"].get<int>(), 2);
}

// A warm-up that ends exactly when early's fluid has sent its last byte (16 T from its issue,
// rounded up to the 1 ps tick as the flow fabric schedules it): the copy still completes and
// the run goes on as without a warm-up.
TEST(Warmup, FlowWarmupEndingAsAFlowRunsOutLosesNothing) {
  const double end_ns = std::ceil(16 * mwr_ns() * 1000.0) / 1000.0;
  char w[32];
  std::snprintf(w, sizeof w, "%.3f", end_ns);
  const SimOutcome o = run_yaml(kTwoWrites, {std::string("sim.warmup_ns=") + w, "sim.fidelity=flow"});
  EXPECT_EQ(o.results["transfers_completed"].get<int>(), 2);
  EXPECT_EQ(o.results["transfers_open"].get<int>(), 0);
  EXPECT_EQ(link(o, "rc0-sw0", "up")["bytes"].get<int>(), 4096);  // late's only
}

// An unlimited run whose warm-up outlasts its traffic (late is done by ~1.5 us): the window
// is empty (a link's utilization is null: busy 0 of 0 ns), and makespan_ns still says when
// the traffic ended.
TEST(Warmup, PastTheLastActivityTheWindowIsEmptyAndTheMakespanKept) {
  const SimOutcome o = run_yaml(kTwoWrites, {"sim.time_ns=0", "sim.warmup_ns=5000"});
  EXPECT_EQ(o.results["statistics_window"]["from_ns"].get<double>(), 5000);
  EXPECT_EQ(o.results["statistics_window"]["to_ns"].get<double>(), 5000);
  EXPECT_EQ(app(o, "late")["transfers"].get<int>(), 0);
  EXPECT_TRUE(link(o, "rc0-sw0", "up")["utilization"].is_null());  // 0 / 0: no value
  EXPECT_GT(o.results["makespan_ns"].get<double>(), 1000);
  EXPECT_LT(o.results["makespan_ns"].get<double>(), 2000);
}

// Traffic that outlasts the run: after the warm-up the run still stops at sim.time_ns (not
// sim.time_ns after the warm-up), and the window is [600, 3000].
TEST(Warmup, TheRunStillEndsAtSimTime) {
  const std::string busy = two_gpu_platform() +
                           "sim: {time_ns: 3000, warmup_ns: 600}\n"
                           "apps:\n"
                           "  - {name: long, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 4KiB}, count: 1000}\n";
  const SimOutcome o = run_yaml(busy);
  EXPECT_EQ(o.results["sim_time_ns"].get<double>(), 3000);
  EXPECT_EQ(o.results["statistics_window"]["to_ns"].get<double>(), 3000);
  EXPECT_NEAR(state_sum(o, 0), 2400, 0.002);
}

// A stream kept 8 copies deep fills one Gen3 x16 link with 256-byte MWr, each taking T on
// the wire: its data rate is 256 B x 8 / T (103.95 Gb/s) over the window as over the whole
// run. The copies issued in the window wait behind the 8 issued before it; the rate counts
// the bytes those deliver after the warm-up and runs from its end (it ran from the first
// issue in the window and left those bytes out: 65.7 Gb/s). Depth 1 leaves the link idle
// between copies, so its rate is below the link's. One simulation per test (SystemC).
namespace {
double window_rate(const char* fidelity, const char* depth, double* bytes = nullptr) {
  const std::string stream = "platform:\n"
                             "  name: one-gpu\n"
                             "  nodes: [{name: rc0, type: root_complex}, {name: gpu0, type: gpu}]\n"
                             "  links: [{up: rc0, down: gpu0, gen: 3, width: 16}]\n"
                             "sim: {time_ns: 200000, warmup_ns: 100000}\n"
                             "apps:\n"
                             "  - {name: w, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 64KiB}, "
                             "duration_ns: 200000}\n";
  const SimOutcome o = run_yaml(stream, {std::string("sim.fidelity=") + fidelity, std::string("apps.w.depth=") + depth});
  if (bytes) *bytes = app(o, "w")["bytes"].get<double>();
  return app(o, "w")["throughput_gbps"].get<double>();
}

void expect_link_rate(const char* fidelity, const char* depth) {
  const double link_gbps = 256 * 8 / mwr_ns();
  double bytes = 0;
  const double gbps = window_rate(fidelity, depth, &bytes);
  EXPECT_NEAR(gbps, link_gbps, 0.002 * link_gbps);
  EXPECT_LT(bytes, gbps * 100000 / 8);  // `bytes` stays the copies issued in the window
}
}  // namespace

TEST(Warmup, AStreamsDataRateInTheWindowIsTheLinksAtDepth8) { expect_link_rate("packet", "8"); }
TEST(Warmup, AStreamsDataRateInTheWindowIsTheLinksAtDepth2) { expect_link_rate("packet", "2"); }
TEST(Warmup, AStreamsDataRateInTheWindowIsTheLinksAtDepth8InFlow) { expect_link_rate("flow", "8"); }
TEST(Warmup, AStreamOneCopyDeepLeavesTheLinkIdleBetweenCopies) {
  EXPECT_LT(window_rate("packet", "1"), 0.995 * 256 * 8 / mwr_ns());
}

// The same for a batch app, whose runs the batch run-time moves (not App::copy): 60 runs of
// one 64 KiB D2H copy, issued every 2 us, queue up behind each other on the link, which they
// keep busy: the rate in the window is the link's, less its idle moments (within 2 %; it read
// 25.4 Gb/s, the runs under way at the warm-up's end left out).
TEST(Warmup, ABatchAppsDataRateInTheWindowIsTheLinks) {
  const std::string yaml = "platform:\n"
                           "  name: one-gpu\n"
                           "  nodes: [{name: rc0, type: root_complex}, {name: gpu0, type: gpu}]\n"
                           "  links: [{up: rc0, down: gpu0, gen: 3, width: 16}]\n"
                           "sim: {warmup_ns: 100000}\n"
                           "apps:\n"
                           "  - {name: b, type: batch, method: batch, count: 60, period_ns: 2000, "
                           "streams: [{gpu: gpu0, direction: d2h, bytes: 64KiB}]}\n";
  const SimOutcome o = run_yaml(yaml);
  const double link_gbps = 256 * 8 / mwr_ns();
  EXPECT_NEAR(app(o, "b")["throughput_gbps"].get<double>(), link_gbps, 0.02 * link_gbps);
}

// And for a device whose operations start their DMA long after they are issued: an NVMe
// drive at queue depth 32, 128 KiB reads, 400 us of flash access each, moving them at its own
// 7 GB/s (its Gen3 x16 link is faster): 56 Gb/s in the window as over the run. The reads
// issued during the warm-up whose DMA starts after it count in the rate (it read 48.7).
TEST(Warmup, ADrivesDataRateInTheWindowCountsReadsIssuedBeforeIt) {
  const std::string yaml = "platform:\n"
                           "  name: drive\n"
                           "  nodes: [{name: rc0, type: root_complex}, {name: gpu0, type: gpu}, {name: ssd0, type: nvme, "
                           "bandwidth: 7, queue_depth: 32, io_bytes: 128KiB, access_latency_ns: 400000, ios: 200}]\n"
                           "  links: [{up: rc0, down: gpu0}, {up: rc0, down: ssd0}]\n"
                           "sim: {warmup_ns: 1000000}\n"
                           "apps:\n"
                           "  - {name: g, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 4KiB}, count: 1}\n";
  const SimOutcome o = run_yaml(yaml);
  EXPECT_NEAR(o.results["devices"][0]["throughput_gbps"].get<double>(), 56.0, 0.01 * 56.0);
}

TEST(Warmup, LongerThanTheRunIsAConfigError) {
  EXPECT_THROW(load_scenario_text(kTwoWrites, {"sim.warmup_ns=3000"}), ConfigError);
  try {
    load_scenario_text(kTwoWrites, {"sim.warmup_ns=5000"});
    ADD_FAILURE() << "a warm-up longer than the run was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("sim.warmup_ns"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("shorter than sim.time_ns"), std::string::npos) << e.what();
  }
}

}  // namespace warmup_test
