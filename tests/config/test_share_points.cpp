// Where share control by WRR weights acts (platforms/topology/share_points.h): the points on
// hand-drawn platforms, the weights a share gives, and the configurations it refuses (an app
// the controller may slow that no WRR port arbiter separates; the flow fidelity; keys of the
// other mechanism). No SystemC.
#include <gtest/gtest.h>
#include "platforms/topology/share_points.h"
#include "tests/common/wrr_share_platform.h"
#include "tests/config/config_text.h"

using namespace arbsim;
using namespace arbsim::test;

namespace {

const std::string kThreeGpus = three_gpus_wrr("[1, 1, 2, 1, 3]", R"(driver:
  share_control: {kind: aimd, acts_on: pcie, pcie_by: wrr}
apps:
  - {name: high, type: periodic, gpu: gpu0, priority: 2, period_ns: 10us, h2d_bytes: 4KiB, count: 8}
  - {name: low, type: periodic, gpu: gpu1, priority: 1, period_ns: 1s, h2d_bytes: 16MiB, count: 1}
)");

TEST(SharePoints, EachAppIsSteeredAtItsHostDmaEngineSlot) {
  const Scenario s = load_scenario_text(kThreeGpus);
  const std::vector<WeightPoint> p = wrr_share_points(s);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(s.walk[static_cast<std::size_t>(p[0].dir)].from, "cpu0");
  EXPECT_EQ(s.walk[static_cast<std::size_t>(p[0].dir)].to, "sw0");
  EXPECT_EQ(p[0].base, (std::vector<int>{1, 1, 2, 1, 3}));
  using Steer = std::pair<std::string, int>;
  EXPECT_EQ(p[0].steers, (std::vector<Steer>{{"high", 2}, {"low", 3}}));
}

// K = min(100, 65536 / 8) = 100: every weight x 100, low's also x 25 %, high's x 100 %.
TEST(SharePoints, AShareScalesTheSlotsConfiguredWeight) {
  const std::vector<WeightPoint> p = wrr_share_points(load_scenario_text(kThreeGpus));
  EXPECT_EQ(share_weights(p[0], {100, 25}), (std::vector<int>{100, 100, 200, 25, 300}));
  EXPECT_EQ(share_weights(p[0], {100, 0.2}), (std::vector<int>{100, 100, 200, 1, 300}));  // at least 1
  WeightPoint big = p[0];
  big.base = {1000, 1000, 1000, 1000, 1000};  // 65536 / 5000 = 13
  EXPECT_EQ(share_weights(big, {100, 50}), (std::vector<int>{13000, 13000, 13000, 6500, 13000}));
}

TEST(SharePoints, NoneWithoutWrrShareControl) {
  EXPECT_TRUE(wrr_share_points(load_scenario_text(replace(kThreeGpus, ", pcie_by: wrr", ""))).empty());
}

// Host-to-device reads: both GPUs' data leaves cpu0 through its memory port (slot 1).
TEST(SharePoints, ReadsOfAllGpusShareTheMemorySlotAndAreRefused) {
  const std::string e = error_of(replace(kThreeGpus, "  h2d_mode: push\n", ""));
  EXPECT_NE(e.find("bad.yaml:16: driver.share_control: pcie_by: wrr cannot slow app 'low'"), std::string::npos) << e;
  EXPECT_NE(e.find("cpu0 -> sw0: slot 1 carries 2 periodic apps' data"), std::string::npos) << e;
  EXPECT_NE(e.find("sw0 -> gpu1: port arbiter rr, not wrr"), std::string::npos) << e;
}

TEST(SharePoints, NoWrrArbiterOnThePathIsRefused) {
  const std::string e =
      error_of(replace(kThreeGpus, ", arbitration_down: {port_arbiter: {type: wrr, weights: [1, 1, 2, 1, 3]}}", ""));
  EXPECT_NE(e.find("cannot slow app 'low'"), std::string::npos) << e;
  EXPECT_NE(e.find("cpu0 -> sw0: port arbiter rr, not wrr"), std::string::npos) << e;
}

// The top-priority app is never slowed, so it need not be separable.
TEST(SharePoints, AZeroWeightSlotIsNoPointButOnlyTheSlowedAppMustHaveOne) {
  const std::string e = error_of(replace(kThreeGpus, "weights: [1, 1, 2, 1, 3]", "weights: [1, 1, 2, 0, 3]"));
  EXPECT_NE(e.find("cpu0 -> sw0: slot 3 has weight 0"), std::string::npos) << e;
  const Scenario s = load_scenario_text(replace(kThreeGpus, "weights: [1, 1, 2, 1, 3]", "weights: [1, 1, 0, 1, 3]"));
  using Steer = std::pair<std::string, int>;
  EXPECT_EQ(wrr_share_points(s)[0].steers, (std::vector<Steer>{{"low", 3}}));
}

// The flow mode arbitrates by the same weights (models/flow/edge_share.h): the same points.
TEST(SharePoints, TheFlowFidelityHasTheSamePoints) {
  const Scenario s = load_scenario_text(replace(kThreeGpus, "driver:\n", "sim: {fidelity: flow}\ndriver:\n"));
  ASSERT_EQ(wrr_share_points(s).size(), 1u);
  EXPECT_EQ(wrr_share_points(s)[0].dir, wrr_share_points(load_scenario_text(kThreeGpus))[0].dir);
}

TEST(SharePoints, KeysOfTheOtherMechanismAreRefused) {
  std::string e = error_of(replace(kThreeGpus, "acts_on: pcie, ", ""));
  EXPECT_NE(e.find("driver.share_control.pcie_by: pcie_by sets how PCIe shares act; it needs acts_on: pcie"),
            std::string::npos) << e;
  e = error_of(replace(kThreeGpus, "pcie_by: wrr", "pcie_by: wrr, pcie_GBps: 10"));
  EXPECT_NE(e.find("driver.share_control.pcie_GBps: pcie_GBps is the rate of a 100 % share"), std::string::npos) << e;
  e = error_of(replace(kThreeGpus, "pcie_by: wrr", "pcie_by: weights"));
  EXPECT_NE(e.find("driver.share_control.pcie_by"), std::string::npos) << e;
}

// The controller's settings under kind: none changed nothing, silently (found by a user
// trial); their defaults, which config.effective.yaml writes, are accepted.
TEST(SharePoints, ControllerSettingsWithoutTheControllerAreRefused) {
  const std::string none = replace(kThreeGpus, "{kind: aimd, acts_on: pcie, pcie_by: wrr}", "{kind: none, decrease_factor: 0.3}");
  const std::string e = error_of(none);
  EXPECT_NE(e.find("driver.share_control.decrease_factor: decrease_factor sets the AIMD controller, and kind is none"),
            std::string::npos) << e;
  EXPECT_EQ(error_of(replace(none, "decrease_factor: 0.3", "decrease_factor: 0.5, increase_pct: 1, acts_on: sm")), "");
}

}  // namespace
