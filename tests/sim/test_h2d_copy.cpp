// One GPU under one switch reads S bytes from host memory (H2D by device MRd). Hand-worked
// timeline (cut-through switching, docs/architecture.md): the first completion's head
// reaches the GPU after the MRd's head crosses GPU->sw (20 ns), the switch (110), sw->rc
// (20), the RC crossbar (50) into memory, the memory read (400), then back through the RC
// (50), rc->sw (20), the switch (110) and sw->GPU (20): 800 ns; plus the MRd's 24 B on the
// Gen3 link (24 / TLP_bw = 1.7 ns), which the RC waits out before sending it onto its much
// faster memory port, since a TLP cannot pause mid-way (the memory port's own 24 B / 1000
// GB/s cancel: the tail leaves the crossbar at its arrival + 50). From then on the
// downlinks carry the completions back to back, so the last byte lands at
//   T(S) = 800 ns + 24 B / TLP_bw + (S + ceil(S/256) * 20 B) / TLP_bw,
// TLP_bw the pcie-bench Gen3 x16 TLP bandwidth (14.21 GB/s, docs/pcie-reference.md §2) and
// 20 B the CplD overhead. Checked within 0.1 %.
#include <cmath>
#include <gtest/gtest.h>
#include "tests/sim/sim_helpers.h"

using namespace arbsim;
using namespace arbsim::test;

namespace {

class H2dCopy : public ::testing::TestWithParam<uint64_t> {};

TEST_P(H2dCopy, TimeIsLatencyPlusSizeOverEffectiveBandwidth) {
  const uint64_t s = GetParam();
  const std::string yaml = two_gpu_platform() +
                           "apps:\n  - {name: c, type: copy_exec, gpu: gpu0, h2d_bytes: " + std::to_string(s) +
                           ", kernel_ns: 0, iterations: 1}\n";
  SimOutcome o = run_yaml(yaml);
  const double tlp_bw = 14.21;  // GB/s = B/ns (docs/pcie-reference.md §2, Gen3 x16 MPS 256)
  const double wire = static_cast<double>(s) + std::ceil(s / 256.0) * 20.0;
  const double expected = 800.0 + 24.0 / tlp_bw + wire / tlp_bw;
  const double got = app(o, "c")["max_ns"].get<double>();
  EXPECT_NEAR(got, expected, 0.001 * expected) << "S=" << s;
}

INSTANTIATE_TEST_SUITE_P(Sizes, H2dCopy, ::testing::Values(4096, 65536, 1 << 20, 16 << 20));

}  // namespace
