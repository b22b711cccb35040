// A write whose hold moves back toward its source, leaving a queue that still drains at its
// old rate (fidelity_watch.cpp, moved_back(); docs/architecture.md, "Queues that back up"):
// the packet model's behaviour, bounded by hand, and the fluid's note.
#include <gtest/gtest.h>
#include <string>
#include "tests/sim/sim_helpers.h"

namespace flow_left_queue_test {

using namespace arbsim;
using namespace arbsim::test;

namespace {

// rc0 pushes five 32 KiB copies (all queued at 0) to gpu1 behind a Gen3 x8 link, from a
// Gen3 x16 uplink: held at sw0 -> gpu1, they fill sw0's ingress queue (128 posted TLPs,
// 32 KiB). At 5,141 ns pushes to gpu2 in TC1 start: VC1 above VC0 under strict priority with
// a starvation guard of 2, so rc0 -> sw0 gives gpu1's pushes one turn in three from then on,
// less than gpu1's link drains: their hold moves back to rc0 -> sw0.
SimOutcome pushes_below_a_higher_vc(const char* fidelity) {
  return run_yaml(std::string("platform:\n  name: p\n  h2d_mode: push\n  defaults: {link: {vcs: 2}}\n"
                              "  arbitration: {vc_arbiter: {type: strict, starvation_threshold: 2}}\n"
                              "  nodes: [{name: rc0, type: root_complex}, {name: sw0, type: switch},"
                              " {name: gpu1, type: gpu}, {name: gpu2, type: gpu}]\n"
                              "  links: [{up: rc0, down: sw0, gen: 3, width: 16}, {up: sw0, down: gpu1, gen: 3, width: 8},"
                              " {up: sw0, down: gpu2, gen: 3, width: 16}]\n"
                              "sim: {fidelity: ") + fidelity + "}\n"
                  "apps:\n"
                  "  - {name: a0, type: stream, gpu: gpu1, direction: h2d, size: {fixed: 32768}, depth: 12, count: 5}\n"
                  "  - {name: a2, type: stream, gpu: gpu2, direction: h2d, size: {fixed: 262144}, depth: 3, count: 4,"
                  " tc: 1, start_ns: 5141}\n");
}

}  // namespace

// By 5,141 ns gpu1 has had at least its link's rate for 4,141 ns (less 1 us of latencies);
// from then on what is not yet in sw0's queue comes at a third of the uplink's turns, while
// the 32 KiB queued there still leave at gpu1's link rate, ahead of it. So the last copy ends
// no later than 5,141 + (160 KiB - 32 KiB - that) / (uplink / 3) + 1 us: 30.1 us (a user
// trial, u1752 of `scripts/flow-trial --trees --configs 3000`: 28.2 us in the packet model;
// the fluid, moving the whole rest at the new rate, 35.2 us, p50 34 % apart, unnamed)...
TEST(FlowLeftQueue, AQueueLeftBehindWhenAHoldMovesBackStillDrainsInThePacketModel) {
  SimOutcome o = pushes_below_a_higher_vc("packet");
  const double before = write_bytes_per_ns(3, 8) * (5141 - 1000);
  const double rest = 5.0 * 32768 - 32768 - before;
  EXPECT_LT(app(o, "a0")["last_done_ns"].get<double>(), 5141 + rest / (write_bytes_per_ns(3, 16) / 3) + 1000);
}

// ... which the fluid names for those copies alone.
TEST(FlowLeftQueue, AQueueLeftBehindWhenAHoldMovesBackIsNamed) {
  SimOutcome o = pushes_below_a_higher_vc("flow");
  ASSERT_EQ(o.results["fidelity_notes"].size(), 1u) << o.results["fidelity_notes"].dump(2);
  EXPECT_EQ(o.results["fidelity_notes"][0]["setting"],
            "a copy held back at sw0->gpu1 until a hold nearer its source took over, its queue before sw0->gpu1 still "
            "draining");
  EXPECT_EQ(o.results["fidelity_notes"][0]["apps"].dump(), "[\"a0\"]");
}

}  // namespace flow_left_queue_test
