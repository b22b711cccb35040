// What results.json says a link did must stay inside the run (issue 9 item 3): a TLP still
// on the wire at the cut-off is not counted as sent, and the link is busy only up to the
// cut-off, so utilization <= 1 always. A link capped at 0.001 GB/s takes ~280 us per MWr.
#include <gtest/gtest.h>
#include "tests/sim/sim_helpers.h"

using namespace arbsim;
using namespace arbsim::test;

namespace {

const std::string kCapped = two_gpu_platform(", max_up_GBps: 0.001, max_down_GBps: 0.001") +
                            "apps:\n  - {name: w, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 64KiB}, count: 1}\n";

void expect_within_run(const SimOutcome& o) {
  for (const auto& l : o.results["links"]) {
    EXPECT_LE(l["utilization"].get<double>(), 1.0) << l.dump();
    EXPECT_GE(l["utilization"].get<double>(), 0.0) << l.dump();
  }
}

}  // namespace

// Packet: the one MWr on the capped uplink started at ~150 ns and is still on the wire at
// 1 us: the link is busy from then to the end (utilization ~0.85), and nothing was sent.
TEST(LinkStats, PacketTlpStillOnTheWireIsNotCounted) {
  SimOutcome o = run_yaml(kCapped, {"sim.time_ns=1000"});
  expect_within_run(o);
  const auto& up = link(o, "rc0-sw0", "up");
  EXPECT_EQ(up["tlps"].get<int>(), 0);
  EXPECT_EQ(up["bytes"].get<int>(), 0);
  EXPECT_GT(up["utilization"].get<double>(), 0.8);
  EXPECT_LE(up["utilization"].get<double>(), 1.0);
}

// Flow: the copy's flow is capped at 0.001 GB/s: by 1 us its fluid has used the link for
// less than the run; the first TLP (not in the fluid) is counted at most up to the end.
TEST(LinkStats, FlowBusyTimeStaysInsideTheRun) {
  SimOutcome o = run_yaml(kCapped, {"sim.time_ns=1000", "sim.fidelity=flow"});
  expect_within_run(o);
}

// Flow on the default scenario at a 1 us cut-off: its links were 1.039 before.
TEST(LinkStats, FlowDefaultScenarioAtOneMicrosecond) {
  SimOutcome o = simulate(load_scenario("configs/default.yaml", {"sim.time_ns=1000", "sim.fidelity=flow"}));
  expect_within_run(o);
}
