// The flow-level mode against the packet model (issue "Seed 002", flow-level mode):
// completion times of transfers of 1 MiB and more agree within 3 % on the shipped
// platforms (configs/platforms/*.yaml) and on random trees (fixed seeds, random_tree.h).
// Each comparison runs the pcie-arbsim binary twice, once per mode: SystemC elaborates
// once per process.
#include <gtest/gtest.h>
#include <tuple>
#include <set>
#include <sys/wait.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>
#include "tests/common/cli_harness.h"
#include "tests/flow/random_tree.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace arbsim::test;

namespace {

const std::string kBin = ARBSIM_BIN;
const std::string kSrc = ARBSIM_SRC;
constexpr double kTolerance = 0.03;

class FlowVsPacket : public TempDirTest {
 protected:
  // Exit code of `pcie-arbsim ARGS` (space-separated) run in the test directory; stderr in
  // stderr.txt.
  int cli(const std::string& args) const {
    std::vector<std::string> argv;
    std::stringstream in(args);
    for (std::string a; in >> a;) argv.push_back(a);
    return run_binary(kBin, argv).code;
  }

  json run(const std::string& yaml, const std::string& fidelity) const {
    std::ofstream(dir_ / "case.yaml") << yaml;
    EXPECT_EQ(cli("run case.yaml --out " + fidelity + " --fidelity " + fidelity), 0) << slurp(dir_ / "stderr.txt");
    return json::parse(slurp(dir_ / fidelity / "results.json"));
  }

  // Every app's transfer latencies (median and worst) and last completion, flow against
  // packet; returns the largest relative difference.
  double compare(const std::string& yaml, const std::vector<const char*>& keys = {"p50_ns", "max_ns", "last_done_ns"}) {
    const json p = run(yaml, "packet"), f = run(yaml, "flow");
    EXPECT_EQ(p["transfers_open"], 0);
    EXPECT_EQ(f["transfers_open"], 0);
    EXPECT_EQ(f["bytes_delivered"], p["bytes_delivered"]);
    double worst = 0;
    for (std::size_t a = 0; a < p["apps"].size(); ++a)
      for (const char* key : keys) {
        const double pv = p["apps"][a][key], fv = f["apps"][a][key];
        const double err = std::abs(fv - pv) / pv;
        worst = std::max(worst, err);
        EXPECT_LE(err, kTolerance) << p["apps"][a]["name"] << " " << key << ": packet " << pv << " ns, flow " << fv
                                   << " ns\n" << yaml;
      }
    return worst;
  }

