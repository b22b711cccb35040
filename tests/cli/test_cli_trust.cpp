// Inputs and situations that used to crash, hang, or leave wrong or half-written files
// (issue 9; ../shared/repro/ has the reproducers this suite turns into tests). Each must end
// as exit 2 with one error line for bad input, or exit 3 with nothing written when the
// outputs cannot be written, and never hang (every run here has a 100 s limit).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include "tests/cli/cli_fixture.h"

using namespace arbsim::test;
using nlohmann::json;

namespace {

const std::string kFig2 = config("platforms/seed000_fig2.yaml");

// A small valid config on the seed 000 platform with `apps` (YAML lines) and extra keys.
std::string small_config(const std::string& apps, const std::string& extra = "") {
  return "platform: " + kFig2 + "\n" + extra + "apps:\n" + apps;
}

const char* kOneStream = "  - {name: s, type: stream, gpu: gpu0, size: {fixed: 64KiB}, count: 2}\n";

bool has_tmp_files(const fs::path& dir) {
  if (!fs::exists(dir)) return false;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".tmp") return true;
  return false;
}

// ---- YAML aliases (F1, F2) ----------------------------------------------------------

TEST_F(Cli, SelfReferencingAliasInAnOverride) {
  expect_bad_input(config("default.yaml"), {"-s x=&a [*a]", "cycle"}, {"-s", "x=&a [*a]"});
}

TEST_F(Cli, SelfReferencingAliasInAnIncludeMap) {
  const std::string cfg = write("c.yaml", "platform: {include: " + kFig2 + ", description: &a [*a]}\napps:\n" + kOneStream);
  expect_bad_input(cfg, {"c.yaml:1:", "cycle"});
}

// Ten aliases per level, eight levels: 10^8 nodes from 400 bytes. Rejected within the 10 s
// limit here instead of the minutes and gigabytes it used to take.
TEST_F(Cli, AliasBombIsRejectedAtOnce) {
  std::string v = "x=[&a0 [1,1,1,1,1,1,1,1,1,1]";
  for (int k = 1; k < 8; ++k) {
    v += ", &a" + std::to_string(k) + " [";
    for (int i = 0; i < 10; ++i) v += std::string(i ? "," : "") + "*a" + std::to_string(k - 1);
    v += "]";
  }
  v += "]";
  const Result r = run_binary(kBin, {"validate", config("default.yaml"), "-s", v}, "", 10);
  expect_one_error(r, {"alias bomb"});
}

// ---- Filesystem errors (F3) -----------------------------------------------------------

TEST_F(Cli, WorkloadNameTooLongForTheFilesystem) {
  expect_bad_input(config("default.yaml"), {"apps[0].workload", "no workload"},
                   {"-s", "apps.mt.workload=" + std::string(300, 'x')});
}

TEST_F(Cli, IncludeThroughASymlinkLoop) {
  fs::create_symlink(dir_ / "loop", dir_ / "loop");
  const std::string cfg = write("c.yaml", "platform: loop\napps:\n" + std::string(kOneStream));
  expect_bad_input(cfg, {"c.yaml:1:", "symbolic links"});
}

// ---- One line per error (F16) ---------------------------------------------------------

TEST_F(Cli, NewlineInAQuotedValueStaysOnOneLine) {
  const std::string cfg = write("c.yaml", "platform: \"no\\nsuch.yaml\"\napps:\n" + std::string(kOneStream));
  expect_bad_input(cfg, {"c.yaml:1:", "no\\nsuch.yaml", "does not exist"});
}

// ---- What cannot make progress is rejected (F4, F15) ----------------------------------

TEST_F(Cli, StreamPeriodBelowOnePicosecond) {
  const std::string cfg = write("c.yaml", small_config("  - {name: s, type: stream, gpu: gpu0, size: {fixed: 1B}, "
                                                       "rate_GBps: 10000, duration_ns: 1000}\n"));
  expect_bad_input(cfg, {"c.yaml:3:", "apps[0].rate_GBps", "1 ps resolution"});
}

TEST_F(Cli, LatencyBeyondOneSecond) {
  const std::string cfg = write("c.yaml", small_config(kOneStream) + "");
  expect_bad_input(cfg, {"platform.nodes[1].latency_ns", "must be in [0, 1e+09]"},
                   {"-s", "platform.nodes.sw0.latency_ns=1e15"});
}

TEST_F(Cli, JobsMustBePositive) {
  for (const char* j : {"0", "-3"}) {
    const Result r = run({"sweep", "spec.yaml", "-j", j});
    expect_one_error(r, {"--jobs", "must be >= 1"});
  }
}

// ---- Outputs: all or nothing (F9, F13) ------------------------------------------------

// A file-size limit (or a full disk) makes a write fail: exit 3, one line naming the file,
// and none of the outputs left, not even a temporary.
TEST_F(Cli, OutputsThatCannotBeWrittenLeaveNothing) {
  const Result r = run({"run", config("default.yaml"), "--sim-time", "20us", "--out", "out"}, "ulimit -f 8;");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("error: cannot write"), std::string::npos) << r.err;
  for (const char* f : {"results.json", "run.json", "config.effective.yaml"}) EXPECT_FALSE(fs::exists(dir_ / "out" / f)) << f;
  EXPECT_FALSE(has_tmp_files(dir_ / "out"));
}

// A run that fails after writing some outputs (here run.json cannot be put in place) leaves
// none of them: a sweep would otherwise count it complete.
TEST_F(Cli, RunFailingAtTheLastStepLeavesNoResults) {
  fs::create_directories(dir_ / "out" / "run.json" / "x");
  const Result r = run({"run", config("default.yaml"), "--sim-time", "20us", "--out", "out", "--vcd", "out/w.vcd"});
  EXPECT_EQ(r.code, 3) << r.err;
  for (const char* f : {"results.json", "config.effective.yaml", "w.vcd"}) EXPECT_FALSE(fs::exists(dir_ / "out" / f)) << f;
  EXPECT_FALSE(has_tmp_files(dir_ / "out"));
}

