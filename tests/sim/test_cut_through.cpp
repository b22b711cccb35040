// Cut-through onto a faster link (issue 9 item 1). A transmitter cannot pause inside a TLP,
// so a cut-through switch that forwards a TLP from a slow ingress onto a faster egress must
// not start it before its tail can keep up (docs/architecture.md, "Timing of one TLP").
// The model starts it at tail_ready - ser_out (tail through the switch minus the egress
// serialisation), so the egress is busy for exactly ser_out and free for others otherwise.
#include <gtest/gtest.h>
#include "models/pcie/link_timing.h"
#include "tests/sim/sim_helpers.h"

using namespace arbsim;
using namespace arbsim::test;

namespace {

// Payload bytes per ns of a PCIe link direction's TLP rate (Gb/s / 8).
double tlp_gbps(int gen, int width) {
  PcieLinkParams p;
  p.gen = gen;
  p.width = width;
  return tlp_bandwidth_gbps(p) / 8.0;
}

// rc0 -- Gen5 x4 -- s0, and GPUs on s0 with links of the given generations (x4).
std::string mixed_platform(const std::vector<int>& gpu_gens, const std::string& forwarding) {
  std::string y =
      "platform:\n"
      "  name: mixed\n"
      "  defaults: {link: {width: 4, latency_ns: 20}}\n"
      "  nodes:\n"
      "    - {name: rc0, type: root_complex, latency_ns: 50, memory: {bandwidth_GBps: 50, read_latency_ns: 400}}\n"
      "    - {name: s0, type: switch, latency_ns: 110, forwarding: " + forwarding + "}\n";
  for (std::size_t i = 0; i < gpu_gens.size(); ++i) y += "    - {name: gpu" + std::to_string(i) + ", type: gpu}\n";
  y += "  links:\n    - {up: rc0, down: s0, gen: 5}\n";
  for (std::size_t i = 0; i < gpu_gens.size(); ++i)
    y += "    - {up: s0, down: gpu" + std::to_string(i) + ", gen: " + std::to_string(gpu_gens[i]) + "}\n";
  return y;
}

std::string d2h_streams(int gpus) {
  std::string y = "apps:\n";
  for (int i = 0; i < gpus; ++i)
    y += "  - {name: a" + std::to_string(i) + ", type: stream, gpu: gpu" + std::to_string(i) +
         ", direction: d2h, size: {fixed: 1MiB}, depth: 4, duration_ns: 200000}\n";
  return y + "sim: {time_ns: 200000}\n";
}

}  // namespace

// One 256-B D2H copy from a Gen2 x4 GPU through s0 onto the Gen5 x4 uplink, hand-worked:
// the GPU sends the MWr at 0 (280 wire bytes, ser2 = 280 / TLP_bw(Gen2 x4)); its head
// reaches s0 at 20, its tail at 20 + ser2; through the switch (110) the tail is ready at
// 130 + ser2. Onto Gen5 x4 (ser5 = 280 / TLP_bw(Gen5 x4) < ser2) it starts at
// 130 + ser2 - ser5 and ends at 130 + ser2, so its tail reaches rc0 at 150 + ser2; the RC
// (50) sends it onto its memory port (a raw 50 GB/s link, 256 B, faster again) ending at
// 200 + ser2, when the copy completes. (The old rule ended the uplink's transmission at
// the tail's arrival at s0, 20 + ser2, leaving the switch latency out of the tail.)
TEST(CutThrough, SlowToFastHopStartsWhenTheTailCanKeepUp) {
  const std::string yaml = mixed_platform({2}, "cut_through") +
                           "apps:\n  - {name: c, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 256}, count: 1}\n";
  SimOutcome o = run_yaml(yaml);
  const double ser2 = 280.0 / tlp_gbps(2, 4);
  EXPECT_NEAR(app(o, "c")["max_ns"].get<double>(), 200.0 + ser2, 0.002);
  // The uplink was busy for its own serialisation only (utilization is rounded to 0.001).
  const double sim = o.results["sim_time_ns"].get<double>();
  EXPECT_NEAR(link(o, "rc0-s0", "up")["utilization"].get<double>(), 280.0 / tlp_gbps(5, 4) / sim, 0.0005);
}

// The case: GPUs on Gen2 x4, Gen5 x4 and Gen5 x4 links all streaming D2H through s0
// onto a Gen5 x4 uplink. The uplink is saturated, so it must carry its full MWr payload
// rate, TLP_bw(Gen5 x4) x 256/280 (13.3 GB/s), as with store-and-forward; the old rule held
// it busy waiting for Gen2 tails and moved 11.6 GB/s.
void expect_full_uplink_rate(const std::string& forwarding) {
  const double full = tlp_gbps(5, 4) * 256.0 / 280.0;
  SimOutcome o = run_yaml(mixed_platform({2, 5, 5}, forwarding) + d2h_streams(3));
  const auto& up = link(o, "rc0-s0", "up");
  const double rate = up["bytes"].get<double>() / o.results["sim_time_ns"].get<double>();
  EXPECT_NEAR(rate, full, 0.01 * full) << forwarding;
  EXPECT_GT(up["utilization"].get<double>(), 0.99) << forwarding;
}

TEST(CutThrough, SaturatedFastUplinkCarriesItsFullRate) { expect_full_uplink_rate("cut_through"); }

TEST(CutThrough, StoreAndForwardCarriesTheSameRate) { expect_full_uplink_rate("store_and_forward"); }

// Onto a link as fast as the ingress nothing changes: a TLP goes on at head + latency.
TEST(CutThrough, SameSpeedHopForwardsFromTheHead) {
  const std::string yaml = mixed_platform({5}, "cut_through") +
                           "apps:\n  - {name: c, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 256}, count: 1}\n";
  SimOutcome o = run_yaml(yaml);
  const double ser5 = 280.0 / tlp_gbps(5, 4);
  // Head at s0 at 20, on the uplink at 130, tail at rc0 at 150 + ser5; memory port at +50.
  EXPECT_NEAR(app(o, "c")["max_ns"].get<double>(), 200.0 + ser5, 0.002);
}