  // How much later the writes' p99 is beside the reads than alone, in the packet model (the
  // writes the last app of `platform` + apps).
  double writes_later_beside(const std::string& platform, const std::string& reads, const std::string& writes) const {
    const auto p99 = [](const json& r) { return r["apps"][r["apps"].size() - 1]["p99_ns"].get<double>(); };
    return p99(run(platform + reads + writes, "packet")) - p99(run(platform + writes, "packet"));
  }
};

// One GPU reading from host memory on one Gen3 x16 link, MRRS 512, up to its apps (the
// packet model's turns of a read engine's requests with writes).
const char* const kOneGpuReading =
    "platform:\n  mrrs: 512\n  h2d_mode: read\n  nodes: [{name: rc0, type: root_complex}, {name: gpu0, type: gpu}]\n"
    "  links: [{up: rc0, down: gpu0}]\napps:\n";

std::string seed000(const std::string& apps) {
  return "platform: " + kSrc + "/configs/platforms/seed000_fig2.yaml\napps:\n" + apps;
}

// ---- Results and config ----------------------------------------------------------------

// The flow mode writes every results.json key the packet model does: the same link
// directions with the same payload and wire bytes (it counts the TLPs the packet model
// would send), no TLP hops and no arbiters (docs/results.md).
TEST_F(FlowVsPacket, SameResultKeysAndLinkBytes) {
  const std::string yaml = seed000(
      "  - {name: r, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 3MiB}, count: 2}\n"
      "  - {name: w, type: stream, gpu: gpu1, direction: d2h, size: {fixed: 2MiB}, count: 2}\n"
      "  - {name: p, type: peer, gpu: gpu2, peer: gpu3, size: {fixed: 1MiB}, count: 1}\n");
  const json p = run(yaml, "packet"), f = run(yaml, "flow");
  for (const auto& [key, value] : p.items()) EXPECT_TRUE(f.contains(key)) << key;
  EXPECT_EQ(p["fidelity"], "packet");
  EXPECT_EQ(f["fidelity"], "flow");
  EXPECT_GT(p["tlp_hops"].get<uint64_t>(), 0u);
  EXPECT_EQ(f["tlp_hops"], 0);
  EXPECT_TRUE(f["arbiters"].empty());
  ASSERT_EQ(f["links"].size(), p["links"].size());
  for (std::size_t l = 0; l < p["links"].size(); ++l) {
    const json &pl = p["links"][l], &fl = f["links"][l];
    EXPECT_EQ(fl["name"], pl["name"]);
    EXPECT_EQ(fl["direction"], pl["direction"]);
    EXPECT_EQ(fl["bytes"], pl["bytes"]) << pl["name"] << " " << pl["direction"];
    EXPECT_EQ(fl["wire_bytes"], pl["wire_bytes"]) << pl["name"] << " " << pl["direction"];
    EXPECT_EQ(fl["vc_bytes"], pl["vc_bytes"]);
    EXPECT_NEAR(fl["utilization"].get<double>(), pl["utilization"].get<double>(), 0.01);
  }
  EXPECT_EQ(f["gpus"].size(), p["gpus"].size());
}

// Seed 000's priority policies act through VC arbitration (strict priority, TC/VC maps
// reprogrammed as copies come and go), which the flow mode follows
// (models/flow/edge_share.h): on Fig. 2's platform, gpu0 reads 8 MiB and gpu1 2 MiB, both
// from 0, under each policy. Each app's completion agrees within 3 % between the fidelities.
TEST_F(FlowVsPacket, PriorityPoliciesAgree) {
  const std::string apps =
      "  - {name: big, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 8MiB}, count: 1}\n"
      "  - {name: small, type: stream, gpu: gpu1, direction: h2d, size: {fixed: 2MiB}, count: 1}\n";
  for (const char* policy : {"priority_s", "priority_l", "qos", "rr"}) {
    const double worst = compare(seed000(apps) + "driver: {policy: " + policy + "}\n");
    std::printf("flow vs packet, seed 000 policy %s: worst error %.3f %%\n", policy, 100 * worst);
  }
}

// Round robin is per ingress port, then per flow (docs/architecture.md, "Flow-level mode:
// arbitration"), in both fidelities. Three GPUs write to a 6 GB/s host memory, two of them
// through one root port (sw0) and one through another (sw1): the lone root port gets half
// the memory, the other half is split by two (flat max-min per flow would give a third
// each, a ratio of 1).
TEST_F(FlowVsPacket, RoundRobinIsPerIngressPortThenPerFlow) {
  const std::string apps =
      "  - {name: a, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 1MiB}, duration_ns: 4000000}\n"
      "  - {name: b, type: stream, gpu: gpu1, direction: d2h, size: {fixed: 1MiB}, duration_ns: 4000000}\n"
      "  - {name: c, type: stream, gpu: gpu2, direction: d2h, size: {fixed: 1MiB}, duration_ns: 4000000}\n";
  std::ofstream(dir_ / "case.yaml") << seed000(apps) << "sim: {time_ns: 4000000}\n";
  for (const char* fidelity : {"packet", "flow"})
    ASSERT_EQ(cli(std::string("run case.yaml -s platform.nodes.rc0.memory.bandwidth_GBps=6 --out ") + fidelity +
                  " --fidelity " + fidelity), 0) << slurp(dir_ / "stderr.txt");
  // Bytes gpu0 moved over bytes gpu2 moved.
  auto ratio = [&](const char* fidelity) {
    const json r = json::parse(slurp(dir_ / fidelity / "results.json"));
    return r["apps"][0]["bytes"].get<double>() / r["apps"][2]["bytes"].get<double>();
  };
  EXPECT_NEAR(ratio("packet"), 0.5, 0.05);  // sw0's port gets half the memory, split by two
  EXPECT_NEAR(ratio("flow"), 0.5, 0.05);
}

// Seed 002's batch run-time in both modes: Sandy Bridge, each direction of a 48 MiB
// GPU-to-GPU exchange staged through host memory, beside kernels and an H2D copy with a
// kernel, under each method (docs/batch-method.md).
TEST_F(FlowVsPacket, BatchProgramsWithStagedCopiesAgree) {
  for (const char* method : {"batch", "bandwidth_allocation", "time_division"}) {
    const std::string yaml =
        "platform: " + kSrc + "/configs/platforms/seed002_sandybridge_k10.yaml\napps:\n"
        "  - name: b\n    type: batch\n    count: 2\n    method: " + std::string(method) + "\n    program:\n"
        "      - streams: [{gpu: gpu0, peer: gpu2, bytes: 48MiB}, {gpu: gpu2, peer: gpu0, bytes: 48MiB},\n"
        "                  {gpu: gpu1, bytes: 32MiB, kernel_ns: 2e6}, {gpu: gpu3, kernel_ns: 3e6}]\n";
    std::printf("flow vs packet, staged batch (%s): worst error %.3f %%\n", method, 100 * compare(yaml));
  }
}

// Seed 001 Fig. 2's profiling testbench in small (tests/sim/test_mig.cpp has the MIG split
// itself): four PCIe-bound jobs on 1g instances of an A100 on a Gen4 x16 root port, each
// loading 4 MiB then computing 200 us, five times; alone a load takes ~170 us, so the four
// oversubscribe the link. Starts 50 us apart: identical jobs started together are a tie the
// fidelities break differently (docs/gpu-sharing.md, "MIG instances": the flow mode keeps
// them in step, the packet model lets them drift apart; 17 % apart after 8 layers in the
// mig-bandwidth reproduction). Compared: each job's end, its runtime(j, n) of seed 001 Eq. 1
// (the median of five copy latencies shifts with the jobs' phases: up to 3 % here).
TEST_F(FlowVsPacket, MigInstancesWithPcieBoundJobsAgree) {
  std::string yaml =
      "platform:\n  defaults: {link: {gen: 4, width: 16}}\n  nodes:\n    - {name: rc0, type: root_complex}\n"
      "    - {name: gpu0, type: gpu, mig: [1g, 1g, 1g, 1g, 1g, 1g, 1g]}\n  links:\n    - {up: rc0, down: gpu0}\n"
      "apps:\n";
  for (int i = 0; i < 4; ++i)
    yaml += "  - {name: j" + std::to_string(i) + ", type: copy_exec, gpu: gpu0/mig" + std::to_string(i) +
            ", h2d_bytes: 4MiB, kernel_ns: 200us, iterations: 5, start_ns: " + std::to_string(50000 * i) + "}\n";
  std::printf("flow vs packet, MIG PCIe-bound jobs: worst error %.3f %%\n", 100 * compare(yaml, {"last_done_ns"}));
}

// One copy engine carrying both directions: 8 reads (H2D) and 8 writes (D2H) of 256 KiB,
// alternating on one queue. The packet model's engine takes the next command once a read
// has issued its last request, so each write runs beside the read before it (the two
// directions of the link); the fluid ran them one after the other: 321.0 us against the
// packet model's 292.8 us. Now within 1 %.
TEST_F(FlowVsPacket, OneEngineOverlapsAWriteWithTheReadBeforeIt) {
  const std::string yaml =
      "platform:\n  nodes:\n    - {name: rc0, type: root_complex}\n    - {name: gpu0, type: gpu, copy_engines: 1}\n"
      "  links:\n    - {up: rc0, down: gpu0, gen: 3, width: 16}\n"
      "apps:\n"
      "  - {name: in, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 256KiB}, count: 8}\n"
      "  - {name: out, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 256KiB}, count: 8}\n";
  const json p = run(yaml, "packet"), f = run(yaml, "flow");
  for (std::size_t a = 0; a < 2; ++a) {
    const double pv = p["apps"][a]["last_done_ns"], fv = f["apps"][a]["last_done_ns"];
    EXPECT_NEAR(fv / pv, 1.0, 0.01) << p["apps"][a]["name"] << ": packet " << pv << " ns, flow " << fv << " ns";
  }
}

// Two reads of one completer on one engine, then a write: the packet model's engine issues
// the second read's requests (the tags allow: 64 + 64 of 256) and takes the write; the
// fluid held the second read in the queue until the first one's data was in, and the write
// behind it: p99 5,260 against 7,637 ns with 10 32-KiB copies each way (a user trial).
// Within 3 % now.
TEST_F(FlowVsPacket, OneEngineIssuesASecondReadAndTakesTheWriteBehindIt) {
  compare("platform:\n  nodes: [{name: rc0, type: root_complex}, {name: gpu0, type: gpu, copy_engines: 1}]\n"
          "  links: [{up: rc0, down: gpu0}]\n"
          "apps:\n  - {name: h, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 32KiB}, count: 10}\n"
          "  - {name: d, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 32KiB}, count: 10}\n",
          {"p50_ns", "p99_ns", "max_ns", "last_done_ns"});
}

// A read longer than its tag window frees its engine when it issues its last request: when
// the data of the request a window before it has arrived, not when the fluid has only that
// window left to send (a round trip sooner). One engine with 16 tags (a window of 8 KiB)
// alternating two 32-KiB reads and two writes: the writes started 540 ns early and every
// copy took 9,420 ns against the packet model's 9,937 (5.2 % fast, with no note: a user
// re-trial). Within 1 % now.
TEST_F(FlowVsPacket, AReadHeldByItsTagsFreesItsEngineWhenTheWindowBeforeItsEndIsIn) {
  const double worst = compare(
      "platform:\n  mrrs: 512\n  nodes: [{name: rc0, type: root_complex}, {name: gpu0, type: gpu, copy_engines: 1, "
      "tags: 16}]\n  links: [{up: rc0, down: gpu0, gen: 3, width: 16}]\n"
      "apps:\n  - {name: h, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 32KiB}, count: 10}\n"
      "  - {name: d, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 32KiB}, count: 10, start_ns: 2000}\n",
      {"p50_ns", "max_ns", "last_done_ns"});
  EXPECT_LT(worst, 0.01);
}

// An engine's tags are shared by its reads: one read back to back behind another finds only
// the tags whose data have arrived. The fluid gave each read a fresh window to request at
// once: 8 KiB reads with 16 tags of 512 B (one window each), two queued: last copy 4,568 ns
// against the packet model's 5,894 (-22.5 %), and 16 KiB reads with 2 tags of 4 KiB -27.7 %,
// with no note (a user re-trial: 27 of 108 cases of one stream outside 3 %). Within 1 % now.
TEST_F(FlowVsPacket, ReadsBackToBackShareTheirEnginesTags) {
  for (const auto& [tags, mrrs, size] : std::vector<std::tuple<int, int, const char*>>{{16, 512, "8KiB"}, {2, 4096, "16KiB"}}) {
    const double worst = compare(
        "platform: {mrrs: " + std::to_string(mrrs) + ", defaults: {link: {gen: 4, width: 16, latency_ns: 20}},\n"
        "  nodes: [{name: rc0, type: root_complex}, {name: gpu0, type: gpu, copy_engines: 1, tags: " +
            std::to_string(tags) + "}],\n  links: [{up: rc0, down: gpu0}]}\n"
        "apps: [{name: a, type: stream, gpu: gpu0, direction: h2d, size: {fixed: " + size + "}, count: 10, depth: 2}]\n",
        {"p50_ns", "max_ns", "last_done_ns"});
    EXPECT_LT(worst, 0.01) << tags << " tags of " << mrrs << " B, " << size;
  }
}

// A read that finds all its engine's tags out sends its requests as the first of them come
// back, a request's round trip after the read holding them sent its own, and its data follow
// as a lone read's. 2 KiB reads (4 requests of 512 B) 15 deep on an engine of 8 tags: reads 1
// and 2 take all 8 at once, so read 3 ends a lone 512 B read's time after a lone 2 KiB read
// ends, in both fidelities (the timeline, from two runs of one read each). The fluid gave
// read 3 its tags' pace from when read 2's fluid had gone: 1,125.8 against the packet
// model's 1,277.6 ns, and every second read 152 ns early (a user trial, with no note).
TEST_F(FlowVsPacket, AReadFindingAllItsEnginesTagsOutWaitsForTheFirstBack) {
  const auto stream = [](const char* size, int count) {
    return "platform:\n  nodes: [{name: rc0, type: root_complex}, {name: gpu0, type: gpu, tags: 8}]\n"
           "  links: [{up: rc0, down: gpu0, gen: 3, width: 16}]\n"
           "apps: [{name: rd, type: stream, gpu: gpu0, direction: h2d, size: {fixed: " + std::string(size) +
           "}, depth: 15, count: " + std::to_string(count) + "}]\n";
  };
  const double lone_2k = run(stream("2048", 1), "packet")["makespan_ns"];
  const double lone_512 = run(stream("512", 1), "packet")["makespan_ns"];
  for (const char* fidelity : {"packet", "flow"})
    EXPECT_NEAR(run(stream("2048", 3), fidelity)["makespan_ns"].get<double>(), lone_2k + lone_512, 1.0) << fidelity;
  EXPECT_LT(compare(stream("2048", 15), {"p50_ns", "max_ns", "last_done_ns"}), 0.001);
}

// A read of more requests than its engine's tags sends them a tag window at a time, each
// tag's next request when its last one's data are in: 13,447 B on 8 tags of MRRS 512 B is 27
// requests, three waves of 8 and a last of three (512 + 512 + 135 B), which ends a lone
// 1,159 B read's time after three lone 512 B reads' times; 4,500 B is 8 requests and a ninth
// of 404 B, one lone 512 B read's time and then a lone 404 B read's. So in both fidelities
// (the timeline, from runs of one read each). The fluid spread the last wave's round trip
// over the read (Little's law over the window): 2,011.2 and 753.0 ns against the packet
// model's 2,265.9 and 1,116.7 (-11.2 and -32.6 %, found by a user trial).
TEST_F(FlowVsPacket, AReadOfMoreRequestsThanTagsEndsWithItsLastWave) {
  const auto lone = [](int bytes) {
    return "platform:\n  nodes: [{name: rc0, type: root_complex}, {name: gpu0, type: gpu, tags: 8}]\n"
           "  links: [{up: rc0, down: gpu0, gen: 4, width: 16}]\n"
           "apps: [{name: rd, type: stream, gpu: gpu0, direction: h2d, size: {fixed: " + std::to_string(bytes) +
           "}, count: 1}]\n";
  };
  const auto ends = [&](int bytes, const char* fidelity) { return run(lone(bytes), fidelity)["makespan_ns"].get<double>(); };
  const double trip = ends(512, "packet");
  for (const char* fidelity : {"packet", "flow"}) {
    EXPECT_NEAR(ends(13447, fidelity), 3 * trip + ends(1159, "packet"), 1.0) << fidelity;
    EXPECT_NEAR(ends(4500, fidelity), trip + ends(404, "packet"), 1.0) << fidelity;
  }
}

// Reads back to back share their engine's tags request by request: 9,000 B reads (18
// requests of MRRS 512 B, the last 296 B) 4 deep on 8 tags. Read 1 sends waves of 8, 8 and 2;
// read 2's first 6 requests go out on the tags read 1's last wave leaves, then 8, then its
// last 4 (3 x 512 + 296 = 1,832 B) in the fifth wave: it ends four lone 512 B reads' times
// and then a lone 1,832 B read's after the start, in both fidelities. The fluid gave read 2
// its tags' pace (Little's law) after read 1's fluid had gone: read 2 at 2,617.8 ns against
// 2,852.0 (-8.2 %), the fourth +5.4 % once read 1 ended with its last wave (found by a grid
// of streams of reads on 4 and 8 tags: 13 of 48 outside 3 % then, none beyond 0.1 % now).
TEST_F(FlowVsPacket, ReadsBackToBackShareTheirTagsRequestByRequest) {
  const auto reads = [](int bytes, int count) {
    return "platform:\n  nodes: [{name: rc0, type: root_complex}, {name: gpu0, type: gpu, tags: 8}]\n"
           "  links: [{up: rc0, down: gpu0, gen: 4, width: 16}]\n"
           "apps: [{name: rd, type: stream, gpu: gpu0, direction: h2d, size: {fixed: " + std::to_string(bytes) +
           "}, depth: 4, count: " + std::to_string(count) + "}]\n";
  };
  const auto ends = [&](int bytes, int count, const char* fidelity) {
    return run(reads(bytes, count), fidelity)["makespan_ns"].get<double>();
  };
  const double trip = ends(512, 1, "packet"), last_wave = ends(1832, 1, "packet");
  for (const char* fidelity : {"packet", "flow"}) EXPECT_NEAR(ends(9000, 2, fidelity), 4 * trip + last_wave, 1.0) << fidelity;
  EXPECT_LT(compare(reads(9000, 4), {"p50_ns", "max_ns", "last_done_ns"}), 0.001);
}

// Reads of one request each, more of them queued than the engine has tags: each holds its tag
// for its whole round trip, so 212 B reads 8 deep on 4 tags move 4 per round trip and each
// waits one round trip for a tag (p50 two round trips). The fluid gave the tag back when the
// copy's fluid had gone (a TLP's time): 24.0 Gb/s against the packet model's 12.1, p50 558
// against 1,116 ns, with no note (a user trial; 26-128 B reads through a switch, 16 deep, 4
// tags: +296 %). Within 1 % now, and likewise for 1-byte and 512 B (a whole MRRS) copies;
// and within 3 % for copies of two requests shorter than MRRS (600 and 700 B: 300 and 350 B a
// request), whose tag pace counted MRRS a request (600 B: 28.0 against 16.5 Gb/s).
TEST_F(FlowVsPacket, ReadsOfOneRequestHoldTheirTagForTheRoundTrip) {
  for (const char* size : {"212", "1", "512", "600", "700"}) {
    const double worst = compare(
        std::string("platform:\n  nodes: [{name: rc0, type: root_complex}, {name: gpu0, type: gpu, tags: 4}]\n"
                    "  links: [{up: rc0, down: gpu0}]\n"
                    "apps: [{name: a0, type: stream, gpu: gpu0, size: {fixed: ") + size +
            "}, depth: 8, direction: h2d, count: 100}]\n",
        {"p50_ns", "max_ns", "last_done_ns"});
    // (Two requests of under MRRS: the tag pace is a mean, and a copy's max is 2.3 and 2.8 % apart.)
    EXPECT_LT(worst, std::string(size) == "600" || std::string(size) == "700" ? kTolerance : 0.01) << size << " B";
  }
}

// A read engine issues the requests of its reads at once, up to its tags: here 256 MRds at
// gpu0's egress, with which a stream of 64 writes of 64 B on its other engine takes turns one
// for one. The last write waits 63 MRds, 24 B each (docs/link-model.md): at least
// 63 x 24 / 15.754 = 96 ns (the raw rate; with DLLPs 1.69 ns each, 106 ns) later than alone,
// and no more than 64 x 1.8. (The fluid does not: fidelity_watch.cpp, request_pile().)
TEST_F(FlowVsPacket, WritesTakeTurnsWithAPileOfRequests) {
  const std::string platform = kOneGpuReading;
  const std::string writes = "  - {name: wr, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 64}, depth: 64, count: 64}\n";
  const std::string reads = "  - {name: rd, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 64KiB}, depth: 4, count: 4}\n";
  const double later = writes_later_beside(platform, reads, writes);
  EXPECT_GE(later, 63 * 24 / 15.754);
  EXPECT_LE(later, 64 * 1.8);
}

// The same turns on a link faster than the one the MRds come by: gpu1's five 2 KiB reads (20
// MRds of 512 B) arrive at sw0 from a Gen3 x16 link, one per 1.689 ns, faster than they leave
// up the Gen4 x8 uplink taking turns with gpu0's 64 B writes (one MRd and one write TLP,
// 1.658 + 5.5 ns), so they pile there and the writes wait them: the last at most 20 MRds'
// time, 20 x 1.658 = 33.2 ns, later than alone, and at least half of it (the writes also
// queue behind each other at sw0, where some of the MRds' turns are absorbed). (The fluid: 10
// ns; fidelity_watch.cpp, pile_at().)
TEST_F(FlowVsPacket, APileOfRequestsStandsOnAFasterLinkBeyond) {
  const std::string platform =
      "platform:\n  mrrs: 512\n  h2d_mode: read\n"
      "  nodes: [{name: rc0, type: root_complex}, {name: sw0, type: switch}, {name: gpu0, type: gpu}, {name: gpu1, type: gpu}]\n"
      "  links: [{up: rc0, down: sw0, gen: 4, width: 8}, {up: sw0, down: gpu0, gen: 3, width: 16},\n"
      "          {up: sw0, down: gpu1, gen: 3, width: 16}]\napps:\n";
  const std::string writes = "  - {name: wr, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 64}, depth: 64, count: 64}\n";
  const std::string reads = "  - {name: rd, type: stream, gpu: gpu1, direction: h2d, size: {fixed: 2KiB}, depth: 5, count: 5}\n";
  const double later = writes_later_beside(platform, reads, writes);
  EXPECT_GE(later, 20 * 1.658 / 2);
  EXPECT_LE(later, 20 * 1.658);
}

// Once a read engine has sent every request it was asked for, its reads' requests are gone
// from the link: four 16 KiB reads (128 MRds, within the 256 tags) leave at 0 and are out by
// 128 x 1.69 = 216 ns, so 4 KiB writes starting at 2,575 ns, while the reads' data still come
// down, have the up link to themselves: no later than alone (the fluid charges the reads'
// request share while their data run, 4.3 % of the link: p99 104 ns later; fidelity_watch.cpp,
// requests_gone()).
TEST_F(FlowVsPacket, WritesAfterTheReadsRequestsHaveGoneHaveTheLinkAlone) {
  const std::string platform = kOneGpuReading;
  const std::string writes =
      "  - {name: wr, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 4KiB}, depth: 13, count: 13, start_ns: 2575}\n";
  const std::string reads = "  - {name: rd, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 16KiB}, depth: 4, count: 4}\n";
  EXPECT_NEAR(writes_later_beside(platform, reads, writes), 0.0, 1.0);
}

// Reads held up by a strict higher VC, then let go, move at their tags' pace: gpu0 (8 tags,
// MRRS 512) reads thirteen 2 KiB copies (52 MRds) while its TC1 writes hold sw0's Gen4 x4
// uplink under strict VC priority until about 30.5 us. Then the reads go in waves of 8
// requests, each a round trip after the one before: 4 x 20 ns of links, 2 x 110 of sw0, 2 x 50
// of rc0, 400 of memory and the last request's two CplDs of 280 B at 7.877 GB/s (71 ns), 871
// ns at least. So the last read ends at least 6 such round trips (7 waves) after the waves
// start, which is no sooner than the last write's end less its last TLP past sw0 (35.5 + 20 +
// 50 ns). Both fidelities agree within 3 %. (The fluid had followed the engine's tags on a
// timeline alone on the links, which had them back long before: each copy took a fresh window
// at the link's 6.74 GB/s and the last ended 4.4 % early; found by a user trial.)
TEST_F(FlowVsPacket, ReadsHeldBelowAStrictVcGoAtTheirTagsPaceWhenLetGo) {
  const std::string yaml =
      "platform:\n  defaults: {link: {vcs: 2}}\n  arbitration: {vc_arbiter: {type: strict}}\n"
      "  nodes: [{name: rc0, type: root_complex}, {name: sw0, type: switch}, {name: gpu0, type: gpu, tags: 8, h2d_mode: read}]\n"
      "  links: [{up: rc0, down: sw0, gen: 4, width: 4}, {up: sw0, down: gpu0, gen: 3, width: 16}]\n"
      "apps:\n  - {name: rd, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 2048}, depth: 15, count: 13}\n"
      "  - {name: wr, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 3856}, depth: 42, count: 52, tc: 1}\n";
  compare(yaml);
  for (const char* fidelity : {"packet", "flow"}) {
    const json r = json::parse(slurp(dir_ / fidelity / "results.json"));
    const double rd = r["apps"][0]["last_done_ns"], wr = r["apps"][1]["last_done_ns"];
    EXPECT_GE(rd - wr, 6 * 871.0 - (35.5 + 20 + 50)) << fidelity;
  }
}

// gpu1 (Gen4 x8) writes 32 KiB peer copies to gpu0 (Gen3 x16) from 0, and reads 1 KiB copies
// 8 deep from host memory from `start_ns`; both in one VC through sw0's FIFO ingress from gpu1.
std::string reads_beside_peer_writes(int start_ns, bool writes = true) {
  return "platform:\n  h2d_mode: read\n"
         "  nodes: [{name: rc0, type: root_complex}, {name: sw0, type: switch}, {name: gpu0, type: gpu, tags: 32},\n"
         "          {name: gpu1, type: gpu, tags: 32}]\n"
         "  links: [{up: rc0, down: sw0, gen: 3, width: 8}, {up: sw0, down: gpu0, gen: 3, width: 16},\n"
         "          {up: sw0, down: gpu1, gen: 4, width: 8}]\n"
         "apps:\n  - {name: rd, type: stream, gpu: gpu1, direction: h2d, size: {fixed: 1024}, depth: 8, count: 15, start_ns: " +
         std::to_string(start_ns) + "}\n" +
         (writes ? "  - {name: peer, type: peer, gpu: gpu1, peer: gpu0, size: {fixed: 32768}, depth: 2, count: 16}\n" : "");
}

// The peer writes are held at sw0->gpu0 (a hair slower than gpu1's link) and queue a few TLPs
// at sw0's ingress over microseconds; once the reads' requests take their share of gpu1's link
// the writes arrive a hair slower than they leave, and that queue drains only at the
// difference. In the packet model reads started at 0 meet no queue (as alone, to the
// picosecond), and reads started at 7.96 us wait behind it, more than 3 % of their time later
// than alone (an ordering of the two starts: 137 ns, 6.8 %). The fluid, which moved the
// writes' hold back to gpu1's link (12.994 -> 12.943 GB/s) and forgot the queue, has them as
// alone, and names them (fidelity_watch.cpp, moved_back(); a user trial of trees, u582).
TEST_F(FlowVsPacket, AQueueLeftBehindWhenAHoldMovesBackDelaysReadsAndIsNamed) {
  const auto p99 = [](const json& r) { return r["apps"][0]["p99_ns"].get<double>(); };
  const double alone = p99(run(reads_beside_peer_writes(0, false), "packet"));
  EXPECT_NEAR(p99(run(reads_beside_peer_writes(0), "packet")), alone, 0.001);
  EXPECT_GT(p99(run(reads_beside_peer_writes(7960), "packet")), 1.03 * alone);
  const json f = run(reads_beside_peer_writes(7960), "flow");
  ASSERT_FALSE(f["fidelity_notes"].empty());
  for (const auto& n : f["fidelity_notes"]) {
    EXPECT_EQ(n["where"], "gpu1->sw0");
    EXPECT_NE(std::find(n["apps"].begin(), n["apps"].end(), "rd"), n["apps"].end()) << n.dump();
  }
}

// A stream of short writes backs a queue up as one: gpu0's 2 KiB writes, 32 deep, held at
// sw0's Gen3 x8 uplink, keep its ingress from gpu0 full (128 posted TLPs of 280 B at
// 7.877 GB/s: 4.55 us), and each tag window of gpu0's 48 KiB reads (95 MRds, 32 tags, three
// windows) waits that out: the slowest read at least two windows' wait, 9.1 us, later than
// the reads alone, and no more than the writes' 27.3 us (768 TLPs). (The fluid: no later.)
TEST_F(FlowVsPacket, ReadsWaitBehindAStreamOfShortWrites) {
  const std::string platform =
      "platform:\n"
      "  nodes: [{name: rc0, type: root_complex}, {name: sw0, type: switch}, {name: gpu0, type: gpu, tags: 32, h2d_mode: read}]\n"
      "  links: [{up: rc0, down: sw0, gen: 3, width: 8}, {up: sw0, down: gpu0, gen: 4, width: 16}]\n"
      "apps:\n";
  const std::string reads = "  - {name: rd, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 48584}, depth: 4, count: 17}\n";
  const std::string writes =
      "  - {name: wr, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 2048}, depth: 32, count: 96, start_ns: 5580}\n";
  const auto p99 = [&](const json& r) { return r["apps"][0]["p99_ns"].get<double>(); };
  const double alone = p99(run(platform + reads, "packet")), beside = p99(run(platform + reads + writes, "packet"));
  EXPECT_GE(beside - alone, 2 * 128 * 280 / 7.877);
  EXPECT_LE(beside - alone, 768 * 280 / 7.877);
}

// Reads of two completers (two sockets' memories) on one engine: the second one's data do
// not follow the first one's, and the packet model overlaps them; the fluid ran them one
// after the other: 29.2 against 36.7 us (a user trial). Within 3 % now.
TEST_F(FlowVsPacket, ReadsOfTwoCompletersOverlapOnOneEngine) {
  compare("platform:\n  defaults: {link: {gen: 4, width: 16}}\n"
          "  nodes: [{name: cpu0, type: root_complex}, {name: cpu1, type: root_complex}, {name: gpu0, type: gpu}]\n"
          "  links:\n    - {up: cpu0, down: cpu1, kind: raw, bandwidth_down_GBps: 10, bandwidth_up_GBps: 10}\n"
          "    - {up: cpu0, down: gpu0}\n"
          "apps:\n  - {name: remote, type: stream, gpu: gpu0, host: cpu1, direction: h2d, size: {fixed: 256KiB}, count: 1}\n"
          "  - {name: local, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 256KiB}, count: 1, start_ns: 1}\n");
}

// A write of fewer TLPs than the receiver's credits cannot fill the queue it waits in: a
// 1 KiB push (4 TLPs) to a Gen1 x1 GPU behind 128 posted credits beside a 64 KiB push to a
// Gen3 x16 GPU, both through sw0. The fluid backed the small one's queue up and held the big
// one to the slow GPU's pace: 9,786 ns against the packet model's 5,272. Alone, the big one
// takes 256 TLPs of 19.701 ns (280 B at 15.75 GB/s: docs/link-model.md), 5,043 ns, plus the
// path: under 5.4 us in both, and within 1 % of each other.
TEST_F(FlowVsPacket, AWriteSmallerThanTheCreditsDoesNotBackUpItsQueue) {
  const std::string yaml =
      "platform:\n  h2d_mode: push\n  nodes:\n    - {name: rc0, type: root_complex}\n"
      "    - {name: sw0, type: switch, voq: true}\n    - {name: gpu0, type: gpu}\n    - {name: gpu1, type: gpu}\n"
      "  links:\n    - {up: rc0, down: sw0, gen: 3, width: 16}\n    - {up: sw0, down: gpu0, gen: 1, width: 1}\n"
      "    - {up: sw0, down: gpu1, gen: 3, width: 16}\n"
      "apps:\n  - {name: slow, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 1KiB}, count: 1}\n"
      "  - {name: fast, type: stream, gpu: gpu1, direction: h2d, size: {fixed: 64KiB}, count: 1}\n";
  const json p = run(yaml, "packet"), f = run(yaml, "flow");
  const double pv = p["apps"][1]["last_done_ns"], fv = f["apps"][1]["last_done_ns"];
  EXPECT_LT(pv, 5400);
  EXPECT_LT(fv, 5400);
  EXPECT_NEAR(fv / pv, 1.0, 0.01) << "packet " << pv << " ns, flow " << fv << " ns";
}

// A lone read limited by its tags. A read requests its first tag window (tags x MRRS) at
// once, and each later request waits for a tag: the data come back a round trip per window.
// The fluid capped the whole read at tags x MRRS per round trip, counting the first window's
// round trip twice: 4 KiB with 8 tags (one window: the tags cannot matter) took 1,076 ns
// against 696. Checked without the packet model: a read that fits its window takes as long
// with 8 tags as with 256, and with one tag 1 KiB takes two 512-B reads back to back (the
// second request leaves when the first's data are in); and against it, within 1 %.
TEST_F(FlowVsPacket, AReadLimitedByItsTagsCountsItsFirstRoundTripOnce) {
  const auto yaml = [](int tags, const char* size) {
    return "platform:\n  mrrs: 512\n  nodes:\n    - {name: rc0, type: root_complex}\n    - {name: gpu0, type: gpu, "
           "tags: " + std::to_string(tags) + "}\n  links:\n    - {up: rc0, down: gpu0, gen: 4, width: 16}\n"
           "apps:\n  - {name: in, type: stream, gpu: gpu0, direction: h2d, size: {fixed: " + std::string(size) +
           "}, count: 1}\n";
  };
  const auto done = [&](int tags, const char* size, const char* fidelity) -> double {
    return run(yaml(tags, size), fidelity)["apps"][0]["last_done_ns"];
  };
  EXPECT_NEAR(done(8, "4KiB", "flow") / done(256, "4KiB", "flow"), 1.0, 1e-6);
  EXPECT_NEAR(done(1, "1KiB", "flow") / done(1, "512", "flow"), 2.0, 0.01);
  for (const auto& [tags, size] : std::vector<std::pair<int, const char*>>{{8, "4KiB"}, {1, "1KiB"}, {4, "8KiB"},
                                                                           {8, "64KiB"}, {1, "64KiB"}}) {
    const double pv = done(tags, size, "packet"), fv = done(tags, size, "flow");
    EXPECT_NEAR(fv / pv, 1.0, 0.01) << tags << " tags, " << size << ": packet " << pv << " ns, flow " << fv << " ns";
  }
}

// ---- Shipped platforms -----------------------------------------------------------------

std::vector<std::string> shipped_platforms() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(kSrc + "/configs/platforms"))
    if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> gpus_of(const std::string& platform) {
  const YAML::Node p = YAML::LoadFile(kSrc + "/configs/platforms/" + platform + ".yaml");
  std::vector<std::string> gpus;
  for (const YAML::Node& n : p["nodes"])
    if (n["type"] && n["type"].as<std::string>() == "gpu") gpus.push_back(n["name"].as<std::string>());
  return gpus;
}

