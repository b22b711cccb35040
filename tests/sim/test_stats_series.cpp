// The time series (sim.stats_period_ns; issue 16, docs/results.md "Time series") on the
// hand-worked timeline of test_warmup.cpp: early's 16 MWr cross sw0's uplink in
// [130, 130 + 16 T) ns and its copy completes at ~520 ns; late's the same 1000 ns later.
// Credits are infinite. With a period of 500 ns over 3000 ns:
//   uplink utilization 16 T / 500 in [0, 500) and [1000, 1500), 0 elsewhere;
//   early's throughput 4096 B x 8 / 500 ns = 65.536 Gb/s in [500, 1000), late's in [1500, 2000);
//   nothing queued for the uplink at any sample; its posted data credits "inf".
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include "tests/sim/sim_helpers.h"

using namespace arbsim;
using namespace arbsim::test;

namespace {

const std::string kTwoWrites = two_gpu_platform(", credits: {ph: inf, pd: inf}", "", ", credits: {ph: inf, pd: inf}") +
                               "sim: {time_ns: 3000, stats_period_ns: 500}\n"
                               "apps:\n"
                               "  - {name: early, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 4KiB}, count: 1}\n"
                               "  - {name: late, type: stream, gpu: gpu1, direction: d2h, size: {fixed: 4KiB}, count: 1, "
                               "start_ns: 1000}\n";

// (kind, name, vc) -> value text, per sample time.
using Series = std::map<double, std::map<std::string, std::string>>;

Series parse(const std::string& csv) {
  Series s;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "time_ns,kind,name,vc,value");
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
    if (f.size() == 4) f.push_back("");  // an empty last field
    EXPECT_EQ(f.size(), 5u) << line;
    s[std::stod(f[0])][f[1] + "/" + f[2] + "/" + f[3]] = f[4];
  }
  return s;
}

double num(const Series& s, double t, const std::string& key) { return std::stod(s.at(t).at(key)); }

}  // namespace

TEST(StatsSeries, PacketFiguresPerPeriodAsWorkedByHand) {
  const SimOutcome o = run_yaml(kTwoWrites);
  const Series s = parse(o.series_csv);
  ASSERT_EQ(s.size(), 6u);  // 500, 1000, ..., 3000
  EXPECT_EQ(o.results["series"]["samples"].get<int>(), 6);
  const double u = 16 * mwr_ns() / 500;
  const std::map<double, double> util = {{500, u}, {1000, 0}, {1500, u}, {2000, 0}, {2500, 0}, {3000, 0}};
  const std::map<double, double> early = {{500, 0}, {1000, 65.536}, {1500, 0}, {2000, 0}, {2500, 0}, {3000, 0}};
  const std::map<double, double> late = {{500, 0}, {1000, 0}, {1500, 0}, {2000, 65.536}, {2500, 0}, {3000, 0}};
  for (const auto& [t, v] : util) {
    EXPECT_NEAR(num(s, t, "link_utilization/sw0->rc0/"), v, 1e-5) << t;
    EXPECT_NEAR(num(s, t, "app_throughput_gbps/early/"), early.at(t), 1e-3) << t;
    EXPECT_NEAR(num(s, t, "app_throughput_gbps/late/"), late.at(t), 1e-3) << t;
    EXPECT_EQ(s.at(t).at("queued_tlps/sw0->rc0/"), "0") << t;
    EXPECT_EQ(s.at(t).at("posted_data_credits/sw0->rc0/0"), "inf") << t;
  }
}

// The series is read while the kernel is paused: everything else in results.json is the run's
// without it (the hand-worked figures of test_warmup.cpp's run without a warm-up).
TEST(StatsSeries, ReadingChangesNoResult) {
  const SimOutcome o = run_yaml(kTwoWrites);
  EXPECT_EQ(link(o, "rc0-sw0", "up")["tlps"].get<int>(), 32);
  EXPECT_NEAR(link(o, "rc0-sw0", "up")["utilization"].get<double>(), 32 * mwr_ns() / 3000, 0.001);
  EXPECT_EQ(o.results["sim_time_ns"].get<double>(), 3000);
}

