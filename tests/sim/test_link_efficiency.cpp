// Link efficiency in the packet-level simulator against the pcie-bench model (Neugebauer
// et al. 2018; formulas in docs/pcie-reference.md §2, implemented in models/pcie/link_timing.cpp
// and checked against the published tables in tests/unit/test_link_timing.cpp).
// Each GPU sits on its own root port and streams DMAs of one size back to back (writes:
// MWr; reads: MRd answered by MPS-sized CplDs), as pcie-bench's bandwidth benchmark does.
// Enough DMAs stay queued (512) and tags (768) to cover the bandwidth-delay product.
// Its throughput must equal the model's write/read bandwidth for that size within 0.5 %.
#include <cmath>
#include <gtest/gtest.h>
#include "models/pcie/link_timing.h"
#include "tests/sim/sim_helpers.h"

using namespace arbsim;
using namespace arbsim::test;

namespace {

struct Case {
  int gen, width, mps;
  bool write;
};

const uint64_t kSizes[] = {64, 128, 256, 512, 1024, 2048, 4096, 16384, 65536, 262144, 1048576};

// Every size moves `per_size` bytes (at least one copy).
std::string platform(const Case& c, uint64_t per_size = 4u << 20) {
  std::string y =
      "platform:\n  name: eff\n  mps: " + std::to_string(c.mps) + "\n  mrrs: 512\n"
      "  defaults: {link: {gen: " + std::to_string(c.gen) + ", width: " + std::to_string(c.width) +
      ", latency_ns: 20, credits: {ph: inf, pd: inf, nph: inf, npd: inf}}}\n"
      "  nodes:\n    - {name: rc0, type: root_complex, memory: {bandwidth_GBps: 10000, read_latency_ns: 100}}\n";
  for (std::size_t i = 0; i < std::size(kSizes); ++i)
    y += "    - {name: g" + std::to_string(i) + ", type: gpu, tags: 768}\n";
  y += "  links:\n";
  for (std::size_t i = 0; i < std::size(kSizes); ++i) y += "    - {up: rc0, down: g" + std::to_string(i) + "}\n";
  y += "apps:\n";
  for (std::size_t i = 0; i < std::size(kSizes); ++i) {
    const uint64_t count = std::max<uint64_t>(1, per_size / kSizes[i]);
    y += "  - {name: a" + std::to_string(i) + ", type: stream, gpu: g" + std::to_string(i) +
         ", direction: " + (c.write ? "d2h" : "h2d") + ", size: {fixed: " + std::to_string(kSizes[i]) +
         "}, count: " + std::to_string(count) + ", depth: 512}\n";
  }
  return y;
}

class LinkEfficiency : public ::testing::TestWithParam<Case> {};

TEST_P(LinkEfficiency, MatchesPcieBenchModel) {
  const Case c = GetParam();
  SimOutcome o = run_yaml(platform(c));
  PcieLinkParams p;
  p.gen = c.gen;
  p.width = c.width;
  p.mps = c.mps;
  for (std::size_t i = 0; i < std::size(kSizes); ++i) {
    const double model = c.write ? pciebench_write_gbps(p, kSizes[i]) : pciebench_read_gbps(p, kSizes[i], 512, c.mps);
    const double got = app(o, "a" + std::to_string(i))["throughput_gbps"].get<double>();
    EXPECT_NEAR(got, model, 0.005 * model) << "size " << kSizes[i];
  }
}

std::vector<Case> cases() {
  std::vector<Case> v;
  for (auto [g, w] : {std::pair{3, 8}, {3, 16}, {4, 16}, {5, 16}})
    for (int mps : {128, 256, 512})
      for (bool write : {true, false}) v.push_back({g, w, mps, write});
  return v;
}

std::string name(const ::testing::TestParamInfo<Case>& i) {
  const Case& c = i.param;
  return "Gen" + std::to_string(c.gen) + "x" + std::to_string(c.width) + "_MPS" + std::to_string(c.mps) +
         (c.write ? "_write" : "_read");
}

INSTANTIATE_TEST_SUITE_P(Sweep, LinkEfficiency, ::testing::ValuesIn(cases()), name);

// The flow-level fidelity, writes: back-to-back DMAs of every size may not move more than
// the link carries. Each copy's first TLP is timed as latency, but it still takes its turn on
// the link: a fluid that left it out ran 4 KiB copies at 16/15 of the link (one TLP in 16
// free) and 256-B ones at no cost at all. Same bound as the packet model, 0.5 %, over 1 MiB
// per size (a quarter of the packet test's: the fluid has no TLP-level noise to average).
class LinkEfficiencyFlow : public ::testing::TestWithParam<Case> {};

TEST_P(LinkEfficiencyFlow, WritesMatchPcieBenchModel) {
  const Case c = GetParam();
  SimOutcome o = run_yaml(platform(c, 1u << 20), {"sim.fidelity=flow"});
  PcieLinkParams p;
  p.gen = c.gen;
  p.width = c.width;
  p.mps = c.mps;
  for (std::size_t i = 0; i < std::size(kSizes); ++i) {
    const double model = pciebench_write_gbps(p, kSizes[i]);
    const double got = app(o, "a" + std::to_string(i))["throughput_gbps"].get<double>();
    EXPECT_NEAR(got, model, 0.005 * model) << "size " << kSizes[i];
  }
}

std::vector<Case> flow_cases() {
  std::vector<Case> v;
  for (auto [g, w] : {std::pair{3, 16}, {5, 16}})
    for (int mps : {128, 256}) v.push_back({g, w, mps, true});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Sweep, LinkEfficiencyFlow, ::testing::ValuesIn(flow_cases()), name);

}  // namespace
