// Periodic real-time tasks (seed 003 §5.3) and seed 003 §3.4's AIMD controller in their loop,
// on hand-worked timelines: jobs one at a time per task, a miss halving the lower task's SM
// share (blocks dispatched afterwards), a hit giving it one point back, and the same
// controller pacing the lower task's copies (PCIe shares); fixed SM and PCIe shares per app.
#include <gtest/gtest.h>
#include "tests/common/wrr_share_platform.h"
#include "tests/sim/sim_helpers.h"

using namespace arbsim;
using namespace arbsim::test;

namespace {

std::string gpu_with(const std::string& keys, const std::string& driver, const std::string& apps) {
  return "platform:\n"
         "  name: one-gpu\n"
         "  defaults: {link: {gen: 3, width: 16}}\n"
         "  nodes:\n"
         "    - {name: cpu0, type: root_complex}\n"
         "    - {name: gpu0, type: gpu" + keys + "}\n"
         "  links:\n"
         "    - {up: cpu0, down: gpu0}\n" + driver + "apps:\n" + apps;
}

const nlohmann::ordered_json& series(const SimOutcome& o, const std::string& a) {
  return app(o, a)["periodic"]["series"];
}

TEST(Periodic, AloneEveryJobTakesItsKernel) {
  SimOutcome o = run_yaml(gpu_with("", "", "  - {name: t, type: periodic, gpu: gpu0, period_ns: 5ms, deadline_ns: "
                                           "4.5ms, kernel_ns: 4.2ms, count: 10}\n"));
  const auto& p = app(o, "t")["periodic"];
  EXPECT_EQ(p["jobs"], 10);
  EXPECT_EQ(p["deadlines_met"], 10);
  for (const auto& j : p["series"]) EXPECT_DOUBLE_EQ(j[1].get<double>(), 4.2e6);
  EXPECT_DOUBLE_EQ(p["series"][9][0].get<double>(), 45e6);  // released every 5 ms
}

// Kernels of 7 ms every 5 ms: job 2 (released at 5) starts at 7 and ends at 14, job 3
// (released at 10) at 21: responses 7, 9, 11 ms; the deadline (the period) is met once.
// A time-limited run cuts a task whose jobs cannot keep up (a 10 ms kernel every 2 ms,
// deadline 1 ms): at 5 ms, jobs released at 0, 2 and 4 ms are unfinished, and the first two
// are past their deadlines (1 and 3 ms): missed, though not ended (they counted nowhere: 0
// jobs, 0 missed). The one released at 4 ms is due at 5: not past it yet.
TEST(Periodic, AJobPastItsDeadlineAtTheCutOffIsMissed) {
  SimOutcome o = run_yaml(gpu_with("", "", "  - {name: t, type: periodic, gpu: gpu0, period_ns: 2ms, deadline_ns: 1ms, "
                                           "kernel_ns: 10ms, count: 3}\n") +
                          "sim: {time_ns: 5000000}\n");
  const auto& p = app(o, "t")["periodic"];
  EXPECT_EQ(p["jobs"].get<int>(), 0);
  EXPECT_EQ(p["jobs_unfinished"].get<int>(), 3);
  EXPECT_EQ(p["deadlines_met"].get<int>(), 0);
  EXPECT_EQ(p["deadlines_missed"].get<int>(), 2);
}

// The same for a QoS app's copies (deadline_ns per transfer): a 1 MiB copy on a Gen3 x16
// link takes ~81 us; with a 10 us deadline and a cut-off at 50 us it is open and past its
// deadline (missed), where it counted nowhere. The second copy, issued at its start with a
// deadline at 10 us too, is missed as well: 2 of 2.
TEST(Periodic, AQosCopyPastItsDeadlineAtTheCutOffIsMissed) {
  SimOutcome o = run_yaml(gpu_with("", "", "  - {name: q, type: stream, gpu: gpu0, size: {fixed: 1MiB}, count: 2, "
                                           "depth: 2, deadline_ns: 10us}\n") +
                          "sim: {time_ns: 50000}\n");
  EXPECT_EQ(app(o, "q")["deadlines_met"].get<int>(), 0);
  EXPECT_EQ(app(o, "q")["deadlines_missed"].get<int>(), 2);
}

TEST(Periodic, AReleaseDuringAJobWaitsForIt) {
  SimOutcome o = run_yaml(gpu_with("", "", "  - {name: t, type: periodic, gpu: gpu0, period_ns: 5ms, kernel_ns: 7ms, "
                                           "count: 3}\n"));
  const auto& s = series(o, "t");
  EXPECT_DOUBLE_EQ(s[0][1].get<double>(), 7e6);
  EXPECT_DOUBLE_EQ(s[1][1].get<double>(), 9e6);
  EXPECT_DOUBLE_EQ(s[2][1].get<double>(), 11e6);
  EXPECT_EQ(app(o, "t")["periodic"]["deadlines_met"], 0);
}

// 10 SMs. low (priority 1) releases at 0 and 100 ms a 10-block, 10-ms kernel; high
// (priority 2) at 1 and 21 ms a 1-block, 2-ms kernel with a 5-ms deadline. High's first job
// waits for low's blocks (0-10 ms): ends at 12, missed, low's share halves to 50 %. Its
// second runs on free SMs: 21-23, met, low's share 51 %. Low's second job then holds
// floor(0.51 x 10) = 5 SMs: two waves, 20 ms.
TEST(Periodic, AimdHalvesTheLowerTasksSmShareOnAMiss) {
  SimOutcome o = run_yaml(gpu_with(", sms: 10", "driver:\n  share_control: {kind: aimd, acts_on: sm}\n",
                                   "  - {name: high, type: periodic, gpu: gpu0, priority: 2, period_ns: 20ms, "
                                   "deadline_ns: 5ms, kernel_ns: 2ms, blocks: 1, count: 2, start_ns: 1ms}\n"
                                   "  - {name: low, type: periodic, gpu: gpu0, priority: 1, period_ns: 100ms, "
                                   "kernel_ns: 10ms, blocks: 10, count: 2}\n"));
  const auto& h = series(o, "high");
  EXPECT_DOUBLE_EQ(h[0][1].get<double>(), 11e6);
  EXPECT_DOUBLE_EQ(h[1][1].get<double>(), 2e6);
  const auto& l = series(o, "low");
  EXPECT_DOUBLE_EQ(l[0][1].get<double>(), 10e6);
  EXPECT_DOUBLE_EQ(l[1][1].get<double>(), 20e6);
  EXPECT_DOUBLE_EQ(app(o, "low")["periodic"]["share_pct"].get<double>(), 51);
  const auto& changes = app(o, "low")["periodic"]["share_changes"];  // at high's two job ends
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_DOUBLE_EQ(changes[0][0].get<double>(), 12e6);
  EXPECT_DOUBLE_EQ(changes[0][1].get<double>(), 50);
  EXPECT_DOUBLE_EQ(changes[1][0].get<double>(), 23e6);
  EXPECT_DOUBLE_EQ(changes[1][1].get<double>(), 51);
  EXPECT_DOUBLE_EQ(app(o, "high")["periodic"]["share_pct"].get<double>(), 100);  // nothing ranks above it
}

// acts_on: pcie, 100 % = 10 GB/s. low copies 1 MB out at 0 and 10 ms; high's 5-ms kernel
// misses its 1-ms deadline at 5 ms, so low's second copy is paced at 5 GB/s: 100 us, then
// 200 us (plus the copy's flight, < 1 us).
TEST(Periodic, AimdOnPcieSharesPacesTheLowerTasksCopies) {
  SimOutcome o = run_yaml(gpu_with("", "driver:\n  share_control: {kind: aimd, acts_on: pcie, pcie_GBps: 10}\n",
                                   "  - {name: high, type: periodic, gpu: gpu0, priority: 2, period_ns: 10ms, "
                                   "deadline_ns: 1ms, kernel_ns: 5ms, count: 1}\n"
                                   "  - {name: low, type: periodic, gpu: gpu0, priority: 1, period_ns: 10ms, "
                                   "d2h_bytes: 1MB, count: 2}\n"));
  const auto& l = series(o, "low");
  EXPECT_NEAR(l[0][1].get<double>(), 100e3, 1e3);
  EXPECT_NEAR(l[1][1].get<double>(), 200e3, 1e3);
  EXPECT_DOUBLE_EQ(l[1][2].get<double>(), 50);
}

TEST(Periodic, APeriodIsRequired) {
  std::string what;
  try {
    load_scenario_text(gpu_with("", "", "  - {name: t, type: periodic, gpu: gpu0, kernel_ns: 1ms, count: 1}\n"));
  } catch (const ConfigError& e) {
    what = e.what();
  }
  EXPECT_NE(what.find("period_ns"), std::string::npos) << what;
}

}  // namespace

