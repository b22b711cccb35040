// The flow mode's arbitration on hand-worked timelines (models/flow/edge_share.h), and
// what it says it leaves out (models/flow/fidelity_watch.h), in results.json
// `fidelity_notes`. Two GPUs write 4 MiB each to host memory through sw0's uplink (Gen3 x16
// everywhere); alone a copy takes T, and the uplink is the only shared link.
#include <gtest/gtest.h>
#include <algorithm>
#include "models/pcie/link_timing.h"
#include "tests/sim/sim_helpers.h"

using namespace arbsim;
using namespace arbsim::test;

namespace {

// a (gpu0, TC `tc_a`) and b (gpu1, TC0) on a 2-VC uplink whose egress has `arbitration`.
std::string two_writers(const std::string& arbitration, int tc_a = 1) {
  return two_gpu_platform(", vcs: 2, arbitration_up: " + arbitration) +
         "sim: {fidelity: flow}\n"
         "apps:\n"
         "  - {name: a, type: stream, gpu: gpu0, direction: d2h, tc: " + std::to_string(tc_a) +
         ", size: {fixed: 4MiB}, count: 1}\n"
         "  - {name: b, type: stream, gpu: gpu1, direction: d2h, tc: 0, size: {fixed: 4MiB}, count: 1}\n";
}

}  // namespace

// Strict priority: a's VC1 takes the whole uplink, b's VC0 waits: a ends at T, b at 2T.
TEST(FlowArbitration, StrictPriorityServesTheHigherVcFirst) {
  SimOutcome o = run_yaml(two_writers("{vc_arbiter: {type: strict}}"));
  EXPECT_NEAR(end_of(o, "a") / end_of(o, "b"), 0.5, 0.002);
  EXPECT_TRUE(o.results["fidelity_notes"].empty()) << o.results["fidelity_notes"].dump(2);
}

// A starvation guard of 3 grants b one turn in 4: a moves at 3/4 and ends at 4T/3, when b
// has 1/3 of its bytes; b then ends at 4T/3 + 2T/3 = 2T. a/b = 2/3.
TEST(FlowArbitration, StarvationGuardGivesTheLowerVcOneTurnInXPlusOne) {
  SimOutcome o = run_yaml(two_writers("{vc_arbiter: {type: strict, starvation_threshold: 3}}"));
  EXPECT_NEAR(end_of(o, "a") / end_of(o, "b"), 2.0 / 3.0, 0.002);
}

// WRR port weights 3:1 (sw0's requesters: 0 its uplink port, 1 gpu0, 2 gpu1), one VC: as
// the guard above, a/b = 2/3.
TEST(FlowArbitration, WeightedPortsShareByWeight) {
  SimOutcome o = run_yaml(two_writers("{port_arbiter: {type: wrr, weights: [1, 3, 1]}}", 0));
  EXPECT_NEAR(end_of(o, "a") / end_of(o, "b"), 2.0 / 3.0, 0.002);
}

// Round robin over the VCs: both end together, at 2T.
TEST(FlowArbitration, RoundRobinVcsEndTogether) {
  SimOutcome o = run_yaml(two_writers("{vc_arbiter: {type: rr}}"));
  EXPECT_NEAR(end_of(o, "a") / end_of(o, "b"), 1.0, 0.002);
  EXPECT_TRUE(o.results["fidelity_notes"].empty()) << o.results["fidelity_notes"].dump(2);
}

namespace {

// Host-pushed writes to gpu0 (x4 link, a quarter of the others) and gpu1 (x16) share
// rc0 -> sw0; gpu0's is held back at sw0 -> gpu0, beyond it. `sw0` and `uplink` are
// extra keys of the switch and the rc0-sw0 link.
std::string held_beyond(const std::string& sw0, const std::string& uplink) {
  return slow_fast_push(sw0, uplink,
                        "sim: {fidelity: flow}\n"
                        "apps:\n"
                        "  - {name: slow, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 4MiB}, count: 1}\n"
                        "  - {name: fast, type: stream, gpu: gpu1, direction: h2d, size: {fixed: 4MiB}, count: 1}\n");
}

// The settings of the notes at `where`, in order.
std::vector<std::string> notes_at(const SimOutcome& o, const std::string& where) {
  std::vector<std::string> s;
  for (const auto& n : o.results["fidelity_notes"])
    if (n["where"] == where) s.push_back(n["setting"]);
  return s;
}

// The apps the notes at `where` name, note after note.
std::vector<std::string> apps_at(const SimOutcome& o, const std::string& where) {
  std::vector<std::string> apps;
  for (const auto& n : o.results["fidelity_notes"])
    if (n["where"] == where)
      for (const auto& a : n["apps"]) apps.push_back(a);
  return apps;
}

}  // namespace

// Behind sw0's FIFO ingress with the default (finite) posted credits, fast's TLPs wait in
// sw0's queue from rc0 behind slow's, which the x4 link holds back: the queue takes in only
// what it drains, and rc0's egress gives the two equal turns into it (both come from its
// memory port: round robin), so fast moves at slow's rate and both end together (the packet
// model: 1262.56 and 1262.62 us; the fluid without the queue ended fast at 433.7 us). The
// run names both effects at rc0 -> sw0 as modelled in their steady state only, for the whole
// 1262.5 us the two copies run.
TEST(FlowArbitration, HeadOfLineBlockingAndBackpressureAreModelledAndNamed) {
  SimOutcome o = run_yaml(held_beyond("", ""));
  EXPECT_NEAR(end_of(o, "fast") / end_of(o, "slow"), 1.0, 0.002);
  EXPECT_EQ(notes_at(o, "rc0->sw0"), (std::vector<std::string>{
                                         "FIFO ingress (voq: false) behind a flow held back at sw0->gpu0",
                                         "finite credits behind a flow held back at sw0->gpu0"}));
  const std::string effect = o.results["fidelity_notes"][0]["effect"];
  EXPECT_NE(effect.find("head-of-line blocking modelled in its steady state only"), std::string::npos) << effect;
  EXPECT_NE(effect.find("(first at 0.000 us, 1262."), std::string::npos) << effect;
  // Each note lists the copies it concerns: slow (held) and fast (held up behind it).
  for (const auto& n : o.results["fidelity_notes"])
    EXPECT_EQ(n["apps"].get<std::vector<std::string>>(), (std::vector<std::string>{"slow", "fast"})) << n.dump();
}

// With virtual output queues the credits alone hold fast back: the same equal turns into
// rc0 -> sw0's credits, so again both end together (packet model: 1253.4 and 1262.6 us).
TEST(FlowArbitration, BackpressureThroughCreditsAloneIsModelled) {
  SimOutcome o = run_yaml(held_beyond(", voq: true", ""));
  EXPECT_NEAR(end_of(o, "fast") / end_of(o, "slow"), 1.0, 0.002);
  EXPECT_EQ(notes_at(o, "rc0->sw0"), (std::vector<std::string>{"finite credits behind a flow held back at sw0->gpu0"}));
}

// Virtual output queues remove the head-of-line blocking, not the credits; infinite credits
// leave the overdraw (the packet model's uplink still gives slow half its turns: fast ends
// at 0.65 ms there, against the fluid's 0.43).
TEST(FlowArbitration, VoqAndCreditsChangeWhatIsNamed) {
  SimOutcome o = run_yaml(held_beyond(", voq: true", ", credits: {ph: inf, pd: inf}"));
  EXPECT_EQ(notes_at(o, "rc0->sw0"),
            (std::vector<std::string>{"infinite credits behind a flow held back at sw0->gpu0"}));
}

// A held flow alone on the link before its bottleneck troubles no one: no note.
TEST(FlowArbitration, AHeldFlowAloneIsNotNamed) {
  std::string yaml = held_beyond("", "");
  yaml.erase(yaml.find("  - {name: fast"));
  SimOutcome o = run_yaml(yaml);
  EXPECT_TRUE(o.results["fidelity_notes"].empty()) << o.results["fidelity_notes"].dump(2);
}

// The packet mode represents every setting: never a note.
TEST(FlowArbitration, PacketModeHasNoNotes) {
  SimOutcome o = run_yaml(held_beyond("", ""), {"sim.fidelity=packet"});
  EXPECT_TRUE(o.results["fidelity_notes"].empty());
}

namespace {

// One ingress queue feeding two VCs of the egress beyond: gpu0's D2H write f (TC1, VC1 on
// the uplink) and its H2D read g's MRds (TC2, VC0) share sw0's one queue from gpu0; gpu1's
// write h (TC3, VC1) competes at sw0 -> rc0, whose VC arbiter is strict. `sw0` and
// `gpu_link`: extra keys of the switch and of the GPU links.
std::string queue_of_two_vcs(const std::string& sw0 = "", const std::string& gpu_link = "") {
  return two_gpu_platform(", vcs: 2, arbitration_up: {vc_arbiter: {type: strict}}", sw0, gpu_link) +
         "sim: {fidelity: flow}\n"
         "apps:\n"
         "  - {name: f, type: stream, gpu: gpu0, direction: d2h, tc: 1, size: {fixed: 4MiB}, count: 1}\n"
         "  - {name: g, type: stream, gpu: gpu0, direction: h2d, tc: 2, size: {fixed: 4MiB}, count: 1}\n"
         "  - {name: h, type: stream, gpu: gpu1, direction: d2h, tc: 3, size: {fixed: 4MiB}, count: 1}\n";
}

// The queue's order, by hand: an MRd of g reaching the queue's head loses to h (VC1 above
// VC0) and holds f behind it, so h has the uplink alone and ends at T (its 16,384 MWrs at
// a TLP each, mwr_ns()); then f's MWrs, with g's small MRds between them, take the uplink:
// f ends at 2T plus the MRds' time (8,192 of them, 24 bytes each on the wire against an
// MWr's 280: 8,192 x 24 / (16,384 x 280) = 4.3 % of T), and g's completions, flowing down
// from T on, end after T and before f.
// The packet model: h 322,981 ns, g 641,760, f 659,599 (the fluid split VC1 between f and h,
// both at 2T, and g after them at 3T, until the queue's order was kept in its steady state).
void expect_queue_order(const SimOutcome& o) {
  const double t = 16384 * mwr_ns();
  EXPECT_NEAR(end_of(o, "h") / t, 1.0, 0.01);
  EXPECT_NEAR(end_of(o, "f") / t, 2.043, 0.005);
  EXPECT_GT(end_of(o, "g"), t);
  EXPECT_LT(end_of(o, "g"), end_of(o, "f"));
}

}  // namespace

// A FIFO ingress: the queue takes in only as fast as it drains, so the fluid keeps its order
// (arbitrated_rates.cpp, bound_queue()); the run still names the queue, for its filling.
TEST(FlowArbitration, AQueueFeedingSeveralVcsLeavesInItsOrder) {
  SimOutcome o = run_yaml(queue_of_two_vcs());
  expect_queue_order(o);
  EXPECT_EQ(notes_at(o, "gpu0->sw0"),
            (std::vector<std::string>{"one ingress queue feeding several VCs of sw0->rc0, holding a flow back"}));
  EXPECT_EQ(o.results["fidelity_notes"][0]["apps"].get<std::vector<std::string>>(),
            (std::vector<std::string>{"f", "g", "h"}));
  const std::string effect = o.results["fidelity_notes"][0]["effect"];
  EXPECT_NE(effect.find("queue order modelled in its steady state only"), std::string::npos) << effect;
}

// The hand timeline is the packet model's.
TEST(FlowArbitration, AQueueFeedingSeveralVcsLeavesInItsOrderInThePacketModel) {
  expect_queue_order(run_yaml(queue_of_two_vcs(), {"sim.fidelity=packet"}));
}

// Virtual output queues: the queue to sw0 -> rc0 is one FIFO of every credit class
// (models/pcie/switch.cpp), and g's MRds fill its non-posted credits: the same order.
TEST(FlowArbitration, AVirtualOutputQueueFeedingSeveralVcsLeavesInItsOrder) {
  SimOutcome o = run_yaml(queue_of_two_vcs(", voq: true"));
  expect_queue_order(o);
}

// With infinite non-posted credits on the GPU links g's MRds fill nothing, but f's writes
// fill the posted ones: they wait behind g's MRds at the queue's head, and the queue backs up
// all the same (packet model: h 322,981 ns, g 641,760, f 659,625).
TEST(FlowArbitration, AVirtualOutputQueueAnotherFlowFillsLeavesInItsOrder) {
  SimOutcome o = run_yaml(queue_of_two_vcs(", voq: true", ", credits: {nph: inf}"));
  expect_queue_order(o);
}

// With every credit of the GPU links infinite nothing fills the queue in the fluid, which lets
// f pass g's MRds (f and h at 2T, g at 3T), and says so. (The packet model: h alone at T, f at
// 2T, and g at 3T, its later MRds behind the whole of f queued at sw0.)
TEST(FlowArbitration, AVirtualOutputQueueNothingFillsIsNamedAsNotModelled) {
  SimOutcome o = run_yaml(queue_of_two_vcs(", voq: true", ", credits: {nph: inf, ph: inf, pd: inf}"));
  const std::vector<std::string> notes = notes_at(o, "gpu0->sw0");
  EXPECT_NE(std::find(notes.begin(), notes.end(),
                      "one virtual output queue feeding several VCs of sw0->rc0, holding a flow back, that no flow fills"),
            notes.end());
  for (const auto& n : o.results["fidelity_notes"]) {
    if (n["setting"].get<std::string>().rfind("one virtual output queue", 0) == 0) {
      EXPECT_EQ(n["effect"].get<std::string>().rfind("queue order not modelled", 0), 0u) << n.dump();
    }
  }
}

// Survey seed 30165: gpu2's peer writes t4 (TC0) are stopped behind gpu1's push t5 in sw1's
// FIFO ingress from rc0 until t5 ends, and back up through rc0 into sw0's FIFO from gpu2,
// where gpu2's read t1's requests (TC4, the same VC0 on gpu2's 4-VC link) wait behind them.
// An ordering check: t1 cannot end before t5 does (packet model: t5 1,774.9 us, t1 1,875.2
// us; the fluid, taking t4's backlog at its share of the link before the queue instead of its
// rate in it, ended t1 at 139.6 us).
TEST(FlowArbitration, AFlowStoppedInAQueueBacksUpTheQueuesBeforeIt) {
  SimOutcome o = simulate(load_scenario("tests/data/regress/survey30165.yaml", {}));
  EXPECT_GT(end_of(o, "t1"), end_of(o, "t5"));
}

// Survey seed 30010 (every switch with virtual output queues): gpu2's read t0 (TC5) has its
// requests held at sw1 -> sw0, stopped in sw0's queue toward rc0 behind gpu0's writes t1; its
// window of requests fills the queues nearest that hold (sw0's, then sw1's), and none is left
// for sw2's queue from gpu2 toward sw1, where gpu2's peer write t5, in the same VC there, passes: t5 runs at its link's pace, T5 = its TLPs at a Gen3 x4 link's
// TLP rate, within 1 % (packet model 1,933.5 us; counting the whole window in every queue up
// the path, the fluid held t5 behind the requests at sw2 and ended it at 4,065.7 us).
TEST(FlowArbitration, AReadsWindowFillsTheQueuesNearestItsHoldFirst) {
  SimOutcome o = simulate(load_scenario("tests/data/regress/survey30010.yaml", {}));
  PcieLinkParams gen3x4;
  gen3x4.width = 4;
  const double t5 = 6393856.0 / 256 * (256 + 24) / (tlp_bandwidth_gbps(gen3x4) / 8);
  EXPECT_NEAR(end_of(o, "t5") / t5, 1.0, 0.01);
}