// The flow fidelity has no queues or credits: those kinds are absent, and said so; the
// utilization is the fluid's, 16 T in the first period as in the packet mode.
TEST(StatsSeries, FlowGivesUtilizationAndThroughputOnly) {
  const SimOutcome o = run_yaml(kTwoWrites, {"sim.fidelity=flow"});
  const Series s = parse(o.series_csv);
  EXPECT_EQ(o.results["series"]["kinds"], nlohmann::ordered_json({"link_utilization", "app_throughput_gbps"}));
  for (const auto& [t, row] : s)
    for (const auto& [key, v] : row) EXPECT_EQ(key.rfind("queued", 0), std::string::npos) << key;
  EXPECT_NEAR(num(s, 500, "link_utilization/sw0->rc0/"), 16 * mwr_ns() / 500, 0.01);
}

// With a warm-up of 600 ns the period holding it counts from its end: [500, 1000) reads
// early's completion at ~520 ns no more (it was issued during the warm-up). A sample at 600
// closes [500, 600), which holds it: 4096 B x 8 / 100 ns (that stretch was in no row).
TEST(StatsSeries, AWarmupRestartsThePeriodItEnds) {
  const SimOutcome o = run_yaml(kTwoWrites, {"sim.warmup_ns=600"});
  const Series s = parse(o.series_csv);
  EXPECT_NEAR(num(s, 600, "app_throughput_gbps/early/"), 4096 * 8 / 100.0, 1e-3);
  EXPECT_NEAR(num(s, 1000, "app_throughput_gbps/early/"), 0, 1e-9);
  EXPECT_NEAR(num(s, 2000, "app_throughput_gbps/late/"), 65.536, 1e-3);
}

// A warm-up past the last activity of an unlimited run (late's copy ends at ~1.52 us): the
// run goes on to 5 us and is sampled every period up to it, so [1500, 2000) holds late's
// completion, 4096 B x 8 / 500 ns, and the rest of the periods nothing. (The sample at 5 us
// closed [1500, 5000), a period of 3,500 ns where the docs promise at most P: a trial's
// throughput read over 40 us of a 30 us period.)
TEST(StatsSeries, AWarmupPastAnUnlimitedRunsEndIsSampledEveryPeriod) {
  const SimOutcome o = run_yaml(kTwoWrites, {"sim.time_ns=0", "sim.warmup_ns=5000"});
  const Series s = parse(o.series_csv);
  EXPECT_EQ(s.rbegin()->first, 5000);
  EXPECT_NEAR(num(s, 2000, "app_throughput_gbps/late/"), 4096 * 8 / 500.0, 1e-3);
  for (double t = 2500; t <= 5000; t += 500) EXPECT_EQ(num(s, t, "app_throughput_gbps/late/"), 0) << t;
  EXPECT_EQ(o.results["series"]["samples"].get<int>(), 10);  // 500 .. 5000
}

// An unlimited run samples until nothing is left to happen, then once more at its end, which
// the pauses do not move: it is when late's copy completes (~1.52 us), not the next sample.
TEST(StatsSeries, AnUnlimitedRunSamplesToItsEnd) {
  const SimOutcome o = run_yaml(kTwoWrites, {"sim.time_ns=0"});
  const Series s = parse(o.series_csv);
  const double end = o.results["sim_time_ns"].get<double>();
  EXPECT_EQ(end, o.results["makespan_ns"].get<double>());
  EXPECT_GT(end, 1500);
  EXPECT_LT(end, 2000);
  EXPECT_EQ(s.rbegin()->first, end);
  EXPECT_EQ(s.count(500), 1u);
  EXPECT_EQ(o.results["series"]["samples"].get<int>(), 4);  // 500, 1000, 1500 and the end
}

// A warm-up ending on a sample: the sample closes the period before the restart, so
// [0, 500) still reads early's 16 MWr.
TEST(StatsSeries, AWarmupOnASampleClosesThePeriodBeforeIt) {
  const SimOutcome o = run_yaml(kTwoWrites, {"sim.warmup_ns=500"});
  const Series s = parse(o.series_csv);
  EXPECT_NEAR(num(s, 500, "link_utilization/sw0->rc0/"), 16 * mwr_ns() / 500, 1e-5);
  EXPECT_NEAR(num(s, 1500, "link_utilization/sw0->rc0/"), 16 * mwr_ns() / 500, 1e-5);
}

TEST(StatsSeries, TooManySamplesIsAConfigError) {
  try {
    load_scenario_text(kTwoWrites, {"sim.time_ns=1s", "sim.stats_period_ns=100"});
    ADD_FAILURE() << "10^7 samples accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("sim.stats_period_ns"), std::string::npos) << e.what();
  }
}