// The platform with its traffic-generating devices (NICs, drives) removed: their traffic
// shares switch uplinks per ingress port, which the flow mode does not yet represent
// (issue "Flow mode that honours arbitration"); this check is about the GPUs' copies.
std::string without_devices(const std::string& platform, const fs::path& dir) {
  YAML::Node p = YAML::LoadFile(kSrc + "/configs/platforms/" + platform + ".yaml");
  std::vector<std::string> gone;
  YAML::Node nodes(YAML::NodeType::Sequence), links(YAML::NodeType::Sequence);
  for (const YAML::Node& n : p["nodes"]) {
    const std::string type = n["type"].as<std::string>();
    if (type == "nic" || type == "nvme") gone.push_back(n["name"].as<std::string>());
    else nodes.push_back(n);
  }
  auto kept = [&](const YAML::Node& l) {
    for (const char* end : {"up", "down"})
      if (std::count(gone.begin(), gone.end(), l[end].as<std::string>())) return false;
    return true;
  };
  for (const YAML::Node& l : p["links"])
    if (kept(l)) links.push_back(l);
  p["nodes"] = nodes;
  p["links"] = links;
  const fs::path out = dir / (platform + "_gpus.yaml");
  std::ofstream(out) << p;
  return out.string();
}

// Every GPU copies at once, each a different size (two copies back to back on its engine),
// in one direction or alternating directions with staggered starts.
std::string workload(const std::string& platform, const std::string& kind, const fs::path& dir) {
  std::string y = "platform: " + without_devices(platform, dir) + "\napps:\n";
  const std::vector<std::string> gpus = gpus_of(platform);
  for (std::size_t k = 0; k < gpus.size(); ++k) {
    const bool h2d = kind == "h2d" || (kind == "mixed" && k % 2 == 0);
    const std::string start = kind == "mixed" ? std::to_string(40000 * k) : "0";
    y += "  - {name: a" + std::to_string(k) + ", type: stream, gpu: " + gpus[k] + ", direction: " +
         (h2d ? "h2d" : "d2h") + ", size: {fixed: " + std::to_string((2 + 3 * k) << 20) +
         "}, count: 2, depth: 2, start_ns: " + start + "}\n";
  }
  return y;
}