namespace {

// Survey seed 30117, trimmed to its two apps that meet: gpu0's peer write t0 to gpu2 is held
// by gpu2's Gen2 x4 link and backs up into the three queues on gpu0's way up (sw1's and
// sw0's virtual output queues towards rc0, rc0's FIFO), each holding 128 of its MWrs (128
// posted header credits); gpu0's read t5 (256 tags of MRRS 256 B) sends its MRds the same
// way, so each MRd waits in all three behind those writes. By Little's law the 256 tags
// spread over the three queues as the time spent in each: 85 1/3 MRds in each, leaving
// with 128 MWrs of t0: t5 moves 256 x 256 B per 384 of t0's 128 B MWrs, each at gpu2's link
// pace (MWr of 128 + 24 wire bytes). The fluid had counted the whole window in every queue
// (capped at its 128 non-posted credits): one MRd per MWr, and t5 took 2,534 us. By hand
// 3,799.8 us; the packet model 3,872.4 (+1.9 %), the fluid 3,800.8 (+0.03 %).
double spread_read_time() {
  PcieLinkParams gen2x4;
  gen2x4.gen = 2;
  gen2x4.width = 4;
  gen2x4.mps = 128;
  const double mwr_per_ns = tlp_bandwidth_gbps(gen2x4) / 8 / (128 + 24);
  return 7409664.0 / (256.0 * 256 * mwr_per_ns / (3 * 128));
}

void expect_spread_read(const SimOutcome& o) {
  EXPECT_NEAR((end_of(o, "t5") - 185979) / spread_read_time(), 1.0, 0.03);
  EXPECT_GT(end_of(o, "t0"), end_of(o, "t5"));  // t0 runs throughout
}

}  // namespace

TEST(FlowArbitration, AReadsWindowIsSpreadOverTheQueuesItWaitsIn) {
  expect_spread_read(simulate(load_scenario("tests/data/regress/survey30117.yaml", {})));
}

// The hand timeline is the packet model's.
TEST(FlowArbitration, AReadsWindowIsSpreadOverTheQueuesItWaitsInInThePacketModel) {
  expect_spread_read(simulate(load_scenario("tests/data/regress/survey30117.yaml", {"sim.fidelity=packet"})));
}

namespace {

// tests/data/regress/read_behind_writes_in_three_queues.yaml: gpu2's peer write w (2 MiB) is
// held by gpu0's Gen1 x1 link, and its MWrs back up into sw3's FIFO, sw1's virtual output
// queue and rc0's FIFO, 128 in each (128 posted header credits). gpu2's read r (4 MiB, 256
// tags of MRRS 1 KiB, from 20 us) sends its MRds the same way: each waits behind 128 MWrs
// in all three queues, so by Little's law its 256 tags spread 85 1/3 to a queue, and r moves
// 256 KiB per 384 MWrs of w at gpu0's link pace (MWr 256 + 24 wire bytes): by hand 7,201 us
// to its end. The fluid had r back up in sw3's FIFO as if its window filled it (the queue
// nearest the requester, before the one holding r), counted its window over the other two
// alone, one MRd per MWr, and ended r at 4,823 us (34.6 % early). The packet model: 7,369.2
// us (+2.3 %); the fluid now 7,319.3 (+1.6 %).
double read_behind_writes_end_ns() {
  PcieLinkParams gen1x1;
  gen1x1.gen = 1;
  gen1x1.width = 1;
  const double mwr_per_ns = tlp_bandwidth_gbps(gen1x1) / 8 / (256 + 24);
  return 20000 + 4194304.0 / (256.0 * 1024 * mwr_per_ns / (3 * 128));
}

void expect_read_behind_writes(const SimOutcome& o) {
  EXPECT_NEAR(end_of(o, "r") / read_behind_writes_end_ns(), 1.0, 0.03);
  EXPECT_GT(end_of(o, "w"), end_of(o, "r"));  // w runs throughout
}

}  // namespace

TEST(FlowArbitration, AReadBackedUpBehindWritesSpreadsItsWindowOverEveryQueue) {
  expect_read_behind_writes(simulate(load_scenario("tests/data/regress/read_behind_writes_in_three_queues.yaml", {})));
}

// The hand timeline is the packet model's.
TEST(FlowArbitration, AReadBackedUpBehindWritesSpreadsItsWindowOverEveryQueueInThePacketModel) {
  expect_read_behind_writes(
      simulate(load_scenario("tests/data/regress/read_behind_writes_in_three_queues.yaml", {"sim.fidelity=packet"})));
}

namespace {

// Two reads fill rc0 -> sw0: `big` of 8 MiB and `other` of `size`.
std::string two_reads(const char* size) {
  return two_gpu_platform() +
         "sim: {fidelity: flow}\n"
         "apps:\n"
         "  - {name: big, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 8MiB}, count: 1}\n"
         "  - {name: other, type: stream, gpu: gpu1, direction: h2d, size: {fixed: " + std::string(size) + "}, count: 1}\n";
}

}  // namespace

// A read's tag window (256 tags x 512 B = 128 KiB) bursts onto rc0 -> sw0, which two reads
// fill: named where the other read is under 33 windows (1 MiB: the burst is 12.5 % of it)...
TEST(FlowArbitration, AReadsBurstOntoASmallSharerIsNamed) {
  SimOutcome o = run_yaml(two_reads("1MiB"));
  EXPECT_EQ(notes_at(o, "rc0->sw0"), (std::vector<std::string>{"a read's tag window bursting onto the saturated rc0->sw0"}));
  EXPECT_EQ(o.results["fidelity_notes"][0]["apps"].get<std::vector<std::string>>(),
            (std::vector<std::string>{"big", "other"}));
}

// ... not where both are large (8 MiB each: 1.6 %).
TEST(FlowArbitration, AReadsBurstOntoALargeSharerIsNotNamed) {
  SimOutcome o = run_yaml(two_reads("8MiB"));
  EXPECT_TRUE(o.results["fidelity_notes"].empty()) << o.results["fidelity_notes"].dump(2);
}

namespace {

// gpu0's D2H engine runs a (TC0) then b (TC1, from 1 us: queued behind a); gpu1's w (TC0)
// shares the uplink, whose VC arbiter is strict (`uplink`: extra keys of rc0 - sw0).
std::string engine_successor(const std::string& w_size, const std::string& gpu_link = ", vcs: 2") {
  return two_gpu_platform(", vcs: 2, arbitration_up: {vc_arbiter: {type: strict}}", "", gpu_link) +
         "sim: {fidelity: flow}\n"
         "apps:\n"
         "  - {name: a, type: stream, gpu: gpu0, direction: d2h, tc: 0, size: {fixed: 4MiB}, count: 1}\n"
         "  - {name: b, type: stream, gpu: gpu0, direction: d2h, tc: 1, size: {fixed: 4MiB}, count: 1, start_ns: 1000}\n"
         "  - {name: w, type: stream, gpu: gpu1, direction: d2h, tc: 0, size: {fixed: " + w_size + "}, count: 1}\n";
}

}  // namespace

// a shares VC0 of the uplink with w, so its TLPs leave gpu0 faster than the uplink takes
// them and queue at sw0. When its data has left the engine, b starts in VC1, which strict
// priority serves first: a's queued tail waits for all of b. The packet model ends a after
// b (968.5 us), the fluid at 645.7 us when its data is through; the run names it, for a and b.
TEST(FlowArbitration, AnOvertakenTailIsNamed) {
  SimOutcome o = run_yaml(engine_successor("16MiB"));
  EXPECT_EQ(notes_at(o, "gpu0->sw0"),
            (std::vector<std::string>{"a copy that ended held back at sw0->rc0, its engine's next in another VC"}));
  EXPECT_EQ(o.results["fidelity_notes"][0]["apps"].get<std::vector<std::string>>(), (std::vector<std::string>{"a", "b"}));
}

// The GPU links' VC arbiters strict too: b goes ahead of a's tail before the uplink where it
// is held, and the fluid holds a until its tail can leave sw0 (FlowFabric::overtaken_tail()).
// Hand timeline, T = 4 MiB at the uplink's TLP rate: a and w share the uplink's VC0 by its
// two ports until a's data has left gpu0 at 2T; b then takes the whole uplink until 3T, and
// a's tail leaves after it. a ends with b, within 1 %, at 3T within 1 % (the fluid had ended
// a at 2T). (A higher VC at the hold alone, as in the test above, makes no tail:
// FlowFabric::overtaken_tail() says why.)
const char* kStrictGpuLinks = ", vcs: 2, arbitration_up: {vc_arbiter: {type: strict}}";

TEST(FlowArbitration, AnOvertakenTailEndsAfterWhatOvertookIt) {
  SimOutcome o = run_yaml(engine_successor("16MiB", kStrictGpuLinks));
  const double t = 4194304.0 / 256 * (256 + 24) / (tlp_bandwidth_gbps(PcieLinkParams{}) / 8);
  EXPECT_NEAR(end_of(o, "a") / end_of(o, "b"), 1.0, 0.01);
  EXPECT_NEAR(end_of(o, "a") / (3 * t), 1.0, 0.01);
}

// The same in the packet model: the hand timeline is its.
TEST(FlowArbitration, AnOvertakenTailEndsAfterWhatOvertookItInThePacketModel) {
  SimOutcome o = run_yaml(engine_successor("16MiB", kStrictGpuLinks), {"sim.fidelity=packet"});
  const double t = 4194304.0 / 256 * (256 + 24) / (tlp_bandwidth_gbps(PcieLinkParams{}) / 8);
  EXPECT_NEAR(end_of(o, "a") / end_of(o, "b"), 1.0, 0.01);
  EXPECT_NEAR(end_of(o, "a") / (3 * t), 1.0, 0.01);
}

namespace {

// gpu0's engine runs a1 (TC0, 4 MiB), b (TC1, 64 KiB, overtaking a1's tail) and a2 (TC0,
// 4 MiB, queued behind that tail) beside gpu1's w, with 1,024 posted credits at sw0 (a
// 256 KiB tail).
std::string tail_then_follower() {
  return two_gpu_platform(", vcs: 2, arbitration_up: {vc_arbiter: {type: strict}}", "",
                          ", vcs: 2, arbitration_up: {vc_arbiter: {type: strict}}, credits: {ph: 1024, pd: 16384}") +
         "sim: {fidelity: flow}\n"
         "apps:\n"
         "  - {name: a1, type: stream, gpu: gpu0, direction: d2h, tc: 0, size: {fixed: 4MiB}, count: 1}\n"
         "  - {name: b, type: stream, gpu: gpu0, direction: d2h, tc: 1, size: {fixed: 64KiB}, count: 1, start_ns: 1000}\n"
         "  - {name: a2, type: stream, gpu: gpu0, direction: d2h, tc: 0, size: {fixed: 4MiB}, count: 1, start_ns: 2000}\n"
         "  - {name: w, type: stream, gpu: gpu1, direction: d2h, tc: 0, size: {fixed: 16MiB}, count: 1}\n";
}

// T: 4 MiB at the uplink's TLP rate. a1 and w share the uplink's VC0 by port (a1 at half);
// a1's engine is done when all but its 256 KiB queued at sw0 have arrived, b then takes the
// whole uplink for T/64, and a1's tail leaves, at half again, ahead of a2 in sw0's queue: a1
// ends at 2T + T/64 (T/8 earlier, at half, plus T/8 for the tail), 650.78 us: within 0.2 %
// (packet model 650,786 ns, the fluid 650,785; moving the tail's 256 KiB as a flow sharing
// the uplink with a2 took a quarter: 731,300 ns; with no tail, the fluid ended a1 at 2T,
// 645,741 ns).
void expect_tail_before_follower(const SimOutcome& o) {
  const double t = 4194304.0 / 256 * (256 + 24) / (tlp_bandwidth_gbps(PcieLinkParams{}) / 8);
  EXPECT_NEAR(end_of(o, "a1") / (2 * t + t / 64), 1.0, 0.002);
  EXPECT_GT(end_of(o, "a2"), end_of(o, "a1"));
}

}  // namespace

// A copy that queues behind an overtaken tail waits for it: in the fluid, a1's marker gets a
// share at the hold once b has gone, and a1 is due then (FlowFabric::overtaken_tail()).
TEST(FlowArbitration, ACopyBehindAnOvertakenTailWaitsForIt) { expect_tail_before_follower(run_yaml(tail_then_follower())); }

// The hand timeline is the packet model's.
TEST(FlowArbitration, ACopyBehindAnOvertakenTailWaitsForItInThePacketModel) {
  expect_tail_before_follower(run_yaml(tail_then_follower(), {"sim.fidelity=packet"}));
}

// Without a2, a1's tail drains beside w after b: a1 still ends at 2T + T/64, and w, which the
// uplink carries whenever it has room, ends when the uplink has moved all four copies' bytes
// once, at 5T + T/64 (1,619.4 us), both within 0.2 % (packet model 650,786 and 1,619,149 ns;
// moving the tail's 256 KiB as a flow of their own, the fluid moved them twice: a1 690,952 ns
// and w 1,639,320).
TEST(FlowArbitration, AnOvertakenTailTakesNoLinkTimeTwice) {
  std::string yaml = tail_then_follower();
  yaml.erase(yaml.find("  - {name: a2"), yaml.find("  - {name: w") - yaml.find("  - {name: a2"));
  SimOutcome o = run_yaml(yaml);
  const double t = 4194304.0 / 256 * (256 + 24) / (tlp_bandwidth_gbps(PcieLinkParams{}) / 8);
  EXPECT_NEAR(end_of(o, "a1") / (2 * t + t / 64), 1.0, 0.002);
  EXPECT_NEAR(end_of(o, "w") / (5 * t + t / 64), 1.0, 0.002);
}

// Survey seed 30119: gpu2's D2H write t0 (TC0) is held at sw0 -> rc0 behind its own peer
// write t3 (TC4, the engine's next), stopped at rc0's FIFO from sw0 behind a strict root
// port; t3's higher VC at gpu2's strict VC arbiter, then its higher ingress VC at sw0, go
// first, and t0's tail queued at sw0 leaves after all of t3: t0 ends with t3, within 1 %
// (packet model: 3,973.8 and 3,973.1 us; the fluid had ended t0 at 300.1 us, 8 % of t3's).
TEST(FlowArbitration, AnOvertakenTailWaitsForTheWholeOvertaker) {
  SimOutcome o = simulate(load_scenario("tests/data/regress/survey30119.yaml", {}));
  EXPECT_NEAR(end_of(o, "t0") / end_of(o, "t3"), 1.0, 0.01);
}

// Trees trial u1607: gpu0's 8 KiB d2h writes (a3, 32 TLPs each, 13 deep) are held at
// sw0 -> rc0 and back up sw0's ingress queue from gpu0, where its reads' MRds (a2) wait too.
// The fluid weighs the writes' class there by one copy's 32 TLPs against 128 posted credits
// (the packet model passed 85 MRds to 90 MWrs per 5 us, the fluid 26.2 to 11.6 per us, and
// a3's median latency came out 54 % late, named by nothing): now named, for both and for
// the copies sharing the uplink with them.
TEST(FlowArbitration, AStreamOfShortWritesInAQueueBesideReadsIsNamed) {
  SimOutcome o = simulate(load_scenario("tests/data/regress/trees1607.yaml", {}));
  const std::string setting =
      "a stream of writes, each of fewer TLPs than the credits it fills, in one ingress queue beside another "
      "credit class, behind a flow held back at sw0->rc0";
  ASSERT_EQ(notes_at(o, "gpu0->sw0"), (std::vector<std::string>{setting}));
  EXPECT_EQ(o.results["fidelity_notes"][0]["apps"].get<std::vector<std::string>>(),
            (std::vector<std::string>{"a0", "a1", "a2", "a3"}));
}

