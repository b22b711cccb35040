// Latency histograms in results.json (issue 16, docs/results.md): per app (its transfer
// latencies) and per TC over every app's copies, by the TC the driver's policy gave each.
#include <gtest/gtest.h>
#include "tests/sim/sim_helpers.h"

using namespace arbsim;
using namespace arbsim::test;

namespace {

// gpu0 writes 4 copies of 4 KiB with tc 1, gpu1 2 copies with tc 0, one after another.
const std::string kWriters = two_gpu_platform() +
                             "apps:\n"
                             "  - {name: a, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 4KiB}, count: 4, tc: 1}\n"
                             "  - {name: b, type: stream, gpu: gpu1, direction: d2h, size: {fixed: 4KiB}, count: 2, tc: 0}\n";

// The TCs of per_tc and their copy counts.
std::map<int, uint64_t> copies_per_tc(const SimOutcome& o) {
  std::map<int, uint64_t> m;
  for (const auto& e : o.results["latency_histograms"]["per_tc"]) m[e["tc"].get<int>()] = e["copies"].get<uint64_t>();
  return m;
}

}  // namespace

// The static policy keeps each app's tc; each app's histogram holds its transfers, and its
// p50 and max fall in bins it lists.
TEST(LatencyHistograms, PerAppAndPerTcUnderTheStaticPolicy) {
  const SimOutcome o = run_yaml(kWriters);
  EXPECT_EQ(copies_per_tc(o), (std::map<int, uint64_t>{{0, 2}, {1, 4}}));
  for (const char* name : {"a", "b"}) {
    const auto& a = app(o, name);
    uint64_t n = 0;
    bool p50_in = false, max_in = false;
    for (const auto& bin : a["latency_histogram"]) {
      n += bin[2].get<uint64_t>();
      const double lo = bin[0].get<double>(), hi = bin[1].get<double>();
      EXPECT_NEAR(hi / lo, std::pow(10.0, 0.1), 1e-4) << bin.dump();
      p50_in = p50_in || (a["p50_ns"].get<double>() >= lo && a["p50_ns"].get<double>() < hi);
      max_in = max_in || (a["max_ns"].get<double>() >= lo && a["max_ns"].get<double>() < hi);
    }
    EXPECT_EQ(n, a["transfers"].get<uint64_t>()) << name;
    EXPECT_TRUE(p50_in) << name;
    EXPECT_TRUE(max_in) << name;
  }
}

// priority_s gives a copy the TC of seed 000 Eq. 1, 2 x destination GPU + type (0 for a
// write): gpu0's writes TC0, gpu1's TC2, whatever the apps ask.
TEST(LatencyHistograms, PerTcFollowsTheTcThePolicyGave) {
  const SimOutcome o = run_yaml(kWriters, {"driver.policy=priority_s"});
  EXPECT_EQ(copies_per_tc(o), (std::map<int, uint64_t>{{0, 4}, {2, 2}}));
}