namespace {

// A fixed SM share without a controller: 10 blocks on 5 of 10 SMs, two waves.
TEST(Periodic, AFixedSmShareCapsItsKernels) {
  SimOutcome o = run_yaml(gpu_with(", sms: 10", "", "  - {name: t, type: periodic, gpu: gpu0, period_ns: 50ms, "
                                                    "kernel_ns: 10ms, blocks: 10, count: 1, sm_share_pct: 50}\n"));
  EXPECT_DOUBLE_EQ(series(o, "t")[0][1].get<double>(), 20e6);
}

TEST(Periodic, AFixedSmShareUnderAnSmControllerIsAConfigError) {
  std::string what;
  try {
    load_scenario_text(gpu_with("", "driver:\n  share_control: {kind: aimd}\n",
                                "  - {name: t, type: periodic, gpu: gpu0, period_ns: 5ms, kernel_ns: 1ms, count: 1, "
                                "sm_share_pct: 50}\n"));
  } catch (const ConfigError& e) {
    what = e.what();
  }
  EXPECT_NE(what.find("apps[0].sm_share_pct"), std::string::npos) << what;
}

}  // namespace

namespace {

// A fixed PCIe share without a controller: 1 MB out at 25 % of 10 GB/s = 2.5 GB/s, 400 us
// (plus the copy's flight, < 1 us), where alone it takes 100 us (the test above).
TEST(Periodic, AFixedPcieSharePacesItsCopies) {
  SimOutcome o = run_yaml(gpu_with("", "driver:\n  share_control: {pcie_GBps: 10}\n",
                                   "  - {name: t, type: periodic, gpu: gpu0, period_ns: 5ms, d2h_bytes: 1MB, count: 1, "
                                   "pcie_share_pct: 25}\n"));
  EXPECT_NEAR(series(o, "t")[0][1].get<double>(), 400e3, 1e3);
}

// A 100 % PCIe share under the controller is its own GPU link's rate: a lone task on a Gen4
// x16 gpu1 copies 1 MB out in about 1 MB / (31.5 GB/s x 256 / 280 MWr payload) = 34.7 us
// (the DLLP overhead adds < 10 %), bounded here at 1.2x that. The first GPU's link (Gen1 x1
// gpu0) as the reference paced it over 4.56 ms, never lowered (found by a user trial).
TEST(Periodic, AFullPcieShareOnAFastLinkIsItsOwnLinksRate) {
  const std::string yaml =
      "platform:\n"
      "  nodes: [{name: cpu0, type: root_complex}, {name: gpu0, type: gpu}, {name: gpu1, type: gpu}]\n"
      "  links: [{up: cpu0, down: gpu0, gen: 1, width: 1}, {up: cpu0, down: gpu1, gen: 4, width: 16}]\n"
      "driver: {share_control: {kind: aimd, acts_on: pcie}}\n"
      "apps: [{name: t, type: periodic, gpu: gpu1, period_ns: 1ms, d2h_bytes: 1MB, count: 1}]\n";
  SimOutcome o = run_yaml(yaml);
  EXPECT_LT(series(o, "t")[0][1].get<double>(), 1.2 * 1e6 / (31.508 * 256 / 280));
}

// A lowered share paces lo's copies at the copy engine: with hi's copies on the same engine
// (both H2D, engine 0), they wait behind lo's paced ones, so the controller's lowering delays
// hi, the opposite of what it is for. Named, with both; lo copying D2H (the other engine of
// the GPU's two) is not.
std::string two_tasks(const std::string& lo_dir) {
  return gpu_with("", "driver:\n  share_control: {kind: aimd, acts_on: pcie}\n",
                  "  - {name: lo, type: periodic, gpu: gpu0, period_ns: 500us, " + lo_dir + "_bytes: 1MB, priority: 0, count: 2}\n"
                  "  - {name: hi, type: periodic, gpu: gpu0, period_ns: 500us, h2d_bytes: 1MB, priority: 1, "
                  "deadline_ns: 120us, count: 2, start_ns: 10us}\n");
}

TEST(Periodic, APacedCopyOnAnEngineOthersUseIsNamed) {
  SimOutcome o = run_yaml(two_tasks("h2d"));
  const auto& n = o.results["fidelity_notes"];
  ASSERT_EQ(n.size(), 1u) << n.dump(2);
  EXPECT_EQ(n[0]["setting"], "copies of lo paced at a PCIe share, on a copy engine shared with hi");
  EXPECT_EQ(n[0]["apps"].get<std::vector<std::string>>(), (std::vector<std::string>{"lo", "hi"}));
}

TEST(Periodic, APacedCopyOnAnEngineOfItsOwnIsNotNamed) {
  SimOutcome o = run_yaml(two_tasks("d2h"));
  EXPECT_TRUE(o.results["fidelity_notes"].empty()) << o.results["fidelity_notes"].dump(2);
}

// Each spmd process's copies are paced at its share: two processes one after another, each
// copying 1 MB out at 50 % of 10 GB/s: 200 us each, the second ending at 400 us.
TEST(Spmd, PcieShareCapsEachProcess) {
  SimOutcome o = run_yaml(gpu_with("", "driver:\n  share_control: {pcie_GBps: 10}\n",
                                   "  - {name: p, type: spmd, gpu: gpu0, processes: 2, d2h_bytes: 1MB, "
                                   "pcie_share_pct: 50}\n"));
  const auto& t = app(o, "p")["spmd"]["turnaround_ns"];
  EXPECT_NEAR(t[0].get<double>(), 200e3, 1e3);
  EXPECT_NEAR(t[1].get<double>(), 400e3, 2e3);
}

TEST(Periodic, AFixedPcieShareUnderAPcieControllerIsAConfigError) {
  std::string what;
  try {
    load_scenario_text(gpu_with("", "driver:\n  share_control: {kind: aimd, acts_on: pcie}\n",
                                "  - {name: t, type: periodic, gpu: gpu0, period_ns: 5ms, kernel_ns: 1ms, count: 1, "
                                "pcie_share_pct: 50}\n"));
  } catch (const ConfigError& e) {
    what = e.what();
  }
  EXPECT_NE(what.find("apps[0].pcie_share_pct: driver.share_control (kind: aimd, acts_on: pcie) sets the PCIe shares"),
            std::string::npos) << what;
}

}  // namespace