// Without w, a is alone on the uplink, held at gpu0's link and the uplink alike (equal
// links: a tie): it reaches sw0 no faster than it leaves, nothing queues, nothing is named.
TEST(FlowArbitration, ACopyHeldEquallyAlongItsWayLeavesNoTail) {
  std::string yaml = engine_successor("16MiB");
  yaml.erase(yaml.find("  - {name: w"));
  SimOutcome o = run_yaml(yaml);
  EXPECT_TRUE(o.results["fidelity_notes"].empty()) << o.results["fidelity_notes"].dump(2);
}

// rc0's host DMA engine pushes 1 MiB to gpu0 over one Gen4 x16 link of 1 us flight whose
// UpdateFC latency is 100 ns; default credits: 2048 posted data credits, 128 MWrs of 256 B.
// A MWr's credits are back 9.851 (its 280 B on the wire) + 1000 (flight) + 0 (the GPU takes
// it as its tail arrives) + 100 + 1000 (the UpdateFC and its flight) = 2109.851 ns after it
// starts: 128 x 256 B per round trip is 15.53 GB/s, under the link's 26 GB/s. The packet
// model ends the copy at 67.7 us; the fluid, which does not represent the loop, at the
// link's rate (41.4 us), and says so. With 8192 credits (512 MWrs, 62 GB/s) it binds nothing.
std::string long_link_push(const std::string& credits) {
  return "platform:\n"
         "  nodes:\n"
         "    - {name: rc0, type: root_complex}\n"
         "    - {name: gpu0, type: gpu, h2d_mode: push}\n"
         "  links:\n"
         "    - {up: rc0, down: gpu0, gen: 4, width: 16, latency_ns: 1000, fc_latency_ns: 100" + credits + "}\n"
         "sim: {fidelity: flow}\n"
         "apps:\n"
         "  - {name: w, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 1MiB}, count: 1}\n";
}

TEST(FlowArbitration, CreditsThatBoundACopyAloneAreNamed) {
  SimOutcome o = run_yaml(long_link_push(""));
  EXPECT_EQ(notes_at(o, "rc0->gpu0"),
            (std::vector<std::string>{"credits that carry less per round trip than the copy could move alone"}));
  EXPECT_EQ(o.results["fidelity_notes"][0]["apps"].get<std::vector<std::string>>(), (std::vector<std::string>{"w"}));
}

TEST(FlowArbitration, CreditsThatCarryMoreThanTheLinkAreNotNamed) {
  SimOutcome o = run_yaml(long_link_push(", credits: {ph: 512, pd: 8192}"));
  EXPECT_TRUE(o.results["fidelity_notes"].empty()) << o.results["fidelity_notes"].dump(2);
}

// A read held to its tag window's pace on a saturated link (found by a user trial): one tag,
// its completions sharing a Gen3 x1 link with a peer write. The fluid caps it at 512 B per
// lone round trip (~1,405 ns): 256 KiB in ~720 us; in the packet model each request's
// second completion waits behind a whole peer MWr there (294 ns), so it takes at least
// 512 x (1,405 + 294) ns = 870 us (900 measured). Named, with both copies.
std::string one_tag_read_beside_a_write(const std::string& fidelity) {
  return "platform:\n  nodes:\n    - {name: cpu0, type: root_complex}\n    - {name: sw0, type: switch}\n"
         "    - {name: gpu0, type: gpu, tags: 1}\n    - {name: gpu1, type: gpu}\n  links:\n"
         "    - {up: cpu0, down: sw0, gen: 3, width: 16}\n    - {up: sw0, down: gpu0, gen: 3, width: 1}\n"
         "    - {up: sw0, down: gpu1, gen: 3, width: 16}\n"
         "sim: {fidelity: " + fidelity + "}\n"
         "apps:\n  - {name: R, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 256KiB}, count: 1}\n"
         "  - {name: P, type: peer, gpu: gpu1, peer: gpu0, size: {fixed: 1MiB}, count: 1}\n";
}

TEST(FlowArbitration, AReadHeldToItsTagWindowOnASaturatedLinkIsNamed) {
  SimOutcome o = run_yaml(one_tag_read_beside_a_write("flow"));
  EXPECT_EQ(notes_at(o, "sw0->gpu0"), (std::vector<std::string>{"a read held to its tag window's pace on the saturated sw0->gpu0"}));
  const auto& n = o.results["fidelity_notes"];
  ASSERT_FALSE(n.empty());
  EXPECT_EQ(n[0]["apps"].get<std::vector<std::string>>(), (std::vector<std::string>{"R", "P"}));
  EXPECT_NEAR(app(o, "R")["last_done_ns"].get<double>(), 512 * 1405.5, 0.01 * 512 * 1405.5);  // its lone pace
}


// Seed 000's qos on rc0 -> sw0 -> gpu0 / gpu1 (Gen3 x16, 8 VCs): `big` reads 2 MiB to gpu0
// with a 170 us deadline, `small` 256 KiB to gpu1. Small ranks first (priority_s), so big's
// completions wait at rc0 while small's tag window (256 x 512 B) queues there on VC7. Once
// Eq. 3 predicts big late the driver swaps the two TCs' VCs: the fluid moves big's TC to the
// top at once; the packet model drains first, and VC7's buffers at rc0 still hold small's
// completions, which now leave at VC6, behind nothing but with big's new ones behind them.
std::string qos_escalation(const std::string& fidelity, const std::string& small_apps) {
  return "platform:\n"
         "  defaults: {link: {gen: 3, width: 16, latency_ns: 20, vcs: 8}}\n"
         "  nodes:\n"
         "    - {name: rc0, type: root_complex, latency_ns: 50, memory: {bandwidth_GBps: 50, read_latency_ns: 400}}\n"
         "    - {name: sw0, type: switch, latency_ns: 110}\n"
         "    - {name: gpu0, type: gpu}\n"
         "    - {name: gpu1, type: gpu}\n"
         "  links:\n    - {up: rc0, down: sw0}\n    - {up: sw0, down: gpu0}\n    - {up: sw0, down: gpu1}\n"
         "driver: {policy: qos}\n"
         "sim: {fidelity: " + fidelity + "}\n"
         "apps:\n"
         "  - {name: big, type: copy_exec, gpu: gpu0, h2d_bytes: 2MiB, kernel_ns: 1000, iterations: 1, deadline_ns: 170000}\n" +
         small_apps;
}

const char* const kSmall = "  - {name: small, type: copy_exec, gpu: gpu1, h2d_bytes: 256KiB, kernel_ns: 1000, iterations: 1}\n";
const char* const kRemapNote = "a TC/VC remap moving the TC of a copy queued at this saturated link";

// Big alone takes 159.9 us (2 MiB at the link's payload rate), 10.1 us inside its deadline.
// Eq. 3 (2 us margin) escalates it at 7 us, after small had the link alone: the fluid ends
// big at 7 + 159.9 = 166.9 us, met, and names the remap, with both copies.
TEST(FlowArbitration, ARemapWhileQueuesStandIsNamed) {
  SimOutcome o = run_yaml(qos_escalation("flow", kSmall));
  const auto notes = notes_at(o, "rc0->sw0");
  ASSERT_NE(std::find(notes.begin(), notes.end(), kRemapNote), notes.end()) << o.results["fidelity_notes"].dump(2);
  for (const auto& n : o.results["fidelity_notes"]) {
    if (n["setting"] == kRemapNote) {
      EXPECT_EQ(n["apps"].get<std::vector<std::string>>(), (std::vector<std::string>{"big", "small"}));
    }
  }
  EXPECT_EQ(app(o, "big")["deadlines_met"], 1);
}

// What that note is about: in the packet model big then waits for small's tag window queued
// at rc0 (256 x 512 B, 8.3 us at the raw 15.75 GB/s alone: more than the 3.1 us left of its
// slack), and misses.
TEST(FlowArbitration, APacketRemapDrainsTheQueuesFirst) {
  SimOutcome o = run_yaml(qos_escalation("packet", kSmall));
  EXPECT_EQ(app(o, "big")["deadlines_missed"], 1);
  EXPECT_GT(end_of(o, "big"), 166900 + 0.5 * 256 * 512 / 15.754);
}

// One copy engine, a copy_exec (1 MiB in, 5 us kernel, 1 MiB out) and a D2H stream: their
// commands reach the engine within a microsecond of each other, where the fluid's timing
// can put them in the other order than the packet model's (the stream's p50 20.2 against
// 55.5 us; found by a user trial). Named, with both; on two engines (in and out apart) the
// stream's D2H and the copy_exec's H2D never meet, and only the D2H engine is named.
std::string one_engine(int engines) {
  return "platform:\n"
         "  defaults: {link: {gen: 4, width: 16}}\n"
         "  nodes: [{name: rc0, type: root_complex}, {name: gpu0, type: gpu, copy_engines: " + std::to_string(engines) + "}]\n"
         "  links: [{up: rc0, down: gpu0}]\n"
         "sim: {fidelity: flow}\n"
         "apps:\n"
         "  - {name: ce0, type: copy_exec, gpu: gpu0, h2d_bytes: 1MiB, kernel_ns: 5000, d2h_bytes: 1MiB, iterations: 4}\n"
         "  - {name: s0, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 256KiB}, count: 10}\n";
}

TEST(FlowArbitration, CopiesOfSeveralAppsMeetingOnOneEngineAreNamed) {
  SimOutcome o = run_yaml(one_engine(1));
  const auto& n = o.results["fidelity_notes"];
  ASSERT_EQ(n.size(), 1u) << n.dump(2);
  EXPECT_EQ(n[0]["where"], "gpu0 copy engine 0");
  EXPECT_EQ(n[0]["apps"].get<std::vector<std::string>>(), (std::vector<std::string>{"ce0", "s0"}));
}

// Two identical copy-then-execute apps behind one switch, started together: the fluid moves
// their copies alike to the byte on rc0->sw0 and keeps the apps in step, where the packet
// model's round robin lets one lead by a TLP and they drift apart (makespan 2.10 ms in the
// fluid against 1.81 ms: a user trial). Named, with both apps, where the link holds them.
std::string twin_apps(int b_start_ns) {
  return "platform: configs/platforms/seed000_fig2.yaml\n"
         "sim: {fidelity: flow}\n"
         "apps:\n"
         "  - {name: a, type: copy_exec, gpu: gpu0, h2d_bytes: 1MiB, kernel_ns: 10000, d2h_bytes: 256KiB, iterations: 3}\n"
         "  - {name: b, type: copy_exec, gpu: gpu1, h2d_bytes: 1MiB, kernel_ns: 10000, d2h_bytes: 256KiB, iterations: 3, "
         "start_ns: " + std::to_string(b_start_ns) + "}\n";
}

TEST(FlowArbitration, EqualCopiesOfTwoAppsStartedTogetherAreNamed) {
  SimOutcome o = run_yaml(twin_apps(0));
  const std::string tie = "equal copies of several apps started at the same instant, held by this link";
  const auto at = notes_at(o, "rc0->sw0");
  ASSERT_NE(std::find(at.begin(), at.end(), tie), at.end()) << o.results["fidelity_notes"].dump(2);
  for (const auto& n : o.results["fidelity_notes"])
    if (n["setting"] == tie) {
      EXPECT_EQ(n["apps"].get<std::vector<std::string>>(), (std::vector<std::string>{"a", "b"}));
    }
}

TEST(FlowArbitration, EqualCopiesStartedApartAreNotATie) {
  SimOutcome o = run_yaml(twin_apps(20000));
  for (const auto& n : o.results["fidelity_notes"])
    EXPECT_NE(n["setting"], "equal copies of several apps started at the same instant, held by this link") << n.dump();
}

namespace {

// gpu0 (under sw0) reads 1 MiB in 256 requests of 4 KiB, all issued at once; gpu1 (under
// sw1) reads 8 KiB 1 us later. Host memory serves `memory_GBps`; each root port carries
// ~13 GB/s, so at 50 GB/s the memory is far from saturated on average.
std::string completer_reads(const char* memory_GBps, const char* fidelity, const char* mrrs = "4096",
                            const char* victim = "8KiB") {
  return std::string("platform:\n"
                     "  name: completer\n"
                     "  mrrs: ") + mrrs + "\n"
                     "  nodes:\n"
                     "    - {name: rc0, type: root_complex, memory: {bandwidth_GBps: " + memory_GBps + "}}\n"
         "    - {name: sw0, type: switch}\n"
         "    - {name: sw1, type: switch}\n"
         "    - {name: gpu0, type: gpu}\n"
         "    - {name: gpu1, type: gpu}\n"
         "  links: [{up: rc0, down: sw0}, {up: rc0, down: sw1}, {up: sw0, down: gpu0}, {up: sw1, down: gpu1}]\n"
         "sim: {fidelity: " + fidelity + "}\n"
         "apps:\n"
         "  - {name: bulk, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 1MiB}, count: 1}\n"
         "  - {name: victim, type: stream, gpu: gpu1, direction: h2d, size: {fixed: " + victim + "}, count: 1, start_ns: 1000}\n";
}

}  // namespace

// The packet model: memory serves the requests in order, 256 x 4 KiB = 1 MiB at 50 GB/s, so
// the victim's requests, arriving at 1 us, wait for what is left of it: (1 MiB - ~50 KB
// served by then) / 50 GB/s ~ 20 us. The fluid shares the memory's rate at once...
TEST(FlowArbitration, ReadsQueueAtTheirCompleterInThePacketModel) {
  SimOutcome o = run_yaml(completer_reads("50", "packet"));
  EXPECT_GT(app(o, "victim")["max_ns"].get<double>(), 15000);
}

// ... so the flow mode names it, at the memory's port, for both reads;
TEST(FlowArbitration, AReadsWindowQueuedAtItsCompleterIsNamed) {
  SimOutcome o = run_yaml(completer_reads("50", "flow"));
  EXPECT_LT(app(o, "victim")["max_ns"].get<double>(), 5000);
  EXPECT_EQ(notes_at(o, "rc0_memory->rc0"),
            (std::vector<std::string>{"a read's tag window queued at its completer, leaving by rc0_memory->rc0"}));
}

// ... not where the read served after the queue catches up: a 64 KiB read, its requests of
// 512 B, behind a 1 MiB read's window of 128 KiB at 200 GB/s. Its first data wait ~0.17 us
// behind the window's queued part, but its own link (14.2 GB/s) takes 4.6 us for it while the
// memory serves it in 0.33 us: its end does not move (a trial: 0.14 %, named before);
TEST(FlowArbitration, AReadThatCatchesUpAfterTheCompleterQueueIsNotNamed) {
  SimOutcome o = run_yaml(completer_reads("200", "flow", "512", "64KiB"));
  EXPECT_TRUE(notes_at(o, "rc0_memory->rc0").empty()) << o.results["fidelity_notes"].dump(2);
}

