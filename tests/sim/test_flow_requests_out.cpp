// A read's requests held back after they went out (docs/architecture.md, "A read's window
// draining"; models/flow/flow_scheduler.cpp): the packet model's behaviour, derived by hand,
// and the fluid's, which now moves the window out at what the data path gives.
#include <gtest/gtest.h>
#include <string>
#include <vector>
#include "models/pcie/link_timing.h"
#include "tests/sim/sim_helpers.h"

namespace flow_requests_out_test {

using namespace arbsim;
using namespace arbsim::test;

namespace {

// gpu0 writes 128 KiB copies one deep to gpu1 in TC1, VC1 above VC0 under strict VC priority
// (every link Gen4 x8, MPS 256, MRRS 512), and reads from host memory in TC0 with 32 tags:
// the reads' MRds leave gpu0 only in the gaps between the copies (from a copy's last TLP to
// its engine's next: that TLP's way to gpu1 and the copy's completion), while the reads'
// data come down other links (rc0 -> sw0 -> gpu0) the writes never use.
SimOutcome reads_between_copies(const char* fidelity, const std::string& reads) {
  return run_yaml(std::string("platform:\n  name: p\n  mps: 256\n  mrrs: 512\n"
                              "  defaults: {link: {gen: 4, width: 8, vcs: 2}}\n"
                              "  arbitration: {vc_arbiter: {type: strict}}\n"
                              "  nodes: [{name: rc0, type: root_complex}, {name: sw0, type: switch},"
                              " {name: gpu0, type: gpu, tags: 32}, {name: gpu1, type: gpu}]\n"
                              "  links: [{up: rc0, down: sw0}, {up: sw0, down: gpu0}, {up: sw0, down: gpu1}]\n"
                              "sim: {fidelity: ") + fidelity + "}\n"
                  "apps:\n"
                  "  - {name: a0, type: peer, gpu: gpu0, peer: gpu1, size: {fixed: 131072}, depth: 1, count: 4, tc: 1}\n"
                  "  - {name: a1, type: stream, gpu: gpu0, direction: h2d, " + reads + "}\n");
}

const char* kShortReads = "size: {fixed: 2048}, depth: 9, count: 10";

// The ten 2 KiB reads (4 requests each) are all queued at 0; the first copy holds their MRds
// back. Its end, at T (a copy's time), opens a gap: 32 tags let 32 MRds out (eight reads'),
// each ~2 ns on the link, and their data come back while the next copy runs; the last two
// reads get their tags back from those and go in the second gap, at 2 T. So the first eight
// end before the second gap and all ten before the third (a user trial, u1294 of
// `scripts/flow-trial --trees --configs 1500`: p50 1.8 us in the packet model).
void expect_a_window_per_gap(const SimOutcome& o) {
  const double t = app(o, "a0")["p50_ns"].get<double>();
  EXPECT_LT(app(o, "a1")["p50_ns"].get<double>(), 2 * t);
  EXPECT_LT(app(o, "a1")["last_done_ns"].get<double>(), 3 * t);
  EXPECT_GT(app(o, "a1")["last_done_ns"].get<double>(), 2 * t);  // not before the second gap
}

}  // namespace

TEST(FlowRequestsOut, AReadBetweenAHigherVcsCopiesSendsATagWindowPerGapInThePacketModel) {
  expect_a_window_per_gap(reads_between_copies("packet", kShortReads));
}

// ... and in the fluid, with nothing to say: each read deferred behind the one before it has
// its requests out once its tags were free and a gap let the requests of the read before it
// pass (the fluid had the reads' p50 at 51.4 us, moving them only for each gap's time, and
// named it, until 2026-11-28).
TEST(FlowRequestsOut, AReadBetweenAHigherVcsCopiesSendsATagWindowPerGapInTheFluidToo) {
  SimOutcome o = reads_between_copies("flow", kShortReads);
  expect_a_window_per_gap(o);
  EXPECT_TRUE(o.results["fidelity_notes"].empty()) << o.results["fidelity_notes"].dump();
}

// One 4 MiB read beside the same copies gains 16 KiB per gap (16 KiB / 13.2 GB/s = 1.24 us;
// 3 gaps, 3.7 us of its ~320 us, 1.2 %; measured: packet 349.7 us, fluid 352.9, 0.9 % apart).
TEST(FlowRequestsOut, ALongReadBetweenAHigherVcsCopiesIsNotNamed) {
  EXPECT_TRUE(reads_between_copies("flow", "size: {fixed: 4MiB}, count: 1").results["fidelity_notes"].empty());
}

namespace {

// gpu0 reads 4 MiB from host memory in TC0 (256 tags, MRRS 512: a 128 KiB window) over Gen3
// x8 links, alone, its data as fast as the links carry CplDs; at 100 us it writes 1 MiB to
// host memory in TC1, which strict VC priority sends ahead of the read's MRds up gpu0's link.
SimOutcome read_then_write_above(const char* fidelity) {
  return run_yaml(std::string("platform:\n  name: drain\n  mps: 256\n  mrrs: 512\n"
                              "  defaults: {link: {gen: 3, width: 8, vcs: 2}}\n"
                              "  arbitration: {vc_arbiter: {type: strict}}\n"
                              "  nodes: [{name: rc0, type: root_complex}, {name: sw0, type: switch}, {name: gpu0, type: gpu}]\n"
                              "  links: [{up: rc0, down: sw0}, {up: sw0, down: gpu0}]\n"
                              "sim: {fidelity: ") + fidelity + "}\n"
                  "apps:\n"
                  "  - {name: r, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 4MiB}, count: 1, tc: 0}\n"
                  "  - {name: w, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 1MiB}, count: 1, tc: 1,"
                  " start_ns: 100000}\n");
}

// By hand: the write's MRd-free minutes D = 1 MiB at the MWr's rate hold every MRd back, but
// the 128 KiB the read had asked for keep coming at the CplD's rate R; so the read ends D less
// 128 KiB / R later than alone (4 MiB / R), give or take a round trip (0.5 %: ~3.8 us).
// (Holding the whole read at once, as the fluid did until 2026-11-28, ends it 16.6 us later:
// 784.3 us against the packet model's 765.6.)
void expect_window_drained(const SimOutcome& o) {
  PcieLinkParams gen3x8;
  gen3x8.width = 8;
  const double rate = tlp_bandwidth_gbps(gen3x8) / 8;
  const double cpl = 4194304.0 / 256 * (256 + tlp_overhead_bytes(TlpType::CplD, gen3x8)) / rate;
  const double write = 1048576.0 / 256 * (256 + tlp_overhead_bytes(TlpType::MWr, gen3x8)) / rate;
  const double window = 131072.0 / 256 * (256 + tlp_overhead_bytes(TlpType::CplD, gen3x8)) / rate;
  EXPECT_NEAR(app(o, "r")["p50_ns"].get<double>(), cpl + write - window, 0.005 * (cpl + write - window));
  EXPECT_NEAR(app(o, "w")["p50_ns"].get<double>(), write, 0.01 * write);
}

}  // namespace

TEST(FlowRequestsOut, AReadsWindowOutKeepsComingWhileAHigherVcHoldsItsRequestsInThePacketModel) {
  expect_window_drained(read_then_write_above("packet"));
}

TEST(FlowRequestsOut, AReadsWindowOutKeepsComingWhileAHigherVcHoldsItsRequests) {
  SimOutcome o = read_then_write_above("flow");
  expect_window_drained(o);
  EXPECT_TRUE(o.results["fidelity_notes"].empty()) << o.results["fidelity_notes"].dump();
}

}  // namespace flow_requests_out_test
