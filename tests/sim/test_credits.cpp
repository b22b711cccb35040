// Flow control bounds throughput: with C posted data credits on the gpu0->sw0 link, at most
// C x 16 B are in flight per credit loop. Hand-worked loop for a 256-B MWr (cut-through,
// docs/architecture.md): its head reaches sw0 after the link latency (20 ns), the switch
// forwards it after 110 ns, freeing its buffer; the UpdateFC leaves after fc_latency_ns
// (500) and flies back over the link (20): loop = 20 + 110 + 500 + 20 = 650 ns.
// Expected throughput = C x 16 B / 650 ns when that is below the link rate (docs/pcie-reference.md §3).
#include <gtest/gtest.h>
#include "tests/sim/sim_helpers.h"

using namespace arbsim;
using namespace arbsim::test;

namespace {

class CreditBound : public ::testing::TestWithParam<int> {};

TEST_P(CreditBound, ThroughputIsCreditsOverLoopLatency) {
  const int credits = GetParam();
  const std::string gpu_link = ", fc_latency_ns: 500, credits: {pd: " + std::to_string(credits) + "}";
  const std::string yaml = two_gpu_platform("", "", gpu_link) +
                           "apps:\n  - {name: w, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 64KiB},"
                           " count: 64}\n";
  SimOutcome o = run_yaml(yaml);
  const double loop_ns = 20 + 110 + 500 + 20;
  const double expected = credits * 16.0 / loop_ns;  // B/ns = GB/s
  ASSERT_LT(expected, 12.0);                          // the bound binds (link ~13 GB/s)
  const double got = app(o, "w")["throughput_gbps"].get<double>() / 8.0;
  EXPECT_NEAR(got, expected, 0.02 * expected) << credits << " credits";
  EXPECT_GT(link(o, "sw0-gpu0", "up")["credit_stall_ns"].get<double>(), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Credits, CreditBound, ::testing::Values(64, 128, 256));

}  // namespace