// ... not where the memory serves 4 KiB faster than the next request arrives (at 4000 GB/s,
// in 1.0 ns, against an MRd's 1.5 ns on a Gen3 x16 link).
TEST(FlowArbitration, ACompleterFasterThanTheRequestsIsNotNamed) {
  SimOutcome o = run_yaml(completer_reads("4000", "flow"));
  EXPECT_TRUE(notes_at(o, "rc0_memory->rc0").empty()) << o.results["fidelity_notes"].dump(2);
}

namespace {

// One GPU writes 1 MiB up one Gen3 x16 link: 4,096 MWr of T = 19.701 ns, done at ~80.8 us.
// Cut at 80 us it has 1 % of its bytes to go; at 40 us, half.
SimOutcome cut_write(const char* fidelity, const char* time_ns) {
  return run_yaml(std::string("platform:\n"
                              "  name: one-gpu\n"
                              "  nodes: [{name: rc0, type: root_complex}, {name: gpu0, type: gpu}]\n"
                              "  links: [{up: rc0, down: gpu0}]\n"
                              "sim: {fidelity: ") + fidelity + ", time_ns: " + time_ns + "}\n"
                  "apps:\n"
                  "  - {name: w, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 1MiB}, count: 1}\n");
}

}  // namespace

// A copy ending within 3 % of its time of a cut-off may count in one fidelity and not the
// other (a user trial: 2 copies against 3 at 300 us, no note): the flow mode names its app...
TEST(FlowArbitration, ACopyEndingNearTheCutOffIsNamed) {
  const SimOutcome o = cut_write("flow", "80000");
  ASSERT_EQ(o.results["fidelity_notes"].size(), 1u) << o.results["fidelity_notes"].dump(2);
  EXPECT_EQ(o.results["fidelity_notes"][0]["setting"],
            "copies ending within 3 % of their time of the sim.time_ns cut-off (80.000 us)");
  EXPECT_EQ(o.results["fidelity_notes"][0]["apps"], nlohmann::ordered_json::array({"w"}));
}

// ... not one far from its end ...
TEST(FlowArbitration, ACopyFarFromItsEndAtTheCutOffIsNotNamed) {
  EXPECT_TRUE(cut_write("flow", "40000").results["fidelity_notes"].empty());
}

// ... and the packet model, the reference, never.
TEST(FlowArbitration, ThePacketModelDoesNotNameTheCutOff) {
  EXPECT_TRUE(cut_write("packet", "80000").results["fidelity_notes"].empty());
}

// A copy's time for that 3 % is its time in the fabric, from its engine's start: a stream 64
// copies deep has each copy wait ~64 x 5 us for its engine, and its last copy, done 3.7 us
// before a 150 us cut-off (a copy takes 5.04 us: 64 KiB at 103.95 Gb/s), was named for it.
TEST(FlowArbitration, ADeepStreamsQueueingIsNotItsCopiesTime) {
  const SimOutcome o = run_yaml("platform:\n"
                                "  name: one-gpu\n"
                                "  nodes: [{name: rc0, type: root_complex}, {name: gpu0, type: gpu}]\n"
                                "  links: [{up: rc0, down: gpu0}]\n"
                                "sim: {fidelity: flow, time_ns: 150000}\n"
                                "apps:\n"
                                "  - {name: w, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 64KiB}, depth: 64, "
                                "duration_ns: 1000000}\n");
  EXPECT_TRUE(o.results["fidelity_notes"].empty()) << o.results["fidelity_notes"].dump(2);
}

// An app whose copies share a copy engine with a named one's moves with it (they start when
// the engine frees): the note names it too. gpu1's one engine runs the victim's read, then a
// 4 KiB write of another app that waits for it.
TEST(FlowArbitration, AnAppSharingACopyEngineWithANamedOneIsNamed) {
  std::string yaml = completer_reads("50", "flow");
  const std::string gpu1 = "    - {name: gpu1, type: gpu}\n";
  yaml.replace(yaml.find(gpu1), gpu1.size(), "    - {name: gpu1, type: gpu, copy_engines: 1}\n");
  yaml += "  - {name: after, type: stream, gpu: gpu1, direction: d2h, size: {fixed: 4KiB}, count: 1, start_ns: 1500}\n";
  SimOutcome o = run_yaml(yaml);
  ASSERT_EQ(notes_at(o, "rc0_memory->rc0").size(), 1u) << o.results["fidelity_notes"].dump(2);
  EXPECT_EQ(o.results["fidelity_notes"][0]["apps"], nlohmann::ordered_json::array({"bulk", "victim", "after"}));
}

namespace {

// A GPU's writes back up at sw1's ingress from it (its Gen4 link outruns sw1's Gen3 uplink)
// to the credits' worth: 128 MWr of 256 B, 32 KiB, ~2.3 us of the uplink. Its own reads'
// requests join that queue, in the same VC, for the same egress.
std::string reads_behind_writes(const char* fidelity, const char* read_bytes) {
  return std::string("platform:\n"
                     "  name: behind\n"
                     "  nodes: [{name: rc0, type: root_complex}, {name: sw1, type: switch}, {name: gpu2, type: gpu}]\n"
                     "  links: [{up: rc0, down: sw1, gen: 3, width: 16}, {up: sw1, down: gpu2, gen: 4, width: 16}]\n"
                     "sim: {fidelity: ") + fidelity + "}\n"
         "apps:\n"
         "  - {name: rd, type: stream, gpu: gpu2, direction: h2d, size: {fixed: " + read_bytes + "}, depth: 2, count: 16, tc: 3}\n"
         "  - {name: wr, type: stream, gpu: gpu2, direction: d2h, size: {fixed: 1MiB}, depth: 2, count: 8}\n";
}

}  // namespace

// In the packet model each 1000 B read's request waits behind the ~2.3 us of writes queued
// ahead of it (a read alone takes ~0.9 us)...
TEST(FlowArbitration, ShortReadsWaitBehindAQueueOfWritesInThePacketModel) {
  SimOutcome o = run_yaml(reads_behind_writes("packet", "1000"));
  EXPECT_GT(app(o, "rd")["p50_ns"].get<double>(), 2500);
}

// ... which the fluid, sharing the queue's drain at once, leaves out (0.88 us), and names;
TEST(FlowArbitration, ShortCopiesInAHeldFlowsQueueAreNamed) {
  SimOutcome o = run_yaml(reads_behind_writes("flow", "1000"));
  EXPECT_LT(app(o, "rd")["p50_ns"].get<double>(), 1500);
  EXPECT_EQ(notes_at(o, "gpu2->sw1"),
            (std::vector<std::string>{"copies waiting in one ingress queue behind a flow held back at sw1->rc0"}));
}

// ... not where the reads are as many TLPs as the queue (64 KiB: 128 requests of 512 B), long
// enough for the fluid's share of its drain (they agree within 0.01 %).
TEST(FlowArbitration, CopiesAsLongAsTheQueueAreNotNamed) {
  SimOutcome o = run_yaml(reads_behind_writes("flow", "64KiB"));
  EXPECT_TRUE(notes_at(o, "gpu2->sw1").empty()) << o.results["fidelity_notes"].dump(2);
}

namespace {

// A GPU's 198 KiB reads, `depth` deep, beside its own 249 KiB writes 15 deep, which back up at
// sw0's ingress from it (its Gen4 x8 link outruns sw0's Gen3 x8 uplink) to the posted
// credits' worth: 128 MWr of 256 B (280 B on the wire) at 7.877 GB/s, 4.55 us of the uplink.
std::string long_reads_behind_writes(const char* fidelity, int depth) {
  return std::string("platform:\n"
                     "  h2d_mode: read\n"
                     "  nodes: [{name: rc0, type: root_complex}, {name: sw0, type: switch}, {name: gpu0, type: gpu}]\n"
                     "  links: [{up: rc0, down: sw0, gen: 3, width: 8}, {up: sw0, down: gpu0, gen: 4, width: 8}]\n"
                     "sim: {fidelity: ") + fidelity + "}\n"
         "apps:\n"
         "  - {name: rd, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 202984}, depth: " + std::to_string(depth) +
         ", count: 22}\n"
         "  - {name: wr, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 254606}, depth: 15, count: 21}\n";
}

}  // namespace

// One deep, each read starts when the one before has ended, so its first request joins the
// queue's tail and waits its drain; then its 202,984 B come down the Gen3 x8 link at no more
// than its payload rate, 256 / 280 x 7.877 GB/s. So a read takes at least 4.55 + 28.19 =
// 32.74 us (a user trial: 35.78 us in the packet model, 31.05 in the fluid, 13.2 % apart,
// unnamed)...
TEST(FlowArbitration, ALongReadStartingBehindAStandingQueueWaitsItsDrainInThePacketModel) {
  SimOutcome o = run_yaml(long_reads_behind_writes("packet", 1));
  EXPECT_GE(app(o, "rd")["p50_ns"].get<double>(), 128 * 280 / 7.877 + 202984 / (256.0 / 280 * 7.877));
}

// ... which the fluid, sharing the queue's drain from the read's start, leaves out, and names
// (fidelity_watch.cpp, starts_behind());
TEST(FlowArbitration, ALongReadStartingBehindAStandingQueueIsNamed) {
  SimOutcome o = run_yaml(long_reads_behind_writes("flow", 1));
  EXPECT_EQ(notes_at(o, "gpu0->sw0"),
            (std::vector<std::string>{"copies waiting in one ingress queue behind a flow held back at sw0->rc0"}));
  for (const auto& n : o.results["fidelity_notes"])
    EXPECT_NE(std::find(n["apps"].begin(), n["apps"].end(), "rd"), n["apps"].end()) << n.dump();
}

// ... not two deep, where each read's requests follow the one before's in the queue, which it
// waits out once (both fidelities agree within 0.01 %).
TEST(FlowArbitration, LongReadsBackToBackBehindAStandingQueueAreNotNamed) {
  SimOutcome o = run_yaml(long_reads_behind_writes("flow", 2));
  EXPECT_TRUE(o.results["fidelity_notes"].empty()) << o.results["fidelity_notes"].dump(2);
}

namespace {

// gpu0's peer writes to gpu1 (seven of 165,612 B, all queued at 0) are held at sw1->gpu1
// (Gen3 x8), their TLPs queued back through sw1's, rc0's and sw0's ingress; its d2h writes of
// 32 KiB, twelve submitted at 16.9 us, wait on the same copy engine (the last: D2H and peer
// writes), in the same VC, and leave the peer's way at rc0.
std::string writes_behind_a_held_peer_stream(const char* fidelity) {
  return std::string("platform:\n"
                     "  nodes: [{name: rc0, type: root_complex}, {name: sw0, type: switch}, {name: sw1, type: switch},\n"
                     "          {name: gpu0, type: gpu}, {name: gpu1, type: gpu}]\n"
                     "  links: [{up: rc0, down: sw0, gen: 4, width: 8}, {up: rc0, down: sw1, gen: 3, width: 16},\n"
                     "          {up: sw0, down: gpu0, gen: 4, width: 8}, {up: sw1, down: gpu1, gen: 3, width: 8}]\n"
                     "sim: {fidelity: ") + fidelity + "}\n"
         "apps:\n"
         "  - {name: peer, type: peer, gpu: gpu0, peer: gpu1, size: {fixed: 165612}, depth: 7, count: 7}\n"
         "  - {name: wr, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 32768}, depth: 12, count: 12, start_ns: 16864}\n";
}

}  // namespace

// The engine frees once the peer's last TLP has left it, while sw1's ingress still holds 128
// of the peer's TLPs (its posted credits) to drain at 280 B / 7.877 GB/s each, 4.55 us; the
// writes follow its tail through sw0 and rc0 and then leave it for memory. So they end no
// later than the peer's end less that drain, plus their 384 KiB at gpu0's Gen4 x8 payload
// rate (256 / 280 x 15.754 GB/s: 27.3 us) and 0.5 us of the way's latencies (a user trial of
// trees: 198.2 us in the packet model, 205.2 in the fluid, which starts them at the peer's
// end, unnamed)...
TEST(FlowArbitration, AnEnginesNextCopyStartsWhileTheHeldOnesTailQueuesInThePacketModel) {
  SimOutcome o = run_yaml(writes_behind_a_held_peer_stream("packet"));
  const double peer_end = app(o, "peer")["last_done_ns"];
  EXPECT_LE(app(o, "wr")["last_done_ns"].get<double>(),
            peer_end - 128 * 280 / 7.877 + 12 * 32768 / (256.0 / 280 * 15.754) + 500);
}

// ... which the fluid, freeing the engine at the held copy's end, leaves out, and names for both
// (fidelity_watch.cpp, overtakes()).
TEST(FlowArbitration, AnEnginesNextCopyStartingWhileATailQueuesIsNamed) {
  SimOutcome o = run_yaml(writes_behind_a_held_peer_stream("flow"));
  EXPECT_EQ(notes_at(o, "gpu0->sw0"), (std::vector<std::string>{
                                          "a copy that ended held back at sw1->gpu1, its engine's next started while its tail queued"}));
  ASSERT_EQ(o.results["fidelity_notes"].size(), 1u) << o.results["fidelity_notes"].dump(2);
  EXPECT_EQ(o.results["fidelity_notes"][0]["apps"], nlohmann::ordered_json::array({"peer", "wr"}));
}

namespace {

// One GPU on one Gen3 x16 link reads 64 KiB (128 MRds of 512 B, all within its tags, so they
// queue at once) in TC7 and writes 4 KiB in TC0, both at 0; two VCs, TC7 in VC1.
std::string burst_beside_write(const char* vc_arbiter, const char* fidelity) {
  return std::string("platform:\n"
                     "  name: burst\n"
                     "  mrrs: 512\n"
                     "  h2d_mode: read\n"
                     "  arbitration: {vc_arbiter: {type: ") + vc_arbiter + "}}\n"
         "  defaults: {link: {vcs: 2}}\n"
         "  nodes: [{name: rc0, type: root_complex}, {name: gpu0, type: gpu}]\n"
         "  links: [{up: rc0, down: gpu0}]\n"
         "sim: {fidelity: " + fidelity + "}\n"
         "apps:\n"
         "  - {name: rd, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 64KiB}, count: 1, tc: 7}\n"
         "  - {name: wr, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 4KiB}, count: 1, tc: 0}\n";
}

}  // namespace

// Under strict VC priority the write's first MWr loses to every one of the 128 MRds queued
// ahead in VC1: 128 x ~1.5 ns (an MRd's wire bytes at 15.75 GB/s) = ~190 ns or more on top
// of its ~400 ns alone (a user trial: p99 714 ns against the fluid's 512, unnamed)...
TEST(FlowArbitration, AReadsRequestBurstGoesAheadOfALowerVcInThePacketModel) {
  SimOutcome o = run_yaml(burst_beside_write("strict", "packet"));
  EXPECT_GT(app(o, "wr")["p50_ns"].get<double>(), 400 + 150);
}

// ... which the fluid, giving the write what the MRds leave at once, leaves out, and names;
TEST(FlowArbitration, AReadsRequestBurstAheadOfAShortCopyIsNamed) {
  SimOutcome o = run_yaml(burst_beside_write("strict", "flow"));
  EXPECT_LT(app(o, "wr")["p50_ns"].get<double>(), 450);
  EXPECT_EQ(notes_at(o, "gpu0->rc0"),
            (std::vector<std::string>{"a read's tag window of requests bursting onto the saturated gpu0->rc0"}));
  for (const auto& n : o.results["fidelity_notes"])
    EXPECT_EQ(n["apps"].get<std::vector<std::string>>(), (std::vector<std::string>{"rd", "wr"}));
}