// --out onto an earlier run: its outputs (the VCD too) are replaced, which is said, and a
// file the run does not own is left and named.
TEST_F(Cli, OutOntoAnEarlierRunReplacesItsOutputs) {
  ASSERT_EQ(run({"run", config("default.yaml"), "--sim-time", "20us", "--out", "out", "--vcd", "out/w.vcd"}).code, 0);
  ASSERT_TRUE(fs::exists(dir_ / "out" / "w.vcd"));
  write("out/notes.txt", "mine\n");
  const Result r = run({"run", config("default.yaml"), "--sim-time", "20us", "--out", "out"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "w.vcd")) << "the earlier run's VCD must not stay beside new results";
  EXPECT_TRUE(fs::exists(dir_ / "out" / "notes.txt"));
  EXPECT_NE(r.err.find("replaced the outputs of an earlier run"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("notes.txt"), std::string::npos) << r.err;
}

// A trace written outside DIR is listed in run.json by its absolute path: listed as the
// command line named it ("t.json", relative to the working directory), a later run into DIR
// read it as DIR/t.json and removed a file of the user's there (found by a user trial).
TEST_F(Cli, AnOutputOutsideTheDirectoryIsListedByItsAbsolutePath) {
  ASSERT_EQ(run({"run", config("default.yaml"), "--sim-time", "20us", "--out", "out", "--trace", "t.json"}).code, 0);
  const auto outputs = json::parse(slurp(dir_ / "out" / "run.json"))["outputs"].get<std::vector<std::string>>();
  EXPECT_NE(std::find(outputs.begin(), outputs.end(), (fs::absolute(dir_) / "t.json").lexically_normal().string()),
            outputs.end());
  write("out/t.json", "mine\n");
  ASSERT_EQ(run({"run", config("default.yaml"), "--sim-time", "20us", "--out", "out"}).code, 0);
  EXPECT_EQ(slurp(dir_ / "out" / "t.json"), "mine\n");
}

// Two processes never write one directory: the second is refused while the first holds it.
TEST_F(Cli, SecondWriterOfADirectoryIsRefused) {
  const Result r = run({"run", config("default.yaml"), "--sim-time", "20us", "--out", "out"},
                       "mkdir -p out && exec 9>out/.lock && flock -n 9 &&");
  expect_one_error(r, {"being written by another pcie-arbsim process"});
  EXPECT_FALSE(fs::exists(dir_ / "out" / "results.json"));
}

// ---- Provenance -----------------------------------------------------------------------

TEST_F(Cli, RunJsonRecordsProvenance) {
  ASSERT_EQ(run({"run", config("default.yaml"), "--sim-time", "20us", "--out", "out"}).code, 0);
  const json res = json::parse(slurp(dir_ / "out" / "results.json"));
  const json info = json::parse(slurp(dir_ / "out" / "run.json"));
  EXPECT_EQ(res["config_hash"].get<std::string>().size(), 16u);
  EXPECT_EQ(info["config_hash"], res["config_hash"]);
  EXPECT_FALSE(info["version"].get<std::string>().empty());
  EXPECT_FALSE(info["build_type"].get<std::string>().empty());
  EXPECT_NE(info["command_line"].get<std::string>().find("--sim-time 20us"), std::string::npos);
  EXPECT_FALSE(res.contains("version")) << "results.json must not change with the build";
  EXPECT_GT(info["peak_rss_mib"].get<double>(), 0.0);
}

// The hash names the effective config: the same inputs give the same hash, any change in
// what the model reads another.
TEST_F(Cli, ConfigHashFollowsTheEffectiveConfig) {
  ASSERT_EQ(run({"run", config("default.yaml"), "--sim-time", "20us", "--out", "a"}).code, 0);
  ASSERT_EQ(run({"run", config("default.yaml"), "--sim-time", "20us", "--out", "b"}).code, 0);
  ASSERT_EQ(run({"run", config("default.yaml"), "--sim-time", "20us", "--out", "c", "--seed", "2"}).code, 0);
  const auto hash = [&](const char* d) { return json::parse(slurp(dir_ / d / "results.json"))["config_hash"]; };
  EXPECT_EQ(hash("a"), hash("b"));
  EXPECT_NE(hash("a"), hash("c"));
  EXPECT_EQ(slurp(dir_ / "a" / "results.json"), slurp(dir_ / "b" / "results.json"));
}

// ---- Units and defaults ---------------------------------------------------------------

// Times and rates take units as the command line does; the run is the one the plain
// numbers give (results equal but for the config hash: the effective config keeps the text).
TEST_F(Cli, TimesAndRatesWithUnits) {
  const std::string plain = small_config("  - {name: s, type: stream, gpu: gpu0, size: {fixed: 64KiB}, rate_GBps: 2, "
                                         "duration_ns: 100000}\n  - {name: c, type: copy_exec, gpu: gpu1, h2d_bytes: 64KiB, "
                                         "kernel_ns: 20000, iterations: 2}\n");
  const std::string units = small_config("  - {name: s, type: stream, gpu: gpu0, size: {fixed: 64KiB}, rate_GBps: 16Gb/s, "
                                         "duration_ns: 100us}\n  - {name: c, type: copy_exec, gpu: gpu1, h2d_bytes: 64KiB, "
                                         "kernel_ns: 0.02ms, iterations: 2}\n");
  ASSERT_EQ(run({"run", write("plain.yaml", plain), "--out", "p"}).code, 0);
  const Result r = run({"run", write("units.yaml", units), "--out", "u", "-s", "platform.links.rc0-sw0.gen=8GT/s"});
  ASSERT_EQ(r.code, 0) << r.err;
  json p = json::parse(slurp(dir_ / "p" / "results.json")), u = json::parse(slurp(dir_ / "u" / "results.json"));
  p.erase("config_hash");
  u.erase("config_hash");
  EXPECT_EQ(p, u);
}

TEST_F(Cli, BadUnitIsNamed) {
  const std::string cfg = write("c.yaml", small_config("  - {name: c, type: copy_exec, gpu: gpu1, h2d_bytes: 64KiB, "
                                                       "kernel_ns: 20 parsecs, iterations: 2}\n"));
  expect_bad_input(cfg, {"c.yaml:3:", "apps[0].kernel_ns", "expected a time", "'20 parsecs'"});
}

// An error in a key a link takes from `defaults.link` is reported at that key's line in
// defaults.link, naming the link that inherited it.
TEST_F(Cli, DefaultsLinkErrorNamesItsOwnLine) {
  const std::string cfg = write("c.yaml",
                                "platform:\n"
                                "  name: p\n"
                                "  defaults:\n"
                                "    link: {gen: 3, width: 3}\n"
                                "  nodes: [{name: rc0, type: root_complex}, {name: gpu0, type: gpu}]\n"
                                "  links: [{up: rc0, down: gpu0}]\n"
                                "apps:\n"
                                "  - {type: stream, gpu: gpu0, size: {fixed: 64KiB}, count: 1}\n");
  expect_bad_input(cfg, {"c.yaml:4:", "platform.defaults.link.width", "inherited by platform.links[0]"});
}

// ---- The flow mode says what it leaves out (item 2) -----------------------------------

// A host-pushed write held back at gpu0's x4 link shares sw0's FIFO ingress with one to
// gpu1: the fluid cannot hold the second behind the first (models/flow/fidelity_watch.h).
// The run warns once, after it, and results.json lists what and where.
TEST_F(Cli, FlowModeWarnsOfWhatItLeavesOut) {
  const std::string cfg = write("c.yaml",
                                "platform:\n"
                                "  name: p\n"
                                "  h2d_mode: push\n"
                                "  defaults: {link: {gen: 3, width: 16}}\n"
                                "  nodes: [{name: rc0, type: root_complex}, {name: sw0, type: switch},\n"
                                "          {name: gpu0, type: gpu}, {name: gpu1, type: gpu}]\n"
                                "  links: [{up: rc0, down: sw0}, {up: sw0, down: gpu0, width: 4}, {up: sw0, down: gpu1}]\n"
                                "apps:\n"
                                "  - {type: stream, gpu: gpu0, direction: h2d, size: {fixed: 1MiB}, count: 1}\n"
                                "  - {type: stream, gpu: gpu1, direction: h2d, size: {fixed: 1MiB}, count: 1}\n");
  const Result r = run({"run", cfg, "--fidelity", "flow", "--out", "out"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("cannot represent 2 thing(s)"), std::string::npos) << r.err;
  const json res = json::parse(slurp(dir_ / "out" / "results.json"));
  ASSERT_EQ(res["fidelity_notes"].size(), 2u) << res["fidelity_notes"].dump(2);
  EXPECT_EQ(res["fidelity_notes"][0]["where"], "rc0->sw0");
}

}  // namespace

// ---- Found by trying the tool as a user (session of 2026-11-25) -------------------------

// A key given twice in `platform: {include: ...}` was taken silently (the first include, the
// last mps), where every other map refuses it.
TEST_F(Cli, AKeyGivenTwiceInAnIncludeMapIsRefused) {
  const std::string cfg = write("c.yaml", "platform: {include: " + kFig2 + ", mps: 512, mps: 256}\napps:\n" + kOneStream);
  expect_bad_input(cfg, {"c.yaml:1:", "platform.mps", "key given twice"});
}

// A key of `platform: {include: F, ...}` replacing the file's is written in this config: an
// error in it named the included file, with no line (voq: yes in this config's nodes read
// "seed000_fig2.yaml: platform.nodes[1].voq"). It names this config and the line now; an
// error in a key of the included file still names that file.
TEST_F(Cli, AnErrorInAKeyReplacingAnIncludedOneNamesThisConfig) {
  const std::string nodes =
      "  nodes:\n    - {name: rc0, type: root_complex}\n    - {name: sw0, type: switch, voq: yes}\n"
      "    - {name: sw1, type: switch}\n    - {name: gpu0, type: gpu}\n    - {name: gpu1, type: gpu}\n"
      "    - {name: gpu2, type: gpu}\n    - {name: gpu3, type: gpu}\n";
  const std::string cfg = write("c.yaml", "platform:\n  include: " + kFig2 + "\n" + nodes + "apps:\n" + kOneStream);
  expect_bad_input(cfg, {"c.yaml:5: platform.nodes[1].voq: expected true or false, got 'yes'"});
  write("p.yaml", "mps: 256\nnodes: [{name: rc0, type: root_complex}, {name: gpu0, type: gpu, tags: 0}]\n"
                  "links: [{up: rc0, down: gpu0}]\n");
  const std::string other = write("d.yaml", "platform: {include: p.yaml, mrrs: 512}\napps:\n" + std::string(kOneStream));
  expect_bad_input(other, {"p.yaml:2: platform.nodes[1].tags"});
}

// config.effective.yaml is itself a config that reproduces the run: an app's `workload:`
// is resolved into its keys there, not looked up again beside the output directory.
TEST_F(Cli, TheEffectiveConfigOfAWorkloadRunsAgain) {
  write("workloads/x.yaml", "name: x\nh2d_bytes: 64KiB\nkernel_ns: 10000\n");
  const std::string cfg = write("c.yaml", "platform: " + kFig2 +
                                              "\napps:\n  - {name: w, type: copy_exec, gpu: gpu0, workload: x, iterations: 2}\n");
  ASSERT_EQ(run({"run", cfg, "--out", "a"}).code, 0);
  const Result again = run({"run", (dir_ / "a" / "config.effective.yaml").string(), "--out", "b"});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(slurp(dir_ / "a" / "results.json"), slurp(dir_ / "b" / "results.json"));
}

// The same for spmd apps in both sharing modes: the effective config wrote `order` and
// `queues` without streams, and `init_ns` with them, which the config refuses (exit 2 on
// configs/examples/gpu_sharing_spmd.yaml's; found by a user trial).
TEST_F(Cli, TheEffectiveConfigOfAnSpmdAppRunsAgain) {
  for (const char* sharing : {"none", "streams"}) {
    const std::string cfg = write("s.yaml", small_config(std::string("  - {name: p, type: spmd, gpu: gpu0, processes: 2, "
                                                                     "h2d_bytes: 64KiB, kernel_ns: 10us, sharing: ") +
                                                         sharing + "}\n"));
    ASSERT_EQ(run({"run", cfg, "--out", "a"}).code, 0);
    const Result again = run({"run", (dir_ / "a" / "config.effective.yaml").string(), "--out", "b"});
    ASSERT_EQ(again.code, 0) << sharing << ": " << again.err;
    EXPECT_EQ(slurp(dir_ / "a" / "results.json"), slurp(dir_ / "b" / "results.json")) << sharing;
  }
}

// A shorthand and a -s of the same key: the shorthand came after every -s and won, whatever
// the order written (--sim-time 20us -s sim.time_ns=50us ran 20 us; found by a user
// trial). Refused, as is --seed with -s sim.seed.
TEST_F(Cli, AShorthandAndAnOverrideOfOneKeyAreRefused) {
  const std::string cfg = write("c.yaml", small_config(kOneStream));
  expect_one_error(run({"validate", cfg, "--sim-time", "20us", "-s", "sim.time_ns=50us"}),
                   {"--sim-time and -s sim.time_ns=50us both set sim.time_ns"});
  expect_one_error(run({"run", cfg, "--out", "o", "-s", "sim.seed=7", "--seed", "5"}),
                   {"--seed and -s sim.seed=7 both set sim.seed"});
  expect_one_error(run({"validate", cfg, "--fidelity", "flow", "-s", "sim={fidelity: packet}"}),
                   {"--fidelity and -s sim={fidelity: packet} both set sim.fidelity"});
  EXPECT_FALSE(fs::exists(dir_ / "o"));
}

// An override of a default that every element sets itself changes nothing: a resolved config
// (config.effective.yaml writes every key on every link) ran x16 with
// -s platform.defaults.link.width=8, silently (found by a user trial). Warned of; on the
// source config, which the default reaches, not.
TEST_F(Cli, ADefaultEveryElementSetsIsWarnedAbout) {
  const std::string cfg = write("c.yaml", small_config(kOneStream));
  ASSERT_EQ(run({"run", cfg, "--out", "a"}).code, 0);
  const std::string effective = (dir_ / "a" / "config.effective.yaml").string();
  const Result r = run({"validate", effective, "-s", "platform.defaults.link.width=8"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: -s platform.defaults.link.width=8 changes nothing"), std::string::npos) << r.err;
  const Result src = run({"validate", cfg, "-s", "platform.defaults.link.width=8"});
  EXPECT_EQ(src.err.find("changes nothing"), std::string::npos) << src.err;
  // The value the default already has (seed 000's links are x16): no warning, whose reason
  // ("every element ... sets that key itself") was false there.
  const Result same = run({"validate", effective, "-s", "platform.defaults.link.width=16"});
  EXPECT_EQ(same.err.find("changes nothing"), std::string::npos) << same.err;
}

// The flow mode has no TLPs: the liveness check is not made, and says so (null) instead of
// reporting a pass (a copy starved by strict priority for the whole run used to show
// tlp_age_exceeded: false there, and true in the packet model).
TEST_F(Cli, TheFlowModeDoesNotPassALivenessCheckItCannotMake) {
  const std::string cfg = write("c.yaml", small_config("  - {name: s, type: stream, gpu: gpu0, size: {fixed: 64KiB}, count: 2}\n"));
  ASSERT_EQ(run({"run", cfg, "--fidelity", "flow", "--out", "f"}).code, 0);
  ASSERT_EQ(run({"run", cfg, "--out", "p"}).code, 0);
  const json f = json::parse(slurp(dir_ / "f" / "results.json"))["run_checks"];
  const json p = json::parse(slurp(dir_ / "p" / "results.json"))["run_checks"];
  EXPECT_TRUE(f["tlp_age_exceeded"].is_null()) << f.dump();
  EXPECT_TRUE(f["oldest_tlp_ns"].is_null()) << f.dump();
  EXPECT_TRUE(p["tlp_age_exceeded"].is_boolean()) << p.dump();
}

// A batch app's copies carry its name: a fidelity note that concerns them names it (they
// were '' before).
TEST_F(Cli, ABatchAppIsNamedInTheNotes) {
  const std::string cfg = write("c.yaml",
                                "platform:\n  defaults: {link: {gen: 3, width: 16}}\n"
                                "  nodes: [{name: rc0, type: root_complex}, {name: sw0, type: switch},\n"
                                "          {name: gpu0, type: gpu}, {name: gpu1, type: gpu}]\n"
                                "  links: [{up: rc0, down: sw0}, {up: sw0, down: gpu0}, {up: sw0, down: gpu1}]\n"
                                "apps:\n"
                                "  - {name: bat, type: batch, count: 1, streams: [{gpu: gpu0, direction: h2d, bytes: 64KiB}]}\n"
                                "  - {name: big, type: stream, gpu: gpu1, direction: h2d, size: {fixed: 4MiB}, count: 1}\n");
  ASSERT_EQ(run({"run", cfg, "--fidelity", "flow", "--out", "f"}).code, 0);
  const json notes = json::parse(slurp(dir_ / "f" / "results.json"))["fidelity_notes"];
  ASSERT_FALSE(notes.empty());
  for (const json& n : notes)
    for (const json& a : n["apps"]) EXPECT_NE(a.get<std::string>(), "") << n.dump();
  EXPECT_EQ(notes[0]["apps"], json::array({"bat", "big"}));
}

// A paced stream, a periodic task and a batch app with a period and a count kept a timer
// a period past their last work, and the run went on with it: one 64 KiB copy at 0.1 GB/s,
// done at 2.6 us, gave sim_time_ns 655,360 and a link utilization of 0.004 (about 1 over
// the copy). The run now ends with its traffic.
TEST_F(Cli, APacedStreamEndsTheRunWithItsLastCopy) {
  const std::string cfg =
      write("c.yaml", small_config("  - {name: s, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 64KiB}, count: 1, "
                                   "rate_GBps: 0.1}\n  - {name: p, type: periodic, gpu: gpu1, period_ns: 1ms, count: 2, "
                                   "h2d_bytes: 4KiB, kernel_ns: 1000}\n"));
  ASSERT_EQ(run({"run", cfg, "--out", "o"}).code, 0);
  const json r = json::parse(slurp(dir_ / "o" / "results.json"));
  double last = 0;
  for (const json& a : r["apps"]) last = std::max(last, a["last_done_ns"].get<double>());
  EXPECT_DOUBLE_EQ(r["sim_time_ns"].get<double>(), last) << r["apps"].dump();
  EXPECT_LT(last, 1.1e6);  // the second job, released at 1 ms, and nothing a period on
}

// The same for apps bounded by duration_ns instead of a count (a paced stream's next copy,
// a periodic task's next release, due past the duration), and for the QoS policy's check,
// which ticked once more after the last transfer: with qos_check_ns 10 ms a 64 KiB copy
// gave sim_time_ns 10,000,000 and a utilization of 0.004.
TEST_F(Cli, AppsBoundedByADurationAndTheQosCheckEndTheRunWithTheirTraffic) {
  const std::string cfg =
      write("c.yaml", small_config("  - {name: s, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 64KiB}, "
                                   "rate_GBps: 0.1, duration_ns: 100us, deadline_ns: 100us}\n"
                                   "  - {name: p, type: periodic, gpu: gpu1, period_ns: 1ms, duration_ns: 1.5ms, "
                                   "h2d_bytes: 4KiB, kernel_ns: 1000}\n",
                                   "driver: {policy: qos, qos_check_ns: 10ms}\n"));
  for (const char* fidelity : {"packet", "flow"}) {
    ASSERT_EQ(run({"run", cfg, "--out", fidelity, "--fidelity", fidelity}).code, 0);
    const json r = json::parse(slurp(dir_ / fidelity / "results.json"));
    double last = 0;
    for (const json& a : r["apps"]) last = std::max(last, a["last_done_ns"].get<double>());
    EXPECT_DOUBLE_EQ(r["sim_time_ns"].get<double>(), last) << fidelity << " " << r["apps"].dump();
    EXPECT_GT(last, 1e6);    // the task's second job, released at 1 ms
    EXPECT_LT(last, 1.1e6);  // and nothing a period (or a QoS check) on
  }
}

// validate checks every option as run does: it called each of these ok while run refused
// it; and a negative --seed or an empty value was taken as not given (a config's seed 7 ran
// with --seed -1, --fidelity "" ran the config's fidelity).
TEST_F(Cli, ValidateRefusesWhatRunRefuses) {
  const std::string cfg = write("c.yaml", small_config(kOneStream, "sim: {time_ns: 200000, seed: 7}\n"));
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"--vcd-window", "nonsense"}, "--vcd-window needs --vcd"},
      {{"--vcd", "w.vcd", "--vcd-window", "nonsense"}, "--vcd-window nonsense: expected T0:T1"},
      {{"--trace", "t.json", "--trace-window", "9:3"}, "--trace-window 9:3: expected T0:T1"},
      {{"--detect", "--starvation-bound", "-5"}, "--starvation-bound -5: expected a time > 0"},
      {{"--log", "bogus"}, "--log bogus: expected MODULE=LEVEL"},
      {{"--detect", "--fidelity", "flow"}, "--detect: the flow fidelity"},
      {{"--trace-window", "100us:120us"}, "need --trace FILE or --detect"},
      {{"--vcd", "w.vcd", "--vcd-window", "300us:400us"}, "starts at or after the run's end"},
      {{"--seed", "-1"}, "--seed -1: must be >= 0"},
      {{"--fidelity", ""}, "--fidelity: an empty value"},
      {{"--sim-time", ""}, "--sim-time: an empty value"},
      {{"-s", ""}, "-s: an empty value"},
  };
  for (const auto& [options, needle] : bad)
    for (const char* cmd : {"validate", "run"}) {
      std::vector<std::string> args = {cmd, cfg};
      if (std::string(cmd) == "run") args.insert(args.end(), {"--out", "out"});
      args.insert(args.end(), options.begin(), options.end());
      expect_one_error(run(args), {needle});
      EXPECT_FALSE(fs::exists(dir_ / "out")) << options[0];
    }
  ASSERT_EQ(run({"run", cfg, "--out", "o", "--seed", "0"}).code, 0);
  EXPECT_EQ(json::parse(slurp(dir_ / "o" / "results.json"))["seed"], 0);
}

