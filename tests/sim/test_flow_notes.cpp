// Issue 9 item 2: the flow-level mode shares every link max-min per flow and has no VC or
// port arbitration, so rr and strict used to give byte-identical results without a word.
// Now every setting it cannot represent is listed in results.json `fidelity_notes`.
#include <gtest/gtest.h>
#include "tests/sim/sim_helpers.h"

using namespace arbsim;
using namespace arbsim::test;

namespace {

// Two GPUs on two VCs (TC0 and TC1) through sw0's uplink; `arbitration` is its egress's.
std::string two_tcs(const std::string& arbitration) {
  return two_gpu_platform(", vcs: 2" + arbitration) +
         "sim: {fidelity: flow}\n"
         "apps:\n"
         "  - {name: a, type: stream, gpu: gpu0, direction: d2h, tc: 1, size: {fixed: 64KiB}, count: 2}\n"
         "  - {name: b, type: stream, gpu: gpu1, direction: d2h, tc: 0, size: {fixed: 64KiB}, count: 2}\n";
}

}  // namespace

TEST(FlowNotes, StrictVcArbitrationIsNamed) {
  SimOutcome o = run_yaml(two_tcs(", arbitration_up: {vc_arbiter: {type: strict, starvation_threshold: 8}}"));
  const auto& notes = o.results["fidelity_notes"];
  ASSERT_FALSE(notes.empty());
  bool named = false;
  for (const auto& n : notes)
    named = named || (n["where"] == "sw0->rc0" && n["setting"].get<std::string>().find("strict+starve(8)") != std::string::npos);
  EXPECT_TRUE(named) << notes.dump(2);
}

TEST(FlowNotes, WeightedPortArbitrationIsNamed) {
  SimOutcome o = run_yaml(two_tcs(", arbitration_up: {port_arbiter: {type: wrr, weights: [1, 3, 1]}}"));
  bool named = false;
  for (const auto& n : o.results["fidelity_notes"])
    named = named || (n["where"] == "sw0->rc0" && n["setting"] == "port_arbiter wrr");
  EXPECT_TRUE(named) << o.results["fidelity_notes"].dump(2);
}

// Round-robin everywhere and one TC: nothing the flow mode leaves out is asked for.
TEST(FlowNotes, RoundRobinOneTcHasNone) {
  const std::string yaml = two_gpu_platform() +
                           "sim: {fidelity: flow}\n"
                           "apps:\n  - {name: a, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 64KiB}, count: 2}\n";
  SimOutcome o = run_yaml(yaml);
  EXPECT_TRUE(o.results["fidelity_notes"].empty()) << o.results["fidelity_notes"].dump(2);
}

// The packet mode represents every setting: never a note.
TEST(FlowNotes, PacketModeHasNone) {
  SimOutcome o = run_yaml(two_tcs(", arbitration_up: {vc_arbiter: {type: strict}}"), {"sim.fidelity=packet"});
  EXPECT_TRUE(o.results["fidelity_notes"].empty());
}