// ... not under round robin, where the write takes turns with the MRds and waits one per
// TLP: 8 x ~1.5 ns, within 3 % of its time (the packet model: 411 ns against 399).
TEST(FlowArbitration, RequestsTakingTurnsWithAShortCopyAreNotNamed) {
  SimOutcome o = run_yaml(burst_beside_write("rr", "flow"));
  EXPECT_TRUE(o.results["fidelity_notes"].empty()) << o.results["fidelity_notes"].dump(2);
}

namespace {

// Two GPUs under sw0: its uplink Gen `up_gen` x`up_width`, each GPU's link Gen `gen` x`width`;
// in the flow mode, up to its apps.
std::string two_gpus_under_sw0(int up_gen, int up_width, int gen, int width) {
  const auto link = [](const char* down, int g, int w) {
    return std::string("{up: sw0, down: ") + down + ", gen: " + std::to_string(g) + ", width: " + std::to_string(w) + "}";
  };
  return "platform:\n"
         "  nodes: [{name: rc0, type: root_complex}, {name: sw0, type: switch}, {name: gpu0, type: gpu}, {name: gpu1, type: gpu}]\n"
         "  links: [{up: rc0, down: sw0, gen: " + std::to_string(up_gen) + ", width: " + std::to_string(up_width) + "}, " +
         link("gpu0", gen, width) + ", " + link("gpu1", gen, width) + "]\n"
         "sim: {fidelity: flow}\n"
         "apps:\n";
}

// One GPU on one Gen3 x16 link: four 64 KiB reads of one stream (512 MRds of 512 B; its
// engine's 256 tags issue 256 at once) and, on its other engine, writes of 64 B, `depth` of
// `count` submitted together, all at 0 (tests/flow: the packet model's turns, measured).
// (The platform, in the flow mode, up to its apps.)
const char* const kOneGpuReading =
    "platform:\n"
    "  mrrs: 512\n"
    "  h2d_mode: read\n"
    "  nodes: [{name: rc0, type: root_complex}, {name: gpu0, type: gpu}]\n"
    "  links: [{up: rc0, down: gpu0}]\n"
    "sim: {fidelity: flow}\n"
    "apps:\n";

std::string pile_beside_writes(int depth, int count) {
  return std::string(kOneGpuReading) +
         "  - {name: rd, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 64KiB}, depth: 4, count: 4}\n"
         "  - {name: wr, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 64}, depth: " + std::to_string(depth) +
         ", count: " + std::to_string(count) + "}\n";
}

}  // namespace

// In the packet model the 64 writes take turns with the read engine's 256 MRds one for one,
// the last 106 ns later than alone (FlowVsPacket.WritesTakeTurnsWithAPileOfRequests), where
// the fluid gives them the link less the reads' MRd share throughout (64 x 6.2 ns x 0.043 =
// 17 ns later than alone: p99 484 against 574 ns); it names the pile for the writes...
TEST(FlowArbitration, WritesBesideAPileOfRequestsAreNamed) {
  SimOutcome o = run_yaml(pile_beside_writes(64, 64));
  EXPECT_EQ(notes_at(o, "gpu0->rc0"),
            (std::vector<std::string>{"an engine's read requests piled up at gpu0->rc0 beside a stream of writes"}));
  for (const auto& n : o.results["fidelity_notes"])
    EXPECT_EQ(n["apps"].get<std::vector<std::string>>(), (std::vector<std::string>{"wr"}));
}

// ... also four of them (3 MRds' wait, 5.1 ns, 5.8 % of their 101.5 ns in the packet model)...
TEST(FlowArbitration, APileOfRequestsIsNamedForFourWrites) {
  EXPECT_EQ(notes_at(run_yaml(pile_beside_writes(4, 4)), "gpu0->rc0").size(), 1u);
}

// ... and where the pile stands on a slower link beyond: gpu0's 4 KiB reads 16 deep (128
// MRds) and gpu1's 26 B writes 64 deep take turns up sw0's Gen3 x4 uplink (the packet model's
// p99 1,503 ns, the fluid's 1,120; hand: 63 x 6.6 - 64 x 13.8 x 0.043 = 378 ns), not at
// gpu0's own Gen4 x16 link, which gpu1's writes do not cross...
TEST(FlowArbitration, APileOfRequestsOnASlowerLinkBeyondIsNamed) {
  SimOutcome o = run_yaml(two_gpus_under_sw0(3, 4, 4, 16) +
      "  - {name: rd, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 4KiB}, depth: 16, count: 32}\n"
      "  - {name: wr, type: stream, gpu: gpu1, direction: d2h, size: {fixed: 26}, depth: 64, count: 64}\n");
  EXPECT_EQ(notes_at(o, "sw0->rc0"),
            (std::vector<std::string>{"an engine's read requests piled up at sw0->rc0 beside a stream of writes"}));
  EXPECT_TRUE(notes_at(o, "gpu0->sw0").empty());
}

// ... not writes one at a time (their engine holds none behind the one it runs: the packet
// model's p99 2.2 % apart).
TEST(FlowArbitration, APileOfRequestsIsNotNamedForWritesOneAtATime) {
  SimOutcome o = run_yaml(pile_beside_writes(1, 64));
  EXPECT_TRUE(o.results["fidelity_notes"].empty()) << o.results["fidelity_notes"].dump(2);
}

// ... and on a link faster than the one before it, where a write's turn outlasts the MRds'
// spacing: gpu1's 20 MRds arrive at sw0 one per 1.689 ns (Gen3 x16) and leave up its Gen4 x8
// uplink in 1.658 ns, but taking turns with gpu0's 64 B writes (5.5 ns a TLP) they leave one
// per 7.2 ns, so they pile there (FlowVsPacket.APileOfRequestsStandsOnAFasterLinkBeyond:
// the writes' p50 428 ns in the packet model against the fluid's 403, 5.8 %; hand at the 32nd
// write: 20 x 1.658 - 32 x 5.5 x 0.046 = 25 ns). Named at the uplink, once.
TEST(FlowArbitration, APileOfRequestsOnAFasterLinkBeyondIsNamed) {
  SimOutcome o = run_yaml(two_gpus_under_sw0(4, 8, 3, 16) +
      "  - {name: rd, type: stream, gpu: gpu1, direction: h2d, size: {fixed: 2KiB}, depth: 5, count: 5}\n"
      "  - {name: wr, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 64}, depth: 64, count: 64}\n");
  EXPECT_EQ(notes_at(o, "sw0->rc0"),
            (std::vector<std::string>{"an engine's read requests piled up at sw0->rc0 beside a stream of writes"}));
  ASSERT_EQ(o.results["fidelity_notes"].size(), 1u) << o.results["fidelity_notes"].dump(2);
  EXPECT_EQ(o.results["fidelity_notes"][0]["apps"].get<std::vector<std::string>>(), (std::vector<std::string>{"wr"}));
}

namespace {

// Four 16 KiB reads of gpu0 (128 MRds, within its 256 tags, all out by 216 ns) and 4 KiB
// writes 13 deep starting at `start_ns` on its other engine, one Gen3 x16 link.
std::string writes_after_reads(int start_ns) {
  return std::string(kOneGpuReading) +
         "  - {name: rd, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 16KiB}, depth: 4, count: 4}\n"
         "  - {name: wr, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 4KiB}, depth: 13, count: 13, start_ns: " +
         std::to_string(start_ns) + "}\n";
}

}  // namespace

// Writes starting after the reads' requests have gone have the link alone in the packet model
// (FlowVsPacket.WritesAfterTheReadsRequestsHaveGoneHaveTheLinkAlone: p99 4,168 ns, as alone),
// where the fluid charges the reads' request share while their data run (4,272 ns; hand at
// the 52nd of the writes' 104 TLPs: 52 x 33.2 x 0.043 = 74 ns, 4 % of its 1.8 us): named for
// the writes...
TEST(FlowArbitration, WritesAfterTheReadsRequestsHaveGoneAreNamed) {
  SimOutcome o = run_yaml(writes_after_reads(2575));
  EXPECT_EQ(notes_at(o, "gpu0->rc0"), (std::vector<std::string>{
      "a read's requests, all sent at its start, still charged on gpu0->rc0 beside writes that start later"}));
  for (const auto& n : o.results["fidelity_notes"])
    EXPECT_EQ(n["apps"].get<std::vector<std::string>>(), (std::vector<std::string>{"wr"}));
}

// ... not where the writes start with the reads, whose requests then pile up beside them (the
// pile's note instead).
TEST(FlowArbitration, WritesStartingWithTheReadsAreNamedForThePileInstead) {
  EXPECT_EQ(notes_at(run_yaml(writes_after_reads(0)), "gpu0->rc0"),
            (std::vector<std::string>{"an engine's read requests piled up at gpu0->rc0 beside a stream of writes"}));
}

// A stream of short writes backs a queue up as one: gpu0's 2 KiB writes, 32 deep, held at
// sw0's Gen3 x8 uplink, fill its ingress from gpu0 with 128 posted TLPs (its engine issues the
// next copy's as the last one's leave), and the requests of gpu0's 48 KiB reads (95 MRds, 32
// tags) wait behind them (FlowVsPacket.ReadsWaitBehindAStreamOfShortWrites: p99 46.1 us in the
// packet model, 29.8 in the fluid); one copy's 8 TLPs were taken for the backlog, unnamed.
TEST(FlowArbitration, AStreamOfShortWritesBacksAQueueUpAsOne) {
  SimOutcome o = run_yaml(
      "platform:\n"
      "  nodes: [{name: rc0, type: root_complex}, {name: sw0, type: switch}, {name: gpu0, type: gpu, tags: 32, h2d_mode: read}]\n"
      "  links: [{up: rc0, down: sw0, gen: 3, width: 8}, {up: sw0, down: gpu0, gen: 4, width: 16}]\n"
      "sim: {fidelity: flow}\n"
      "apps:\n"
      "  - {name: rd, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 48584}, depth: 4, count: 17}\n"
      "  - {name: wr, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 2048}, depth: 32, count: 96, start_ns: 5580}\n");
  EXPECT_EQ(notes_at(o, "gpu0->sw0"),
            (std::vector<std::string>{"copies waiting in one ingress queue behind a flow held back at sw0->rc0"}));
}

namespace {

// Up a store-and-forward switch's Gen3 x8 uplink: gpu1 (Gen3 x4) writes 1 MiB copies in
// 256 B TLPs of ~35 ns on the uplink, and gpu3 (Gen5 x8) writes copies of `bytes`.
std::string beside_long_tlps(const char* bytes) {
  return std::string("platform:\n"
                     "  name: turns\n"
                     "  nodes: [{name: rc0, type: root_complex}, {name: sw0, type: switch, forwarding: store_and_forward},\n"
                     "          {name: gpu1, type: gpu}, {name: gpu3, type: gpu}]\n"
                     "  links: [{up: rc0, down: sw0, gen: 3, width: 8}, {up: sw0, down: gpu1, gen: 3, width: 4},\n"
                     "          {up: sw0, down: gpu3, gen: 5, width: 8}]\n"
                     "sim: {fidelity: flow}\n"
                     "apps:\n"
                     "  - {name: a0, type: stream, gpu: gpu1, direction: d2h, size: {fixed: 1MiB}, depth: 4, count: 8}\n"
                     "  - {name: a3, type: stream, gpu: gpu3, direction: d2h, size: {fixed: ") + bytes + "}, depth: 8, count: 4}\n";
}

}  // namespace

// 256 B copies (least time ~0.3 us: their latency through two links and the switch) beside
// TLPs of ~35 ns: one of the sharer's TLPs is 3 % or more of the short copy's time (a user
// trial, with 1000 B copies beside them: 13.5 % apart, unnamed): named at the uplink, for the
// short copies alone;
TEST(FlowArbitration, ShortCopiesBesideAnotherFlowsTlpsAreNamed) {
  SimOutcome o = run_yaml(beside_long_tlps("256"));
  EXPECT_EQ(notes_at(o, "sw0->rc0"),
            (std::vector<std::string>{"copies of a few TLPs beside another flow's TLPs on sw0->rc0"}));
  EXPECT_EQ(apps_at(o, "sw0->rc0"), (std::vector<std::string>{"a3"}));
}

// not copies of 64 KiB (least time ~8.3 us: over 33 of the sharer's 256 B TLPs of ~35 ns).
TEST(FlowArbitration, CopiesOfManyTlpsAreNotNamedForTlpTurns) {
  SimOutcome o = run_yaml(beside_long_tlps("64KiB"));
  EXPECT_TRUE(notes_at(o, "sw0->rc0").empty()) << o.results["fidelity_notes"].dump(2);
}

namespace {

// A GPU streams 100 B writes (one TLP each) up one Gen3 x16 link whose receiver advertises
// `ph` posted-header credits, `depth` copies deep. A TLP's credits are out for a round trip
// (~280 ns here: flight, the root complex, the UpdateFC back) while a copy takes ~86 ns, so
// one deep ~3 TLPs' credits are out at a time, two deep ~6.
SimOutcome small_writes(const char* fidelity, int ph, int depth) {
  return run_yaml(std::string("platform:\n"
                              "  name: credits\n"
                              "  defaults: {link: {gen: 3, width: 16, latency_ns: 20, credits: {ph: ") +
                  std::to_string(ph) + "}}}\n"
                  "  nodes: [{name: rc0, type: root_complex}, {name: gpu0, type: gpu}]\n"
                  "  links: [{up: rc0, down: gpu0}]\n"
                  "sim: {fidelity: " + fidelity + "}\n"
                  "apps:\n"
                  "  - {name: a, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 100}, count: 100, depth: " +
                  std::to_string(depth) + "}\n");
}

const char* kSharedLoop = "credits that carry less per round trip than copies back to back, or side by side, could move";

}  // namespace

// Without a credit bound two deep moves two copies per copy latency, 2 x 800 bits / p50 (the
// fluid's 20.3 Gb/s); in the packet model the 4 credits are out after ~4 copies and the next
// waits for one to return: well under that (a user trial: 12.1 Gb/s)...
TEST(FlowArbitration, CopiesBackToBackRunOutOfCreditsTogetherInThePacketModel) {
  SimOutcome o = small_writes("packet", 4, 2);
  const double unbound = 2 * 800 / app(o, "a")["p50_ns"].get<double>();
  EXPECT_LT(app(o, "a")["throughput_gbps"].get<double>(), 0.8 * unbound);
}

// ... which the flow mode names (each copy alone fits in the credits: no loop of its own);
TEST(FlowArbitration, CopiesRunningOutOfCreditsTogetherAreNamed) {
  SimOutcome o = small_writes("flow", 4, 2);
  EXPECT_EQ(notes_at(o, "gpu0->rc0"), (std::vector<std::string>{kSharedLoop}));
}

// ... not one deep (~3 TLPs' credits out: both fidelities 10.2 Gb/s)...
TEST(FlowArbitration, CopiesOneDeepWithinTheCreditsAreNotNamed) {
  EXPECT_TRUE(small_writes("flow", 4, 1).results["fidelity_notes"].empty());
}

// ... nor two deep behind 16 credits (both 20.3 Gb/s).
TEST(FlowArbitration, CopiesTwoDeepWithinTheCreditsAreNotNamed) {
  EXPECT_TRUE(small_writes("flow", 16, 2).results["fidelity_notes"].empty());
}