namespace {

// PCIe shares by WRR weights (driver.share_control pcie_by: wrr). Three GPUs under sw0 with
// host-pushed H2D data: at cpu0 -> sw0 each GPU's host DMA engine is its own WRR requester
// (base weights 1). high (gpu0) misses every deadline with 4-KiB jobs every 10 us, so low's
// share halves 7 times, to the 1 % floor, by ~70 us: low's weight 1 against bulk's 100.
// bulk (gpu2) copies 64 MiB, low 16 MiB, both from 0. The link is work-conserving, so the
// makespan M is the 80 MiB at the link's rate C = 80 MiB / M, whatever the weights. With the
// controller low gets 1/101 of the link while bulk copies: bulk ends at ~(64 MiB / C) x 1.01
// = 0.808 M and low last, at M. Without it (round robin) both move at C/2 until low's 16 MiB
// are in: low ends at 32 MiB / C = 0.4 M.
const std::string kWrrShares = three_gpus_wrr("[1, 1, 1, 1, 1]", R"(driver:
  share_control: {kind: aimd, acts_on: pcie, pcie_by: wrr}
apps:
  - {name: high, type: periodic, gpu: gpu0, priority: 2, period_ns: 10us, deadline_ns: 1ns, h2d_bytes: 4KiB, count: 8}
  - {name: low, type: periodic, gpu: gpu1, priority: 1, period_ns: 1s, h2d_bytes: 16MiB, count: 1}
  - {name: bulk, type: copy_exec, gpu: gpu2, h2d_bytes: 64MiB, iterations: 1}
)");

TEST(Periodic, AimdOnWrrWeightsHoldsTheLowerTaskToItsWeight) {
  SimOutcome o = run_yaml(kWrrShares);
  const double m = o.results["makespan_ns"].get<double>();
  EXPECT_EQ(app(o, "low")["periodic"]["share_changes"].back()[1].get<double>(), 1.0);
  EXPECT_NEAR(series(o, "low")[0][1].get<double>() / m, 1.0, 0.005);
  EXPECT_NEAR(app(o, "bulk")["last_done_ns"].get<double>() / m, 0.8 * 1.01, 0.008);
}

TEST(Periodic, WithoutTheControllerTheWrrLinkSplitsEvenly) {
  std::string yaml = kWrrShares;
  yaml.replace(yaml.find("{kind: aimd, acts_on: pcie, pcie_by: wrr}"), 41, "{kind: none}");
  SimOutcome o = run_yaml(yaml);
  EXPECT_NEAR(series(o, "low")[0][1].get<double>() / o.results["makespan_ns"].get<double>(), 0.4, 0.004);
}

// The flow mode shares the link by the same WRR weights (models/flow/edge_share.h) and the
// controller reloads them as in the packet model: the same hand-worked figures.
TEST(Periodic, AimdOnWrrWeightsHoldsTheLowerTaskToItsWeightFlow) {
  SimOutcome o = run_yaml(kWrrShares, {"sim.fidelity=flow"});
  const double m = o.results["makespan_ns"].get<double>();
  EXPECT_EQ(app(o, "low")["periodic"]["share_changes"].back()[1].get<double>(), 1.0);
  EXPECT_NEAR(series(o, "low")[0][1].get<double>() / m, 1.0, 0.005);
  EXPECT_NEAR(app(o, "bulk")["last_done_ns"].get<double>() / m, 0.8 * 1.01, 0.008);
}

}  // namespace