class ShippedPlatform : public FlowVsPacket, public ::testing::WithParamInterface<std::string> {};

TEST_P(ShippedPlatform, CompletionTimesAgree) {
  double worst = 0;
  for (const char* kind : {"h2d", "d2h", "mixed"}) worst = std::max(worst, compare(workload(GetParam(), kind, dir_)));
  std::printf("flow vs packet, %s: worst error %.3f %%\n", GetParam().c_str(), 100 * worst);
}

INSTANTIATE_TEST_SUITE_P(Configs, ShippedPlatform, ::testing::ValuesIn(shipped_platforms()));

// ---- Random trees ----------------------------------------------------------------------

class RandomTree : public FlowVsPacket, public ::testing::WithParamInterface<int> {};

TEST_P(RandomTree, CompletionTimesAgree) {
  const flowtest::RandomCase c(20020 + static_cast<uint64_t>(GetParam()));
  ASSERT_GE(c.transfers(), 2);
  const double worst = compare(c.yaml());
  std::printf("flow vs packet, random tree %d (%d transfers): worst error %.3f %%\n", GetParam(), c.transfers(),
              100 * worst);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomTree, ::testing::Range(0, 16));

}  // namespace

// ---- Random trees with arbitration, unfiltered -----------------------------------------

namespace {

struct Tally {
  int transfers = 0, within = 0, named = 0, unnamed = 0;
  int runs = 0, noted_runs = 0, noted_agreeing = 0;  // runs; with notes; with notes and every transfer within
  double worst = 0;
};

// Each transfer's completion, flow against packet, on a Draw::Mixed case: within 3 %, or
// outside with a note of the flow run naming what it could not represent and listing that
// transfer's app (fidelity_notes[].apps), or outside unnamed. Every transfer outside is
// printed with the run's notes and the case.
class MixedTree : public FlowVsPacket {
 protected:
  // `unnamed`, when given, collects "seed tN" of each transfer outside 3 % and unnamed.
  void tally(uint64_t seed, Tally& t, std::set<std::string>* unnamed = nullptr) {
    const flowtest::RandomCase c(seed, flowtest::Draw::Mixed);
    const json p = run(c.yaml(), "packet"), f = run(c.yaml(), "flow");
    const bool noted = !f["fidelity_notes"].empty();
    ++t.runs;
    t.noted_runs += noted;
    std::string report;
    for (std::size_t a = 0; a < p["apps"].size(); ++a) {
      // Named: a note says it concerns this transfer (fidelity_notes[].apps), not merely
      // that the run has notes.
      bool named = false;
      for (const json& n : f["fidelity_notes"])
        for (const json& app : n["apps"]) named = named || app == p["apps"][a]["name"];
      const double pv = p["apps"][a]["last_done_ns"], fv = f["apps"][a]["last_done_ns"];
      const double err = std::abs(fv - pv) / pv;
      ++t.transfers;
      if (std::getenv("ARBSIM_SURVEY_ALL"))
        std::printf("all %llu %s %.4f\n", static_cast<unsigned long long>(seed),
                    p["apps"][a]["name"].get<std::string>().c_str(), 100 * (fv - pv) / pv);
      t.worst = std::max(t.worst, err);
      if (err <= kTolerance) {
        ++t.within;
        continue;
      }
      ++(named ? t.named : t.unnamed);
      if (!named && unnamed) unnamed->insert(std::to_string(seed) + " " + p["apps"][a]["name"].get<std::string>());
      char line[200];
      std::snprintf(line, sizeof line, "seed %llu %s: packet %.0f ns, flow %.0f ns (%.2f %%), %s\n",
                    static_cast<unsigned long long>(seed), p["apps"][a]["name"].get<std::string>().c_str(), pv, fv,
                    100 * err, named ? "named" : "nothing named");
      report += line;
    }
    if (report.empty()) {
      t.noted_agreeing += noted;
      return;
    }
    for (const json& n : f["fidelity_notes"])
      report += "  note: " + n["where"].get<std::string>() + ": " + n["setting"].get<std::string>() + " " + n["apps"].dump() + "\n";
    std::printf("%s%s", report.c_str(), c.yaml().c_str());
  }
  static void print(const char* what, const Tally& t) {
    std::printf("%s: %d transfers, %d within 3 %% (%.1f %%), %d outside with the cause named, %d unnamed; worst %.2f %%; "
                "%d of %d runs noted, %d of them with every transfer within 3 %%\n",
                what, t.transfers, t.within, 100.0 * t.within / t.transfers, t.named, t.unnamed, 100 * t.worst, t.noted_runs,
                t.runs, t.noted_agreeing);
  }
};

}  // namespace