// ... and under weighted round robin that gives the read's VC more turns (1:16: the write
// waits ~16 MRds per TLP of its own; a re-trial: 601 ns in the packet model against 399,
// unnamed), but not where the write's VC has more (2:1: they agree within 0.2 %).
TEST(FlowArbitration, ARequestBurstAheadByWeightedTurnsIsNamed) {
  SimOutcome o = run_yaml(burst_beside_write("wrr, weights: [1, 16]", "flow"));
  EXPECT_EQ(notes_at(o, "gpu0->rc0"),
            (std::vector<std::string>{"a read's tag window of requests bursting onto the saturated gpu0->rc0"}));
}

TEST(FlowArbitration, ARequestBurstWithFewerWeightedTurnsIsNotNamed) {
  SimOutcome o = run_yaml(burst_beside_write("wrr, weights: [2, 1]", "flow"));
  EXPECT_TRUE(o.results["fidelity_notes"].empty()) << o.results["fidelity_notes"].dump(2);
}

namespace {

// Four GPUs (Gen3 x4 each, ~26.6 Gb/s of MWr payload) write 1 MiB copies, one at a time,
// up one Gen4 x16 link to the root complex, whose receiver advertises `ph` posted-header
// credits. A MWr's credits are back after 9.851 ns (its 280 B on the wire) + 20 (flight) +
// 50 (the root complex's latency) + 100 (UpdateFC latency) + 20 (the UpdateFC's flight) =
// 199.851 ns, so the credits carry at most ph x 2048 bits per 199.851 ns: 81.98 Gb/s with
// 8, under the four copies' 106 Gb/s though each alone (26.6) fits; 123.0 Gb/s with 12.
SimOutcome pooled_writes(const char* fidelity, int ph) {
  std::string gpus, links, apps;
  for (int g = 0; g < 4; ++g) {
    const std::string n = std::to_string(g);
    gpus += ", {name: gpu" + n + ", type: gpu}";
    links += ", {up: sw0, down: gpu" + n + ", gen: 3, width: 4}";
    apps += "  - {name: a" + n + ", type: stream, gpu: gpu" + n + ", direction: d2h, size: {fixed: 1MiB}, count: 4}\n";
  }
  return run_yaml("platform:\n  name: pool\n"
                  "  nodes: [{name: rc0, type: root_complex, latency_ns: 50}, {name: sw0, type: switch}" + gpus + "]\n"
                  "  links: [{up: rc0, down: sw0, gen: 4, width: 16, latency_ns: 20, fc_latency_ns: 100, credits: {ph: " +
                  std::to_string(ph) + "}}" + links + "]\n" +
                  "sim: {fidelity: " + std::string(fidelity) + "}\napps:\n" + apps);
}

double total_gbps(const SimOutcome& o) {
  double sum = 0;
  for (const char* a : {"a0", "a1", "a2", "a3"}) sum += app(o, a)["throughput_gbps"].get<double>();
  return sum;
}

const char* kPooled = "credits of sw0->rc0 that carry less per round trip than the copies sharing them move together";

}  // namespace

// The packet model moves the four at the credits' pace, 81.98 Gb/s in all (measured 82.5)...
TEST(FlowArbitration, CopiesSharingCreditsMoveAtTheirPaceInThePacketModel) {
  EXPECT_NEAR(total_gbps(pooled_writes("packet", 8)), 8 * 2048 / 199.851, 0.02 * 81.98);
}

// ... the fluid at their links' 4 x 26.6 Gb/s, and says so for all four (a user trial's
// case, unnamed before: 22.3 Gb/s each against 26.6);
TEST(FlowArbitration, CopiesOutpacingTheirSharedCreditsAreNamed) {
  SimOutcome o = pooled_writes("flow", 8);
  EXPECT_GT(total_gbps(o), 100);
  EXPECT_EQ(notes_at(o, "sw0->rc0"), (std::vector<std::string>{kPooled}));
  ASSERT_EQ(o.results["fidelity_notes"].size(), 1u);
  EXPECT_EQ(o.results["fidelity_notes"][0]["apps"].size(), 4u);
}

// ... and with 12 credits (123 Gb/s) the links bind, not the credits: the packet model
// moves the four at 4 x 26.577 Gb/s (a Gen3 x4 link's MWr payload rate, docs/link-model.md),
TEST(FlowArbitration, CopiesWithinTheirSharedCreditsMoveAtTheLinksPaceInThePacketModel) {
  EXPECT_NEAR(total_gbps(pooled_writes("packet", 12)), 4 * 26.577, 0.01 * 4 * 26.577);
}

// ... as the fluid does, which names nothing.
TEST(FlowArbitration, CopiesWithinTheirSharedCreditsAreNotNamed) {
  SimOutcome o = pooled_writes("flow", 12);
  EXPECT_NEAR(total_gbps(o), 4 * 26.577, 0.01 * 4 * 26.577);
  EXPECT_TRUE(o.results["fidelity_notes"].empty()) << o.results["fidelity_notes"].dump(2);
}

namespace {

// gpu2 reads 256 KiB twice with 8 tags (held to its tag window's pace, ~77 us a copy) while
// gpu1, behind another switch, streams 25 reads of 64 KiB from host memory. Each of gpu1's
// copies queues its window at the memory (its requests arrive faster than the memory's 50
// GB/s serves them): ~1.1 us of completions. Under `policy`, a ranking that puts gpu1's TC
// above gpu2's at the memory's egress (strict VC priority) makes gpu2's completions wait
// out each of them: the packet model's p99 69.8 us under qos against the fluid's 54.3 (a
// user trial, unnamed). Under rr they take turns (within 0.7 %).
SimOutcome reads_behind_a_stream(const char* policy) {
  return run_yaml(std::string("platform:\n  name: p\n  mps: 128\n  mrrs: 512\n"
                              "  defaults: {link: {gen: 3, width: 16, latency_ns: 20}}\n"
                              "  nodes: [{name: rc0, type: root_complex}, {name: sw0, type: switch}, "
                              "{name: sw1, type: switch}, {name: gpu1, type: gpu}, {name: gpu2, type: gpu, tags: 8}]\n"
                              "  links: [{up: rc0, down: sw0}, {up: rc0, down: sw1}, {up: sw1, down: gpu1}, "
                              "{up: sw0, down: gpu2}]\n"
                              "driver: {policy: ") + policy + "}\n"
                  "sim: {fidelity: flow, time_ns: 2000000}\n"
                  "apps:\n"
                  "  - {name: a0, gpu: gpu1, type: stream, direction: h2d, size: {fixed: 65536}, count: 25}\n"
                  "  - {name: a1, gpu: gpu2, type: periodic, period_ns: 100000, h2d_bytes: 262144, count: 2}\n");
}

const char* kCompleterQueue = "a read's tag window queued at its completer, leaving by rc0_memory->rc0";

}  // namespace

TEST(FlowArbitration, ReadsWaitingOutAStreamsWindowsAtTheCompleterAreNamed) {
  SimOutcome o = reads_behind_a_stream("qos");
  const std::vector<std::string> at = notes_at(o, "rc0_memory->rc0");
  EXPECT_NE(std::find(at.begin(), at.end(), kCompleterQueue), at.end());
  for (const auto& n : o.results["fidelity_notes"])
    if (n["setting"] == kCompleterQueue) {
      EXPECT_EQ(n["apps"].dump(), "[\"a1\"]");
    }
}

TEST(FlowArbitration, ReadsTakingTurnsWithAStreamAtTheCompleterAreNotNamed) {
  SimOutcome o = reads_behind_a_stream("rr");
  EXPECT_TRUE(o.results["fidelity_notes"].empty()) << o.results["fidelity_notes"].dump(2);
}

// Copies smaller than MPS send smaller TLPs, which run out of headers before data credits:
// 100 B writes 64 deep behind 16 posted headers carry at most 16 x 800 bits per ~280 ns
// round trip, ~46 Gb/s, where the link alone carries ~92 (103.9 Gb/s of 256 B MWrs, scaled
// to 100 B payloads of 124 B on the wire). Counted in 256 B TLPs the window (14.6 B/ns)
// looked wider than the link, and a user trial's 64 B copies (30.8 Gb/s in the packet model
// against the fluid's 82.2) went unnamed.
TEST(FlowArbitration, SmallCopiesRunOutOfHeadersInThePacketModel) {
  EXPECT_LT(app(small_writes("packet", 16, 64), "a")["throughput_gbps"].get<double>(), 16 * 800 / 270.0);
}

TEST(FlowArbitration, SmallCopiesRunningOutOfHeadersAreNamed) {
  SimOutcome o = small_writes("flow", 16, 64);
  EXPECT_GT(app(o, "a")["throughput_gbps"].get<double>(), 80);
  EXPECT_EQ(notes_at(o, "gpu0->rc0"), (std::vector<std::string>{kSharedLoop}));
}

// With 128 headers (~366 Gb/s of them) the link binds in both: nothing is named.
TEST(FlowArbitration, SmallCopiesWithinTheirHeadersAreNotNamed) {
  EXPECT_TRUE(small_writes("flow", 128, 64).results["fidelity_notes"].empty());
}

namespace {

// gpu0 streams 64 B writes 64 deep for 400 us beside gpu1's 4 MiB write; sw0's uplink turns
// round robin between them, one TLP each: 64 + 24 B on the wire for gpu0's, 256 + 24 for
// gpu1's. Of the link's 113.68 Gb/s of wire (103.932 Gb/s of 256 B MWr payload, x 280 / 256:
// docs/link-model.md) gpu0's payload gets 113.68 x 64 / 368 = 19.77 Gb/s. The fluid took
// each of gpu0's turns for a 256 B TLP's worth, 46.0 Gb/s, and gpu1's copy ended at 546 us
// against the packet model's 419 (unnamed). gpu1's: 400 us at 113.68 x 256 / 368 = 79.08
// Gb/s moves 3.954 MB, the 0.240 MB left alone at 103.93 Gb/s take 18.5 us: ~419 us.
SimOutcome small_beside_large(const char* fidelity, int bytes = 64) {
  return run_yaml(two_gpu_platform() + "sim: {fidelity: " + fidelity + "}\n"
                  "apps:\n"
                  "  - {name: a, type: stream, gpu: gpu0, direction: d2h, size: {fixed: " + std::to_string(bytes) +
                  "}, depth: 64, duration_ns: 400000}\n"
                  "  - {name: b, type: stream, gpu: gpu1, direction: d2h, size: {fixed: 4MiB}, count: 1}\n");
}

}  // namespace

TEST(FlowArbitration, ASmallCopysTurnCarriesItsOwnBytesInThePacketModel) {
  EXPECT_NEAR(app(small_beside_large("packet"), "a")["throughput_gbps"].get<double>(), 113.68 * 64 / 368, 0.2);
}

TEST(FlowArbitration, ASmallCopysTurnCarriesItsOwnBytesInTheFluid) {
  SimOutcome o = small_beside_large("flow");
  EXPECT_NEAR(app(o, "a")["throughput_gbps"].get<double>(), 113.68 * 64 / 368, 0.2);
  EXPECT_NEAR(end_of(o, "b"), 419000, 0.01 * 419000);
}

// 293 B copies are a 256 B TLP and a 37 B tail: two turns carry 293 B of them on 341 wire
// bytes against the 4 MiB copy's 512 on 560, so they get 113.68 x 293 / 901 = 36.97 Gb/s.
// Counted at 256 B a turn the fluid gave them 35 % more than the packet model (a user trial).
TEST(FlowArbitration, ACopysTailTakesATurnOfItsOwnInThePacketModel) {
  EXPECT_NEAR(app(small_beside_large("packet", 293), "a")["throughput_gbps"].get<double>(), 113.68 * 293 / 901, 0.4);
}

TEST(FlowArbitration, ACopysTailTakesATurnOfItsOwnInTheFluid) {
  EXPECT_NEAR(app(small_beside_large("flow", 293), "a")["throughput_gbps"].get<double>(), 113.68 * 293 / 901, 0.4);
}

namespace {

// 456 B copies (one TLP each, MPS 512) two deep in VC1 above 64 KiB ones in VC0, strict VC
// arbitration on sw0's x4 uplink: in the packet model the gaps between the short copies let
// VC0's 512 B TLPs in (64 KiB copies at 10.05 Gb/s), where the fluid gives the short copies
// the link back to back (5.89 Gb/s for the 64 KiB ones: a user trial, unnamed).
std::string short_copies_above(const char* vc_arbiter) {
  return std::string("platform:\n  name: strict-turns\n  mps: 512\n"
                     "  nodes: [{name: rc0, type: root_complex}, {name: sw0, type: switch}, {name: gpu1, type: gpu},"
                     " {name: gpu2, type: gpu}]\n"
                     "  links: [{up: rc0, down: sw0, width: 4, vcs: 2, arbitration_up: {vc_arbiter: {type: ") +
         vc_arbiter + "}}}, {up: sw0, down: gpu1, vcs: 2}, {up: sw0, down: gpu2, vcs: 2}]\n"
         "sim: {fidelity: flow}\n"
         "apps:\n"
         "  - {name: a0, type: stream, gpu: gpu2, size: {fixed: 65536}, depth: 2, tc: 0, direction: d2h, duration_ns: 50000}\n"
         "  - {name: a1, type: stream, gpu: gpu1, size: {fixed: 456}, depth: 2, tc: 1, direction: d2h, duration_ns: 200000}\n";
}

const char* kTurns = "copies of a few TLPs beside another flow's TLPs on sw0->rc0";

}  // namespace

// The lower VC's copies are named with the short ones under strict VC priority...
TEST(FlowArbitration, CopiesBelowShortOnesInAStrictVcAreNamed) {
  SimOutcome o = run_yaml(short_copies_above("strict"));
  ASSERT_EQ(notes_at(o, "sw0->rc0"), (std::vector<std::string>{kTurns}));
  EXPECT_EQ(o.results["fidelity_notes"][0]["apps"].dump(), "[\"a0\",\"a1\"]");
}

// ... not under round robin VCs, where both fidelities agree (the short copies alone).
TEST(FlowArbitration, CopiesBesideShortOnesInRoundRobinVcsAreNotNamed) {
  SimOutcome o = run_yaml(short_copies_above("rr"));
  ASSERT_EQ(notes_at(o, "sw0->rc0"), (std::vector<std::string>{kTurns}));
  EXPECT_EQ(o.results["fidelity_notes"][0]["apps"].dump(), "[\"a1\"]");
}

// A copy's TLPs counted in its own size: 250 B pushed copies one deep behind 64 posted data
// credits (4 such TLPs of 16 credits; 2 of MPS 512) never run out of them, and both
// fidelities agree to the picosecond (a user trial: named, counted in 512 B TLPs).
TEST(FlowArbitration, SmallCopiesWithinTheirDataCreditsAreNotNamed) {
  SimOutcome o = run_yaml("platform:\n  name: over\n  mps: 512\n  h2d_mode: push\n"
                          "  nodes: [{name: rc0, type: root_complex}, {name: sw0, type: switch}, {name: gpu1, type: gpu}]\n"
                          "  links: [{up: rc0, down: sw0, credits: {pd: 64}}, {up: sw0, down: gpu1}]\n"
                          "sim: {fidelity: flow}\n"
                          "apps:\n"
                          "  - {name: a0, type: stream, gpu: gpu1, size: {fixed: 250}, depth: 1, direction: h2d, duration_ns: 100000}\n");
  EXPECT_TRUE(o.results["fidelity_notes"].empty()) << o.results["fidelity_notes"].dump(2);
}