// An app that starts at or after the end of a time-limited run issues nothing: its figures
// are zeros, and the log says they are not measurements (it said nothing).
TEST_F(Cli, AnAppThatNeverStartedIsNamedInTheLog) {
  const std::string cfg = write("c.yaml", small_config("  - {name: late, type: stream, gpu: gpu0, size: {fixed: 4KiB}, "
                                                       "count: 1, start_ns: 100us}\n" + std::string(kOneStream),
                                                       "sim: {time_ns: 50000}\n"));
  const Result r = run({"run", cfg, "--out", "o"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string log = slurp(dir_ / "o" / "sim.log");
  EXPECT_NE(log.find("app late never started"), std::string::npos) << log;
  EXPECT_EQ(log.find("app s never started"), std::string::npos) << log;
}

// Two outputs on one file lost one of them with exit 0 (a trace over sim.log, over
// results.json, over the VCD, over the config itself; run.json listed the file twice): refused
// by run and validate alike, nothing written. A trace in directories that do not exist yet is
// written there (as a VCD is), and a trace path that cannot be written fails before the run.
TEST_F(Cli, OutputsOnOneFileAreRefused) {
  const std::string cfg = write("c.yaml", small_config(kOneStream));
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"--trace", "out/sim.log"}, "--out's sim.log and --trace are one file"},
      {{"--trace", "out/results.json"}, "--out's results.json and --trace are one file"},
      {{"--vcd", "w.vcd", "--trace", "w.vcd"}, "--vcd and --trace are one file"},
      {{"--trace", cfg}, "the config and --trace are one file"},
      {{"--trace", "out"}, "--out and --trace are one file"},
      {{"--vcd", "w.vcd", "--trace", "w.gtkw"}, "--vcd's .gtkw file and --trace are one file"},
  };
  for (const auto& [options, needle] : bad) {
    std::vector<std::string> args = {"run", cfg, "--out", "out"};
    args.insert(args.end(), options.begin(), options.end());
    expect_one_error(run(args), {needle});
    EXPECT_FALSE(fs::exists(dir_ / "out")) << options[1];
  }
  // validate (no --out: run's default, runs/c/) finds the same.
  expect_one_error(run({"validate", cfg, "--vcd", "w.vcd", "--trace", "w.vcd"}), {"--vcd and --trace are one file"});
  expect_one_error(run({"validate", cfg, "--trace", "runs/c/sim.log"}), {"--out's sim.log and --trace are one file"});
  EXPECT_EQ(slurp(cfg), small_config(kOneStream));
  ASSERT_EQ(run({"run", cfg, "--out", "o", "--trace", "deep/er/t.json"}).code, 0);
  EXPECT_TRUE(fs::exists(dir_ / "deep" / "er" / "t.json"));
  fs::create_directories(dir_ / "ro");
  std::ofstream(dir_ / "blocker") << "a file where a directory should be";
  // A path through a file is bad input (exit 2), found before anything is made (it was
  // exit 3 after o2/ and its sim.log were).
  expect_one_error(run({"run", cfg, "--out", "o2", "--trace", "blocker/t.json"}), {"blocker is a file, not a directory"});
  EXPECT_FALSE(fs::exists(dir_ / "o2"));
}