namespace {

// Two periodic apps on one 10-SM GPU, each a 10-block kernel of 100 us every 200 us: the
// GPU holds one at a time, so whichever goes first decides who waits. Released together
// (hi's start `hi_start`) that order is the simulation's, not a modelled rule.
std::string released_together(const char* hi_start) {
  return gpu_with(", sms: 10", "",
                  "  - {name: lo, type: periodic, gpu: gpu0, period_ns: 200us, kernel_ns: 100us, blocks: 10, count: 3}\n"
                  "  - {name: hi, type: periodic, gpu: gpu0, period_ns: 200us, kernel_ns: 100us, blocks: 10, count: 3, "
                  "start_ns: " + std::string(hi_start) + "}\n");
}

}  // namespace

// Named, with both apps, at the GPU (a user trial found the figures swap with the apps'
// places in the config, with no note);
TEST(Periodic, KernelsOfTwoAppsReleasedTogetherAreATieNamed) {
  SimOutcome o = run_yaml(released_together("0"));
  ASSERT_EQ(o.results["fidelity_notes"].size(), 1u) << o.results["fidelity_notes"].dump(2);
  const auto& n = o.results["fidelity_notes"][0];
  EXPECT_EQ(n["where"], "gpu0");
  EXPECT_EQ(n["apps"], nlohmann::ordered_json::array({"lo", "hi"}));
  EXPECT_NE(n["effect"].get<std::string>().find("first at 0.000 us, 3 times"), std::string::npos) << n.dump();
}

// one released a picosecond later goes second, as timed: no tie.
TEST(Periodic, KernelsReleasedAPicosecondApartAreNoTie) {
  EXPECT_TRUE(run_yaml(released_together("0.001")).results["fidelity_notes"].empty());
}