namespace {

// gpu2 reads 4 KiB copies 32 deep (MRRS 128, 256 tags: 32 KiB of requests out) while gpu1
// writes copies of `write_bytes` up the same uplink, where gpu2's MRds take their turns.
std::string reads_beside_writes_up(const char* fidelity, int write_bytes, int write_depth) {
  return std::string("platform:\n  name: req\n  mps: 128\n  mrrs: 128\n"
                     "  nodes: [{name: rc0, type: root_complex}, {name: sw0, type: switch}, {name: gpu1, type: gpu},"
                     " {name: gpu2, type: gpu}]\n"
                     "  links: [{up: rc0, down: sw0}, {up: sw0, down: gpu1}, {up: sw0, down: gpu2}]\n"
                     "sim: {fidelity: ") + fidelity + "}\n"
         "apps:\n"
         "  - {name: a0, type: stream, gpu: gpu1, size: {fixed: " + std::to_string(write_bytes) + "}, depth: " +
         std::to_string(write_depth) + ", direction: d2h, duration_ns: 200000}\n"
         "  - {name: a1, type: stream, gpu: gpu2, size: {fixed: 4096}, depth: 32, direction: h2d, duration_ns: 200000}\n";
}

const char* kHeldBriefly = "a read's requests held back on sw0->rc0 by copies of a few percent of its tag window";

}  // namespace

// 128 B writes 16 deep come in bursts of 16 TLPs (2 KiB) that hold the read's MRds back for
// ~180 ns at a time; its 32 KiB of requests out keep its completions coming, so in the packet
// model its data move at its downlink's pace (96.2 Gb/s: a user trial; the fluid, holding it
// to its MRds' share of turns while the writes run, 82.3)...
// (the read keeps its downlink, which carries nothing else, busy: the waits cost it nothing)
TEST(FlowArbitration, AReadsWindowAbsorbsBriefWaitsOfItsRequestsInThePacketModel) {
  EXPECT_GT(link(run_yaml(reads_beside_writes_up("packet", 128, 16)), "rc0-sw0", "down")["utilization"].get<double>(),
            0.98);
}

// ... where the fluid holds the read to that share while they run, and says so;
TEST(FlowArbitration, AReadsRequestsHeldBrieflyAreNamed) {
  SimOutcome o = run_yaml(reads_beside_writes_up("flow", 128, 16));
  EXPECT_EQ(notes_at(o, "sw0->rc0"), (std::vector<std::string>{kHeldBriefly}));
  EXPECT_EQ(o.results["fidelity_notes"][0]["apps"].dump(), "[\"a1\"]");
}

// ... not beside 64 KiB writes, longer than its window, where both fidelities agree.
TEST(FlowArbitration, AReadsRequestsHeldByLongCopiesAreNotNamed) {
  EXPECT_TRUE(run_yaml(reads_beside_writes_up("flow", 65536, 2)).results["fidelity_notes"].empty());
}

namespace {

// gpu0 (8 tags, MRRS 1024, behind a x4 link) reads 2 MiB twice while gpu2 reads four 1 MiB
// copies (256 KiB windows) until ~686 us; every link has 8 VCs, and the driver's `policy`
// ranks the TCs. Under priority_l gpu2's TC goes above gpu0's, and each of gpu2's windows
// bursts onto rc0->sw0 ahead of gpu0's completions (~16 us of a Gen3 x16 link).
SimOutcome bursts_above(const char* fidelity, const char* policy) {
  return run_yaml(std::string("platform:\n  name: p\n  mps: 128\n  mrrs: 1024\n"
                              "  defaults: {link: {gen: 3, width: 16, latency_ns: 20, vcs: 8}}\n"
                              "  nodes: [{name: rc0, type: root_complex}, {name: sw0, type: switch},"
                              " {name: gpu0, type: gpu, tags: 8, copy_engines: 1}, {name: gpu2, type: gpu}]\n"
                              "  links: [{up: rc0, down: sw0}, {up: sw0, down: gpu0, width: 4}, {up: sw0, down: gpu2, width: 8}]\n"
                              "driver: {policy: ") + policy + "}\n"
                  "sim: {fidelity: " + fidelity + ", time_ns: 2000000}\n"
                  "apps:\n"
                  "  - {name: a1, gpu: gpu2, type: stream, direction: h2d, size: {fixed: 1MiB}, count: 4}\n"
                  "  - {name: a3, gpu: gpu0, type: copy_exec, h2d_bytes: 2MiB, kernel_ns: 10000, iterations: 2}\n");
}

const char* kBurstAbove = "a read's tag window bursting onto rc0->sw0 above lower VCs (strict VC priority)";

}  // namespace

// In the packet model gpu0's first copy, beside the bursts, is slower than its second, alone
// after ~686 us (a user trial: 766.5 against 682.8 us; the fluid gives both 682.8)...
TEST(FlowArbitration, AReadsWindowsAboveALowerVcHoldItBackInThePacketModel) {
  SimOutcome o = bursts_above("packet", "priority_l");
  const auto& a3 = app(o, "a3");
  EXPECT_GT(a3["max_ns"].get<double>(), 1.05 * a3["p50_ns"].get<double>());
}

// ... which the fluid names for gpu0's copies;
TEST(FlowArbitration, AReadsWindowsBurstingAboveALowerVcAreNamed) {
  SimOutcome o = bursts_above("flow", "priority_l");
  const std::vector<std::string> at = notes_at(o, "rc0->sw0");
  ASSERT_EQ(at, (std::vector<std::string>{kBurstAbove}));
  const std::vector<std::string> apps = apps_at(o, "rc0->sw0");
  EXPECT_NE(std::find(apps.begin(), apps.end(), "a3"), apps.end());
}

// ... not under rr (round robin VCs), where both fidelities agree to the nanosecond.
TEST(FlowArbitration, AReadsWindowsBesideRoundRobinVcsAreNotNamed) {
  EXPECT_TRUE(bursts_above("flow", "rr").results["fidelity_notes"].empty());
}

// A read held to its tag window's pace (8 tags, 256 KiB) below a stream of reads that
// priority_l ranks above it at host memory's strict VC arbiter: each of its requests'
// completions can wait behind the stream's (8.6 % slower at p99 in the packet model, a user
// trial, unnamed); named for it.
TEST(FlowArbitration, ATagBoundReadBelowAHigherVcIsNamed) {
  SimOutcome o = reads_behind_a_stream("priority_l");
  const std::vector<std::string> at = notes_at(o, "rc0_memory->rc0");
  EXPECT_NE(std::find(at.begin(), at.end(),
                      "a read held to its tag window's pace below a higher VC's traffic on rc0_memory->rc0 (strict VC priority)"),
            at.end());
}

namespace {

// gpu1 writes 2 MiB to host memory (its d2h engine) and, from 5 us, reads 2 MiB (its h2d
// engine, below the other at a strict port arbiter) over a Gen4 x8 link into sw0 and a
// Gen3 x16 uplink (survey seed 30105, minimised): the write is held at the uplink, which
// drains 256 B writes 1.8 % slower than gpu1's link brings them. Default credits: sw0 takes
// 128 posted TLPs from gpu1.
SimOutcome fill_beside_reads(const char* fidelity, const char* port) {
  return run_yaml(std::string("platform:\n  name: p\n  mps: 256\n  mrrs: 1024\n"
                              "  nodes: [{name: rc0, type: root_complex, latency_ns: 50, memory: {bandwidth_GBps: 64,"
                              " read_latency_ns: 318}}, {name: sw0, type: switch, latency_ns: 110}, {name: gpu1, type: gpu}]\n"
                              "  links:\n    - {up: rc0, down: sw0, gen: 3, width: 16, latency_ns: 39}\n"
                              "    - {up: sw0, down: gpu1, gen: 4, width: 8, latency_ns: 35, arbitration_up: {port_arbiter: {type: ") +
                  port + "}}}\n"
                  "sim: {fidelity: " + fidelity + "}\n"
                  "apps:\n"
                  "  - {name: w, gpu: gpu1, type: stream, direction: d2h, size: {fixed: 2MiB}, count: 1}\n"
                  "  - {name: r, gpu: gpu1, type: stream, direction: h2d, size: {fixed: 2MiB}, count: 1, start_ns: 5000}\n");
}

const char* kFillAhead = "credits filled ahead of its pace by a flow held back at sw0->rc0";

}  // namespace

// In the packet model the write, above the read's engine, takes every turn on gpu1's link
// while it has credits: its queue at sw0 grows by the links' difference, so 128 TLPs take
// B T / (1 - s) to fill (T = 256 B over gpu1's link, s = the uplink's rate over it; about
// 127 us), and the read sends its first request only then. Its end is at least 5 us + that +
// 2 MiB at the uplink's raw rate (the fluid ends it at 164.9 us).
TEST(FlowArbitration, AWriteFillingItsCreditsHoldsALowerEnginesReadBackInThePacketModel) {
  SimOutcome o = fill_beside_reads("packet", "strict");
  const double in = write_bytes_per_ns(4, 8), out = write_bytes_per_ns(3, 16);
  const double fill_ns = 128 * 256.0 / in / (1 - out / in);
  EXPECT_GT(fill_ns, 100e3);
  EXPECT_GT(end_of(o, "r"), 5000 + 0.95 * fill_ns + 2097152.0 / (raw_gbps(3, 16) / 8));
}

// ... which the fluid names for both;
TEST(FlowArbitration, AWriteFillingItsCreditsAboveALowerEngineIsNamed) {
  SimOutcome o = fill_beside_reads("flow", "strict");
  EXPECT_EQ(notes_at(o, "gpu1->sw0"), (std::vector<std::string>{kFillAhead}));
  EXPECT_EQ(o.results["fidelity_notes"][0]["apps"].get<std::vector<std::string>>(), (std::vector<std::string>{"w", "r"}));
}

// ... not under round robin, where the read's requests take their turns and both fidelities
// agree within 0.1 % (the survey's control).
TEST(FlowArbitration, AWriteFillingItsCreditsBesideARoundRobinPeerIsNotNamed) {
  EXPECT_TRUE(fill_beside_reads("flow", "rr").results["fidelity_notes"].empty());
}

namespace {

// A 512 KiB push to gpu0 behind an x4 link and a 256 KiB push to gpu1 on x16 share rc0->sw0
// (Gen3 x16, strict VC arbitration with starvation threshold `guard`; priority_l ranks the
// longer push higher): a user trial.
SimOutcome pushes_beside_a_fill(const char* guard) {
  return run_yaml(std::string("platform:\n  name: p\n  mps: 256\n  mrrs: 512\n  h2d_mode: push\n"
                              "  defaults: {link: {gen: 3, width: 16, latency_ns: 20, vcs: 8}}\n"
                              "  nodes: [{name: rc0, type: root_complex, latency_ns: 50}, {name: sw0, type: switch, latency_ns: 110},"
                              " {name: gpu0, type: gpu}, {name: gpu1, type: gpu}]\n"
                              "  links: [{up: rc0, down: sw0}, {up: sw0, down: gpu0, width: 4}, {up: sw0, down: gpu1}]\n"
                              "driver: {policy: priority_l, starvation_threshold: ") + guard + "}\n"
                  "sim: {fidelity: flow, time_ns: 300000}\n"
                  "apps:\n"
                  "  - {name: a1, gpu: gpu0, type: periodic, period_ns: 200000, h2d_bytes: 524288, count: 1, kernel_ns: 0}\n"
                  "  - {name: a3, gpu: gpu1, type: periodic, period_ns: 200000, h2d_bytes: 262144, count: 1, kernel_ns: 0}\n");
}

}  // namespace

// With a guard of 2 the push to gpu0 gets every third turn, more than its x4 link drains
// (25.6 % of the uplink's turns), until sw0's 128 posted credits fill: the push to gpu1 took
// 30.39 us in the packet model, 27.25 in the fluid (hand: 128 x 19.7 ns / (1 - 0.256) =
// 3.39 us more); named for it. With a guard of 8 (a ninth of the turns, under its pace) the
// fluid holds the push at rc0->sw0 too, nothing runs ahead, and both agree within 0.1 %.
TEST(FlowArbitration, APushFillingItsCreditsBesideAnotherVcIsNamed) {
  SimOutcome o = pushes_beside_a_fill("2");
  const std::vector<std::string> at = notes_at(o, "rc0->sw0");
  EXPECT_EQ(at, (std::vector<std::string>{"credits filled ahead of its pace by a flow held back at sw0->gpu0"}));
  EXPECT_EQ(apps_at(o, "rc0->sw0"), (std::vector<std::string>{"a1", "a3"}));
}

TEST(FlowArbitration, APushHeldAtTheSharedLinkIsNotNamedForAFill) {
  EXPECT_TRUE(notes_at(pushes_beside_a_fill("8"), "rc0->sw0").empty());
}

namespace {

// gpu2 reads 64 KiB (16 tags of 256 B: 4 KiB windows) from 50 us while gpu0 writes 2 MiB to
// host memory, whose port (12 GB/s) holds the write: rc0 has no VOQ, so the write backs up in
// rc0's queue from sw0 to its 128 posted credits, and the read's requests wait in that queue
// behind it (a user trial, minimised). `gpu0_link`: extra keys of sw0-gpu0.
SimOutcome reads_behind_a_backlog(const char* fidelity, const char* gpu0_link) {
  return run_yaml(std::string("platform:\n  name: p\n  mps: 256\n  mrrs: 256\n"
                              "  defaults: {link: {gen: 3, width: 16, latency_ns: 20}}\n"
                              "  nodes: [{name: rc0, type: root_complex, memory: {bandwidth_GBps: 12}}, {name: sw0, type: switch},"
                              " {name: gpu0, type: gpu}, {name: gpu2, type: gpu, tags: 16}]\n"
                              "  links: [{up: rc0, down: sw0}, {up: sw0, down: gpu0") + gpu0_link + "}, {up: sw0, down: gpu2}]\n"
                  "sim: {fidelity: " + fidelity + ", time_ns: 400000}\n"
                  "apps:\n"
                  "  - {name: a0, gpu: gpu2, type: stream, direction: h2d, size: {fixed: 65536}, count: 1, start_ns: 50000}\n"
                  "  - {name: a1, gpu: gpu0, type: stream, direction: d2h, size: {fixed: 2MiB}, count: 1}\n");
}

}  // namespace

// A window per drain of the backlog (the fluid's share of the queue: 16 requests among 128
// writes of t = 256 B / 12 GB/s = 21.33 ns) would take 16 x 128 t = 43.7 us for 64 KiB; each
// request also spends its round trip (under 1 us) outside the queue, so the packet model
// takes longer: between 1.1 x that and 16 x (1 us + 128 t) = 59.7 us (a user trial: 53.2 us).
TEST(FlowArbitration, AReadsWindowInABackedUpQueueAlsoTakesItsRoundTripInThePacketModel) {
  SimOutcome o = reads_behind_a_backlog("packet", "");
  const double t = 256 / 12.0, window_ns = 128 * t;
  const double took = app(o, "a0")["p50_ns"].get<double>();
  EXPECT_GT(took, 1.1 * 16 * window_ns);
  EXPECT_LT(took, 16 * (1000 + window_ns));
}