// Pushed copies do not cross the host's memory port (the root complex's DMA engines read it
// inside): on the Nehalem platform, whose memory (9.6 GB/s) is below its root ports (15.8
// GB/s down), four GPUs pushing ran at 12.8 GB/s in all, no word said. Both fidelities now
// note it and the log says so; with device reads (which do cross it) there is nothing to say.
TEST_F(Cli, PushedCopiesPastABoundedMemoryPortAreNoted) {
  std::string apps;
  for (int g = 0; g < 4; ++g)
    apps += "  - {name: a" + std::to_string(g) + ", type: stream, gpu: gpu" + std::to_string(g) +
            ", host: cpu0, direction: h2d, size: {fixed: 1MB}, count: 1}\n";
  const std::string cfg = write("c.yaml", "platform: " + config("platforms/seed002_nehalem_tyan.yaml") + "\napps:\n" + apps);
  for (const char* fidelity : {"packet", "flow"}) {
    const Result r = run({"run", cfg, "--out", fidelity, "--fidelity", fidelity, "-s", "platform.h2d_mode=push"});
    ASSERT_EQ(r.code, 0) << r.err;
    const json notes = json::parse(slurp(dir_ / fidelity / "results.json"))["fidelity_notes"];
    ASSERT_FALSE(notes.empty()) << fidelity;
    EXPECT_EQ(notes[0]["where"], "cpu0.memory") << fidelity;
    // The apps it concerns: every pushed copy is from cpu0's memory (the note listed none).
    EXPECT_EQ(notes[0]["apps"], json::array({"a0", "a1", "a2", "a3"})) << fidelity;
    EXPECT_NE(slurp(dir_ / fidelity / "sim.log").find("the model does not represent cpu0.memory"), std::string::npos);
  }
  ASSERT_EQ(run({"run", cfg, "--out", "read"}).code, 0);
  EXPECT_TRUE(json::parse(slurp(dir_ / "read" / "results.json"))["fidelity_notes"].empty());
}