// CI's fixed subset of the survey (issue 12): seeds 30000-30029, 180 transfers. Every
// transfer outside 3 % is named by a note that lists it (for the survey's few that are not,
// the test keeps a list of known ones with their mechanism: empty on this subset today; one
// that leaves the list is reported, one that joins it fails). The share within 3 % does not
// fall below 90 % (86.7 % measured on 2026-11-24 with the queues that back up modelled;
// 168 of 180, 93.3 %, on 2026-11-28 with one queue feeding several VCs kept in its order
// and a read's window counted once up its path).
TEST_F(MixedTree, FixedSubsetIsWithinOrNamed) {
  const std::set<std::string> known = {};
  Tally t;
  std::set<std::string> unnamed;
  for (uint64_t seed = 30000; seed < 30030; ++seed) tally(seed, t, &unnamed);
  print("mixed random trees, seeds 30000-30029", t);
  for (const std::string& u : unnamed) EXPECT_TRUE(known.count(u)) << u << ": outside 3 % and named by no note";
  for (const std::string& k : known)
    if (!unnamed.count(k)) std::printf("%s is now within 3 %% or named: take it off the known list\n", k.c_str());
  EXPECT_GE(static_cast<double>(t.within) / t.transfers, 0.90);
}

// The survey over 200 seeds (docs/performance.md), a measurement, not a test: the
// acceptance (99 % of transfers within 3 %, every other one named) is not met yet. Run with
// `flow_tests --gtest_also_run_disabled_tests --gtest_filter=MixedTree.DISABLED_Survey`;
// ARBSIM_SURVEY_SEEDS=FIRST:COUNT surveys other seeds (a held-out check of a change tuned on
// these 200); ARBSIM_SURVEY_ALL=1 also prints every transfer's signed error ("all SEED APP
// PERCENT", flow against packet), to see a bias among those within 3 %.
TEST_F(MixedTree, DISABLED_Survey) {
  uint64_t first = 30000, count = 200;
  if (const char* env = std::getenv("ARBSIM_SURVEY_SEEDS")) {
    const std::string range = env;
    const std::size_t colon = range.find(':');
    ASSERT_NE(colon, std::string::npos) << "ARBSIM_SURVEY_SEEDS: FIRST:COUNT, got " << range;
    first = std::stoull(range.substr(0, colon));
    count = std::stoull(range.substr(colon + 1));
  }
  Tally t;
  for (uint64_t seed = first; seed < first + count; ++seed) tally(seed, t);
  print(("mixed random trees, " + std::to_string(count) + " seeds from " + std::to_string(first)).c_str(), t);
}