// ... which the fluid names for the read alone (the write agrees);
TEST(FlowArbitration, AReadsWindowInABackedUpQueueIsNamed) {
  SimOutcome o = reads_behind_a_backlog("flow", "");
  bool found = false;
  for (const auto& n : o.results["fidelity_notes"])
    if (n["setting"] == "a read's requests in one ingress queue behind a flow held back at rc0->rc0_memory") {
      found = true;
      EXPECT_EQ(n["apps"].get<std::vector<std::string>>(), (std::vector<std::string>{"a0"}));
    }
  EXPECT_TRUE(found) << o.results["fidelity_notes"].dump(2);
}

// ... not where the write is held at its own x8 link and nothing backs up (within 1.1 %).
TEST(FlowArbitration, AReadBesideAWriteThatDoesNotBackUpIsNotNamed) {
  EXPECT_TRUE(reads_behind_a_backlog("flow", ", width: 8").results["fidelity_notes"].empty());
}

namespace {

// gpu0's D2H write w (TC0, 4 MiB) and H2D read r (TC1, 4 MiB, from 1 us) on one GPU, Gen3
// x16 everywhere. gpu0's uplink arbitrates its engines by strict port priority (the write
// engine's slot above the read engine's); rc0 - sw0's VC arbiter is strict, r's MRds in VC1
// above w's VC0. The priorities disagree along their common way (arbitrated_rates.cpp).
std::string writes_above_read_requests(const char* fidelity) {
  return two_gpu_platform(", vcs: 2, arbitration_up: {vc_arbiter: {type: strict}}", "",
                          ", arbitration_up: {port_arbiter: {type: strict}}") +
         "sim: {fidelity: " + fidelity + "}\n"
         "apps:\n"
         "  - {name: w, type: stream, gpu: gpu0, direction: d2h, tc: 0, size: {fixed: 4MiB}, count: 1}\n"
         "  - {name: r, type: stream, gpu: gpu0, direction: h2d, tc: 1, size: {fixed: 4MiB}, count: 1, start_ns: 1000}\n";
}

// Hand timeline: w has gpu0's uplink whenever it has a TLP, and one whenever its queue at
// sw0 has room, which it always has (the uplink after it is as fast): r sends no MRd until
// w has gone, at T = 4 MiB at the MWr's rate, and its completions then take T_r = 4 MiB at
// the CplD's rate (a 3-DW header: 4 bytes less a TLP). w ends at T, r at T + T_r (plus a
// read's round trip, about 1 us: within 0.5 %). (The fluid's iteration had settled where w,
// slowed at the uplink by r's MRds in the higher VC, left r 1 % of gpu0's link: r at
// 2.1 GB/s beside w, ending at 484.4 us against the packet model's 641.8.)
void expect_writes_then_read(const SimOutcome& o) {
  const double rate = tlp_bandwidth_gbps(PcieLinkParams{}) / 8;
  const double t = 4194304.0 / 256 * (256 + tlp_overhead_bytes(TlpType::MWr, PcieLinkParams{})) / rate;
  const double t_r = 4194304.0 / 256 * (256 + tlp_overhead_bytes(TlpType::CplD, PcieLinkParams{})) / rate;
  EXPECT_NEAR(end_of(o, "w") / t, 1.0, 0.005);
  EXPECT_NEAR(end_of(o, "r") / (t + t_r), 1.0, 0.005);
}

// A flow run that meets `expect` and names nothing: the fluid represents it.
void expect_noteless(const SimOutcome& o, void (*expect)(const SimOutcome&)) {
  expect(o);
  EXPECT_TRUE(o.results["fidelity_notes"].empty()) << o.results["fidelity_notes"].dump(2);
}

}  // namespace

TEST(FlowArbitration, PrioritiesThatDisagreeAlongAWayGoByTheFirstLink) {
  expect_noteless(run_yaml(writes_above_read_requests("flow")), expect_writes_then_read);
}

TEST(FlowArbitration, PrioritiesThatDisagreeAlongAWayGoByTheFirstLinkInThePacketModel) {
  expect_writes_then_read(run_yaml(writes_above_read_requests("packet")));
}

// Survey seed 30157, where the rule was found: gpu0's D2H writes t1 (TC4) above its read
// t0's MRds (TC6) at gpu0's strict uplink, the MRds in the higher VC at sw3's strict uplink,
// both Gen2 x16. The packet model sends no MRd of t0 while t1 runs (ended 2,989.0 us, t1
// 1,360.8); the fluid had moved t0 at 2.89 GB/s beside t1 and ended it at 899.2 us, before
// t1. A bound: t0 ends no sooner than t1's end plus its 2,318,336 bytes at gpu0's link's
// whole TLP rate.
TEST(FlowArbitration, PrioritiesThatDisagreeAlongAWayInASurveySeed) {
  const SimOutcome f = simulate(load_scenario("tests/data/regress/survey30157.yaml", {"sim.fidelity=flow"}));
  PcieLinkParams gen2x16;
  gen2x16.gen = 2;
  gen2x16.width = 16;
  EXPECT_GT(end_of(f, "t0"), end_of(f, "t1") + 2318336 / (tlp_bandwidth_gbps(gen2x16) / 8));
}

// Survey seed 30017: gpu4's H2D read t0 (TC4) and D2H write t5 (TC2, from 182.654 us) take
// turns on gpu4's Gen3 x4 uplink (WRR, equal weights); at sw2's Gen3 x4 uplink next, the
// write goes first (arbitrated_rates.cpp: a flow held at a link by one held before it). The
// links are equally fast, so the MRds get there all that the turns before let through:
// each pair of turns (a 280-byte MWr and a 24-byte MRd, MPS = MRRS = 256) moves 256 bytes
// of each. Before the write, the read moves at the CplD's rate on its Gen3 x4 links. Hand:
// t0 ends at 182.654 us + (6,103,040 B - that rate x 182.654 us) / the pair's rate, within
// 2 % (the packet model: 1,957.9 us; the fluid had settled, damped, half way along a line of
// points and ended t0 at 3,173.4 us).
TEST(FlowArbitration, AFlowHeldAtALinkByOneHeldBeforeIt) {
  const SimOutcome f = simulate(load_scenario("tests/data/regress/survey30017.yaml", {"sim.fidelity=flow"}));
  PcieLinkParams gen3x4;
  gen3x4.width = 4;
  const double bytes_per_ns = tlp_bandwidth_gbps(gen3x4) / 8;
  const double alone = bytes_per_ns * 256 / (256 + tlp_overhead_bytes(TlpType::CplD, gen3x4));
  const double paired = bytes_per_ns * 256 /
                        (256 + tlp_overhead_bytes(TlpType::MWr, gen3x4) + tlp_overhead_bytes(TlpType::MRd, gen3x4));
  const double hand = 182654 + (6103040 - alone * 182654) / paired;
  EXPECT_NEAR(end_of(f, "t0") / hand, 1.0, 0.02) << hand;
}

namespace {

// gpu0's D2H write w and H2D read r (from 1 us), one TC, Gen3 x16 everywhere: gpu0's
// uplink gives its engines strict port priority with a starvation guard of 3 (the write
// engine's slot above), and both then share sw0's uplink in one queue, in the mix gpu0 sent.
std::string writes_and_guarded_requests(const char* fidelity) {
  return two_gpu_platform("", "", ", arbitration_up: {port_arbiter: {type: strict, starvation_threshold: 3}}") +
         "sim: {fidelity: " + fidelity + "}\n"
         "apps:\n"
         "  - {name: w, type: stream, gpu: gpu0, direction: d2h, tc: 0, size: {fixed: 4MiB}, count: 1}\n"
         "  - {name: r, type: stream, gpu: gpu0, direction: h2d, tc: 0, size: {fixed: 4MiB}, count: 1, start_ns: 1000}\n";
}

// Hand timeline: the guard gives r's MRds one turn in 4 on gpu0's link, so each 3 MWrs
// (3 x 280 wire bytes) and 1 MRd (24; 512 bytes asked) take 864 / C: w's 16,384 MWrs end at
// 16,384 / 3 x 864 / C, when r has asked 16,384 / 3 x 512 = 2,796,203 bytes; the other
// 1,398,101 then come at the CplD's rate (sw0's uplink carries the same mix: it holds
// neither). Within 0.5 %. (The fluid had held w at sw0's uplink, a tie, and given the MRds
// the rest of gpu0's link beyond the guard's turn: r at 380.2 us against 439.5, damped.)
void expect_guarded_requests(const SimOutcome& o) {
  const PcieLinkParams link;
  const double c = tlp_bandwidth_gbps(link) / 8;
  const double w = 16384.0 / 3 * (3 * (256 + tlp_overhead_bytes(TlpType::MWr, link)) + tlp_overhead_bytes(TlpType::MRd, link)) / c;
  const double rest = 4194304.0 - 16384.0 / 3 * 512;
  EXPECT_NEAR(end_of(o, "w") / w, 1.0, 0.005);
  EXPECT_NEAR(end_of(o, "r") / (w + rest / 256 * (256 + tlp_overhead_bytes(TlpType::CplD, link)) / c), 1.0, 0.005);
}

}  // namespace

TEST(FlowArbitration, AFlowInTheMixALinkBeforeSentIsHeldThereNotAfter) {
  expect_noteless(run_yaml(writes_and_guarded_requests("flow")), expect_guarded_requests);
}

TEST(FlowArbitration, AFlowInTheMixALinkBeforeSentIsHeldThereNotAfterInThePacketModel) {
  expect_guarded_requests(run_yaml(writes_and_guarded_requests("packet")));
}

namespace {

// Two reads from host memory, gpu0's in TC0 with 192 tags and gpu1's in TC4 with 64 (MRRS
// 512: windows of 96 and 32 KiB), under sw1 behind a Gen2 x4 link (the bottleneck) below a
// Gen4 x16 root port, both links of one VC. The root port has room: the reads' completions
// wait in sw0's one queue from it, whatever the memory port's order by TC, and leave in
// arrival order: each read gets turns in proportion to its window, 3 : 1. With 3 MiB and 1
// MiB to read, both end at T = 4 MiB of 256 B CplDs at the Gen2 x4 link's TLP rate.
std::string reads_by_window(const std::string& fidelity) {
  const std::string yaml = R"(platform:
  name: windows
  mps: 256
  mrrs: 512
  defaults: {link: {gen: 4, width: 8, vcs: 1}}
  nodes: [{name: rc0, type: root_complex}, {name: sw0, type: switch}, {name: sw1, type: switch},
          {name: gpu0, type: gpu, tags: 192}, {name: gpu1, type: gpu, tags: 64}]
  links: [{up: rc0, down: sw0, width: 16}, {up: sw0, down: sw1, gen: 2, width: 4},
          {up: sw1, down: gpu0}, {up: sw1, down: gpu1}]
apps:
  - {name: a, type: stream, gpu: gpu0, direction: h2d, tc: 0, size: {fixed: 3MiB}, count: 1}
  - {name: b, type: stream, gpu: gpu1, direction: h2d, tc: 4, size: {fixed: 1MiB}, count: 1}
)";
  return yaml + "sim: {fidelity: " + fidelity + "}\n";
}

// Within 3 % (the packet model: a at 2,505.7 us, b at 2,454.3; the fluid, strict by TC
// through the root port, had b first, at 627 us, until 2026-11-28).
void expect_reads_by_window(const SimOutcome& o) {
  PcieLinkParams gen2x4;
  gen2x4.gen = 2;
  gen2x4.width = 4;
  const double t = 4194304.0 / 256 * (256 + tlp_overhead_bytes(TlpType::CplD, gen2x4)) / (tlp_bandwidth_gbps(gen2x4) / 8);
  EXPECT_NEAR(end_of(o, "a") / t, 1.0, 0.03);
  EXPECT_NEAR(end_of(o, "b") / t, 1.0, 0.03);
}

}  // namespace

TEST(FlowArbitration, ReadsInOneQueueBelowARootPortWithRoomShareByTheirWindows) {
  expect_reads_by_window(run_yaml(reads_by_window("flow")));
}

TEST(FlowArbitration, ReadsInOneQueueBelowARootPortWithRoomShareByTheirWindowsInThePacketModel) {
  expect_reads_by_window(run_yaml(reads_by_window("packet")));
}

namespace {

// Survey seed 30167, trimmed to its two apps that meet: gpu3's peer write t2 is held by
// rc0 -> sw0 (Gen2 x4) and backs up into rc0's FIFO from gpu3, 128 MWrs of 256 B (its 2,048
// posted data credits); gpu3's read t5 (256 tags, MRRS 512 B) has its MRds wait in that FIFO
// behind them, 128 at a time (its 128 non-posted credits), so they pass in waves of 128, one
// per 128 MWrs of t2 drained: R = 128 MWrs at the Gen2 x4 link's pace (256 + 24 wire bytes
// each). The read's 2,728 MRds make 21 whole waves and a last of 40 (20,480 B); the first
// wave's data come a wave's wait after the read's start, and the last wave's a wait after the
// one before, at gpu3's Gen4 x8 link's pace (CplDs of 256 B): by hand 22 R + 20,480 B at that
// pace = 438.3 us. The packet model: 440.4 us (+0.5 %). The fluid, spreading the last wave at
// the read's rate, ended it at 423.6 us (-3.3 %): each half wave more stepped its end by
// 9.9 us where the packet model's stepped by 17.4 and 2.4 (flow_fabric.cpp, last_wave_ns()).
double waves_read_time() {
  PcieLinkParams gen2x4, gen4x8;
  gen2x4.gen = 2;
  gen2x4.width = 4;
  gen4x8.gen = 4;
  gen4x8.width = 8;
  const double wave_ns = 128 * (256 + 24) / (tlp_bandwidth_gbps(gen2x4) / 8);
  const double last_ns = 20480.0 / 256 * (256 + tlp_overhead_bytes(TlpType::CplD, gen4x8)) / (tlp_bandwidth_gbps(gen4x8) / 8);
  return 22 * wave_ns + last_ns;
}

}  // namespace

TEST(FlowArbitration, AReadHeldByAQueueEndsInWholeWaves) {
  const SimOutcome o = simulate(load_scenario("tests/data/regress/survey30167.yaml", {}));
  EXPECT_NEAR(end_of(o, "t5"), waves_read_time(), 0.01 * waves_read_time());
}

// The hand timeline is the packet model's.
TEST(FlowArbitration, AReadHeldByAQueueEndsInWholeWavesInThePacketModel) {
  const SimOutcome o = simulate(load_scenario("tests/data/regress/survey30167.yaml", {"sim.fidelity=packet"}));
  EXPECT_NEAR(end_of(o, "t5"), waves_read_time(), 0.01 * waves_read_time());
}

// Held-out survey seed 30514 without two apps that do not meet (tests/data/regress): t2's
// completions, held at sw1 -> gpu3, back up sw1's FIFO from rc0, and t3's and t5's TLPs wait
// behind them; the FIFO leaves in its order, so t2 moves at another rate than the fluid's
// too, and t1, sharing host memory's saturated port with it, in turn. The packet model ends t1
// 19 % sooner (918.7 against 1,093.5 us, measured); the note names it with the flows in
// the FIFO (it named t2, t3 and t5 only).
TEST(FlowArbitration, AFifoHeldFlowsOwnSharersAreNamed) {
  const SimOutcome o = simulate(load_scenario("tests/data/regress/survey30514.yaml", {"sim.fidelity=flow"}));
  ASSERT_EQ(notes_at(o, "rc0->sw1").size(), 1u) << o.results["fidelity_notes"].dump(2);
  EXPECT_EQ(apps_at(o, "rc0->sw1"), (std::vector<std::string>{"t1", "t2", "t3", "t5"}));
}