// A peer app between two PCIe domains (Nehalem's gpu0 and gpu2, across the QPI link) moves
// its copy straight over the interconnect, where a batch app's peer stream stages it through
// host memory (found by a user trial: 7.64 against 8.51 ms for 32 MiB, nothing said): named.
TEST_F(Cli, APeerCopyAcrossPcieDomainsIsNamed) {
  const std::string cfg = write("c.yaml", "platform: " + config("platforms/seed002_nehalem_tyan.yaml") +
                                              "\napps:\n  - {name: p, type: peer, gpu: gpu0, peer: gpu2, size: {fixed: 1MiB}, "
                                              "count: 1}\n  - {name: q, type: peer, gpu: gpu0, peer: gpu1, size: {fixed: 1MiB}, count: 1}\n");
  ASSERT_EQ(run({"run", cfg, "--out", "o"}).code, 0);
  const json notes = json::parse(slurp(dir_ / "o" / "results.json"))["fidelity_notes"];
  ASSERT_EQ(notes.size(), 1u) << notes.dump();
  EXPECT_EQ(notes[0]["apps"], json::array({"p"}));
  EXPECT_NE(notes[0]["setting"].get<std::string>().find("across PCIe domains"), std::string::npos);
}

// A trace window past the end of an unlimited run (which --sim-time would have refused at
// the start) traces nothing: the run says so instead of leaving an empty trace unexplained.
TEST_F(Cli, ATraceWindowPastTheRunIsNamed) {
  const std::string cfg = write("c.yaml", small_config(kOneStream));
  const Result r = run({"run", cfg, "--trace", "t.json", "--trace-window", "1s:2s", "--out", "o"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("before --trace-window's start"), std::string::npos) << r.err;
}

// A deadline set to a measured response counts as met: the response, a picosecond count
// converted to ns, came out one ulp above the same decimal (5113.456000000001 against
// 5113.456) and every job of a periodic task, and every copy of a stream, counted as missed
// while results.json printed both as equal. One picosecond less is a miss.
TEST_F(Cli, ADeadlineEqualToTheMeasuredResponseIsMet) {
  const std::string apps =
      "  - {name: s, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 64KiB}, count: 1}\n"
      "  - {name: p, type: periodic, gpu: gpu1, period_ns: 1ms, d2h_bytes: 64KiB, count: 1}\n";
  ASSERT_EQ(run({"run", write("m.yaml", small_config(apps)), "--out", "m"}).code, 0);
  const json m = json::parse(slurp(dir_ / "m" / "results.json"));
  const double stream = m["apps"][0]["max_ns"], job = m["apps"][1]["periodic"]["response_p50_ns"];
  for (const double less : {0.0, 0.001}) {
    const std::string out = less == 0 ? "at" : "under";
    const std::string cfg = write(out + ".yaml", small_config(apps));
    char s[64], p[64];
    std::snprintf(s, sizeof s, "apps.0.deadline_ns=%.3f", stream - less);
    std::snprintf(p, sizeof p, "apps.1.deadline_ns=%.3f", job - less);
    ASSERT_EQ(run({"run", cfg, "-s", s, "-s", p, "--out", out}).code, 0);
    const json r = json::parse(slurp(dir_ / out / "results.json"));
    EXPECT_EQ(r["apps"][0]["deadlines_met"], less == 0 ? 1 : 0) << s;
    EXPECT_EQ(r["apps"][0]["deadlines_missed"], less == 0 ? 0 : 1) << s;
    EXPECT_EQ(r["apps"][1]["periodic"]["deadlines_met"], less == 0 ? 1 : 0) << p;
    EXPECT_EQ(r["apps"][1]["periodic"]["deadlines_missed"], less == 0 ? 0 : 1) << p;
  }
}

// Every policy but static chooses each command's TC (seed 000 Eq. 1): an app's own tc is not
// used, and a sweep over it under rr gave identical points with nothing said why.
TEST_F(Cli, AnAppsTcAPolicyReplacesIsNamed) {
  const std::string cfg = write("c.yaml", small_config("  - {name: s, type: stream, gpu: gpu0, size: {fixed: 64KiB}, "
                                                       "count: 1, tc: 3}\n"));
  ASSERT_EQ(run({"run", cfg, "-s", "driver.policy=rr", "--out", "rr"}).code, 0);
  const std::string log = slurp(dir_ / "rr" / "sim.log");
  EXPECT_NE(log.find("[warning] driver policy 'rr' chooses each command's TC (seed 000 Eq. 1): the apps' own tc are "
                     "not used (s tc 3)"),
            std::string::npos)
      << log;
  ASSERT_EQ(run({"run", cfg, "--out", "static"}).code, 0);
  EXPECT_EQ(slurp(dir_ / "static" / "sim.log").find("own tc"), std::string::npos);
}

// An spmd app's T_init and T_ctx_switch (sharing none) delay only its own processes: a
// copy_exec on the same GPU ran its kernel from 10.5 to 40.5 us, inside the spmd's 20 us
// T_init, with nothing said. Named, with both apps; alone on its GPU, nothing.
TEST_F(Cli, ContextSwitchesBesideAnotherAppAreNamed) {
  const std::string spmd = "  - {name: s, type: spmd, gpu: gpu0, processes: 2, kernel_ns: 50us, init_ns: 20us, "
                           "ctx_switch_ns: 10us}\n";
  const std::string other = "  - {name: c, type: copy_exec, gpu: gpu0, h2d_bytes: 100KB, kernel_ns: 30us, iterations: 1}\n";
  for (const char* fidelity : {"packet", "flow"}) {
    ASSERT_EQ(run({"run", write("two.yaml", small_config(spmd + other)), "--fidelity", fidelity, "--out", fidelity}).code, 0);
    const json notes = json::parse(slurp(dir_ / fidelity / "results.json"))["fidelity_notes"];
    ASSERT_EQ(notes.size(), 1u) << notes.dump();
    EXPECT_EQ(notes[0]["where"], "gpu0");
    EXPECT_EQ(notes[0]["apps"], json::array({"s", "c"}));
  }
  ASSERT_EQ(run({"run", write("one.yaml", small_config(spmd + "  - {name: c, type: copy_exec, gpu: gpu1, h2d_bytes: "
                                                         "100KB, kernel_ns: 30us, iterations: 1}\n")),
                 "--out", "apart"}).code, 0);
  EXPECT_TRUE(json::parse(slurp(dir_ / "apart" / "results.json"))["fidelity_notes"].empty());
}

// Contexts are per MIG instance: an spmd app on gpu0/mig0 beside an app on gpu0/mig1 shares
// no context with it, and nothing is named (the note named gpu0 with both); beside one on
// its own instance it is named there, with T_init and T_ctx_switch at 0 as well (two apps'
// kernels ran side by side, 2.5 ms where one context at a time takes 3; found by a user trial).
TEST_F(Cli, ContextsArePerMigInstanceAndNamedWithoutSwitchCosts) {
  const auto notes_of = [&](const std::string& b_gpu) {
    const std::string cfg = write("m.yaml",
        "platform:\n"
        "  nodes: [{name: cpu0, type: root_complex}, {name: gpu0, type: gpu, mig: [1g, 1g, 3g]}]\n"
        "  links: [{up: cpu0, down: gpu0, gen: 4, width: 16}]\n"
        "apps:\n"
        "  - {name: a, type: spmd, gpu: gpu0/mig0, processes: 2, kernel_ns: 100us}\n"
        "  - {name: b, type: spmd, gpu: " + b_gpu + ", processes: 1, kernel_ns: 100us}\n");
    EXPECT_EQ(run({"run", cfg, "--out", "m"}).code, 0);
    return json::parse(slurp(dir_ / "m" / "results.json"))["fidelity_notes"];
  };
  EXPECT_TRUE(notes_of("gpu0/mig1").empty()) << notes_of("gpu0/mig1").dump();
  const json same = notes_of("gpu0/mig0");
  // a beside b, and b beside a; and their first kernels, both at 0, a tie (System::kernel_tie_notes()).
  ASSERT_EQ(same.size(), 3u) << same.dump();
  EXPECT_EQ(same[0]["where"], "gpu0/mig0");
  EXPECT_EQ(same[0]["apps"], json::array({"a", "b"}));
  EXPECT_EQ(same[2]["setting"], "kernels of several apps submitted at the same instant, one waiting for SMs");
}

// The printed link table shows a direction that carried only read requests: with one
// non-posted header credit, gpu0's MRds wait for it (its credit stall is most of the run)
// and carry no payload; the table left that direction out (found by a user trial).
TEST_F(Cli, ThePrintedLinksIncludeADirectionOfRequestsOnly) {
  const std::string cfg = write("np.yaml",
      "platform:\n"
      "  nodes: [{name: rc0, type: root_complex}, {name: gpu0, type: gpu}]\n"
      "  links: [{up: rc0, down: gpu0, credits: {nph: 1}}]\n"
      "apps: [{name: s, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 256KiB}, count: 2}]\n");
  const Result r = run({"run", cfg, "--out", "o"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json res = json::parse(slurp(dir_ / "o" / "results.json"));  // kept: the loop reads a member
  json up;
  for (const json& l : res["links"])
    if (l["name"] == "rc0-gpu0" && l["direction"] == "up") up = l;
  ASSERT_EQ(up["bytes"], 0);
  ASSERT_GT(up["credit_stall_ns"].get<double>(), 0);
  EXPECT_NE(r.out.find("rc0-gpu0               up"), std::string::npos) << r.out;
  // The flow fidelity counts no TLPs: its links are listed by their bytes (none showed).
  const Result f = run({"run", cfg, "--out", "f", "--fidelity", "flow"});
  ASSERT_EQ(f.code, 0) << f.err;
  EXPECT_NE(f.out.find("rc0-gpu0               down"), std::string::npos) << f.out;
}

// A job with no copy in starts with its kernel: first_issue_ns read 0.0 (a placeholder) for a
// kernel-only periodic task started at 10 us. Jobs released at 10 and 30 us, 5 us kernels.
TEST_F(Cli, AKernelOnlyTaskIssuesWhenItsFirstKernelStarts) {
  const std::string cfg = write("k.yaml", small_config("  - {name: k, type: periodic, gpu: gpu0, period_ns: 20us, "
                                                       "kernel_ns: 5us, count: 2, start_ns: 10us}\n"));
  ASSERT_EQ(run({"run", cfg, "--out", "o"}).code, 0);
  const json a = json::parse(slurp(dir_ / "o" / "results.json"))["apps"][0];
  EXPECT_DOUBLE_EQ(a["first_issue_ns"].get<double>(), 10000.0);
  EXPECT_DOUBLE_EQ(a["last_done_ns"].get<double>(), 35000.0);
  // The same for a kernel-only spmd app started at 500 us: two processes of 5 us one after
  // the other (sharing none), the first kernel issued at 500 us (it read 0.0).
  const std::string spmd = write("s.yaml", small_config("  - {name: s, type: spmd, gpu: gpu0, processes: 2, "
                                                        "kernel_ns: 5us, start_ns: 500us}\n"));
  ASSERT_EQ(run({"run", spmd, "--out", "s"}).code, 0);
  const json m = json::parse(slurp(dir_ / "s" / "results.json"))["apps"][0];
  EXPECT_DOUBLE_EQ(m["first_issue_ns"].get<double>(), 500000.0);
  EXPECT_DOUBLE_EQ(m["last_done_ns"].get<double>(), 510000.0);
}

// Figures with nothing to take them of were 0.0: an app that never started (start_ns past a
// 50 us run) read a p50 of 0 ns, a first issue at 0 and a throughput of 0, as one that
// started at 0 and moved nothing. Now null (printed "-"); an app that issued a 1 GiB copy
// at 0 and finished nothing keeps its first issue (0.0) and a throughput of 0.0 (starved,
// not idle), with null latencies and no last completion.
TEST_F(Cli, FiguresWithNothingToTakeThemOfAreNull) {
  const std::string cfg = write("n.yaml", small_config(
      "  - {name: late, type: stream, gpu: gpu1, size: {fixed: 64KiB}, count: 3, start_ns: 100us}\n"
      "  - {name: big, type: stream, gpu: gpu2, size: {fixed: 1GiB}, count: 1}\n", "sim: {time_ns: 50000}\n"));
  const Result r = run({"run", cfg, "--out", "o"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json apps = json::parse(slurp(dir_ / "o" / "results.json"))["apps"];
  for (const char* k : {"throughput_gbps", "p50_ns", "p99_ns", "max_ns", "first_issue_ns", "last_done_ns"})
    EXPECT_TRUE(apps[0][k].is_null()) << k << ": " << apps[0][k];
  EXPECT_EQ(apps[1]["first_issue_ns"], 0.0);
  EXPECT_EQ(apps[1]["throughput_gbps"], 0.0);
  for (const char* k : {"p50_ns", "p99_ns", "max_ns", "last_done_ns"})
    EXPECT_TRUE(apps[1][k].is_null()) << k << ": " << apps[1][k];
  EXPECT_NE(r.out.find("late             gpu1                  0      0          -            -            -"),
            std::string::npos) << r.out;
}

// A batch app cut off before its first run ended: the run-time predicts a batch as it runs
// it, so the program's figures are not known yet; they read 0.0 (program_ns) or the first
// batch's share of the sum (program_predicted_ns) at a 10 us cut-off. Null now, and the
// kernel-only stream's copy times too (a re-trial).
TEST_F(Cli, ABatchProgramCutOffHasNoProgramFigures) {
  const std::string cfg = write("b.yaml", small_config(
      "  - {name: bp, type: batch, count: 1, program: [{streams: [{gpu: gpu0, direction: h2d, bytes: 64KiB, "
      "kernel_ns: 3000}, {gpu: gpu1, kernel_ns: 1000}]}, {streams: [{gpu: gpu1, direction: d2h, bytes: 64KiB, "
      "kernel_ns: 30000}]}]}\n", "sim: {time_ns: 10000}\n"));
  ASSERT_EQ(run({"run", cfg, "--out", "o"}).code, 0);
  const json b = json::parse(slurp(dir_ / "o" / "results.json"))["apps"][0]["batch"];
  EXPECT_GT(b["predicted_ns"].get<double>(), 0);  // the first batch ended
  EXPECT_TRUE(b["program_predicted_ns"].is_null()) << b;
  EXPECT_TRUE(b["program_ns"].is_null()) << b;
  ASSERT_EQ(b["streams"].size(), 2u);
  EXPECT_GE(b["streams"][0]["copy_end_ns"].get<double>(), 0);
  EXPECT_TRUE(b["streams"][1]["copy_start_ns"].is_null()) << b;
  EXPECT_TRUE(b["streams"][1]["copy_end_ns"].is_null()) << b;
}

// A root complex's memory port returns each TC on its own VC; where two TCs then share a VC
// of a root port, the higher goes first whatever the arbiters: TC1 and TC3 reads to gpu2 and
// gpu3 (both under sw1) on links of 2 VCs ran one at a time under "round robin" (80.4 and
// 159.9 us), with nothing said. Named, with both apps; not with 8 VCs (TC n -> VC n), nor
// where the readers are under different root ports (gpu0 under sw0).
TEST_F(Cli, ReadsWhoseTcsShareARootPortVcAreNamed) {
  const auto notes = [&](const std::string& gpu_a, const std::string& vcs, const std::string& out) {
    const std::string cfg = write(out + ".yaml", small_config(
        "  - {name: a, type: stream, gpu: " + gpu_a + ", size: {fixed: 64KiB}, count: 1, tc: 1}\n"
        "  - {name: b, type: stream, gpu: gpu3, size: {fixed: 64KiB}, count: 1, tc: 3}\n"));
    EXPECT_EQ(run({"run", cfg, "-s", "platform.defaults.link.vcs=" + vcs, "--out", out}).code, 0);
    return json::parse(slurp(dir_ / out / "results.json"))["fidelity_notes"];
  };
  const json shared = notes("gpu2", "2", "two");
  ASSERT_EQ(shared.size(), 1u) << shared.dump();
  EXPECT_EQ(shared[0]["where"], "rc0->sw1");
  EXPECT_EQ(shared[0]["apps"], json::array({"a", "b"}));
  EXPECT_TRUE(notes("gpu2", "8", "eight").empty());
  EXPECT_TRUE(notes("gpu0", "2", "apart").empty());
}

// Seed 000's ranking policies give GPU 0's requests TC0, tied to VC0: a 256 KiB copy pushed
// to gpu0 under priority_s ended after a 2 MiB one to gpu1 (smallest first, inverted),
// with nothing in the run. Named, with the app; not under rr, nor for a tenant on gpu1.
TEST_F(Cli, GpuZerosWritesAPolicyCannotRaiseAreNamed) {
  const auto notes = [&](const std::string& small_gpu, const std::string& policy, const std::string& out) {
    const std::string cfg = write(out + ".yaml", small_config(
        "  - {name: small, type: stream, gpu: " + small_gpu + ", size: {fixed: 64KiB}, count: 1}\n"
        "  - {name: large, type: stream, gpu: gpu3, size: {fixed: 256KiB}, count: 1}\n"));
    EXPECT_EQ(run({"run", cfg, "-s", "platform.h2d_mode=push", "-s", "driver.policy=" + policy, "--out", out}).code, 0);
    return json::parse(slurp(dir_ / out / "results.json"))["fidelity_notes"];
  };
  const json named = notes("gpu0", "priority_s", "ps");
  ASSERT_EQ(named.size(), 1u) << named.dump();
  EXPECT_EQ(named[0]["where"], "driver");
  EXPECT_EQ(named[0]["apps"], json::array({"small"}));
  EXPECT_TRUE(notes("gpu0", "rr", "rr").empty());
  EXPECT_TRUE(notes("gpu1", "priority_s", "other").empty());
}
