// `pcie-arbsim sweep` as a user meets it (docs/sweeps.md): points keyed by their effective
// config and the simulator version, so a resumed sweep re-runs exactly the points whose
// results are missing, truncated or stale; per-point wall-time and memory limits; a killed
// sweep stops its runs; a summary that survives whatever the run directories hold.
#include <gtest/gtest.h>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <nlohmann/json.hpp>
#include "tests/cli/cli_fixture.h"

using namespace arbsim::test;
using nlohmann::json;

namespace {

class Sweep : public Cli {
 protected:
  void SetUp() override {
    Cli::SetUp();
    write("base.yaml", "platform: " + config("platforms/seed000_fig2.yaml") +
                           "\nsim: {log_level: warn, time_ns: 20000}\n"
                           "apps: [{name: s, type: stream, gpu: gpu0, size: {fixed: 64KiB}, count: 4}]\n");
  }
  // summary.csv as rows of fields (no quoted commas in these sweeps).
  std::vector<std::vector<std::string>> summary(const std::string& out = "out") const {
    std::vector<std::vector<std::string>> rows;
    for (const std::string& line : lines(slurp(dir_ / out / "summary.csv"))) {
      std::vector<std::string> f;
      std::stringstream s(line);
      for (std::string x; std::getline(s, x, ',');) f.push_back(x);
      rows.push_back(f);
    }
    return rows;
  }
  // A shell prefix leaving only timeout(1) on PATH: no Slurm command is found.
  std::string no_slurm_path() const {
    fs::create_directories(dir_ / "bin");
    fs::create_symlink("/usr/bin/timeout", dir_ / "bin/timeout");
    return "PATH=" + quote((dir_ / "bin").string());
  }
  json results(const std::string& id) const { return json::parse(slurp(dir_ / "out" / "runs" / id / "results.json")); }
};

// A truncated results.json is not a complete point: a resumed sweep runs it again.
TEST_F(Sweep, ResumeRerunsATruncatedPoint) {
  write("spec.yaml", "base: base.yaml\nproduct:\n  sim.seed: [1, 2, 3]\n");
  ASSERT_EQ(run({"sweep", "spec.yaml", "-j", "2", "--out", "out"}).code, 0);
  const std::string whole = slurp(dir_ / "out/runs/r0002/results.json");
  write("out/runs/r0002/results.json", whole.substr(0, 500));
  const Result r = run({"sweep", "spec.yaml", "-j", "2", "--out", "out"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("2 already complete"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir_ / "out/runs/r0002/results.json"), whole);
  for (const auto& row : summary()) EXPECT_NE(row.at(1), "missing");
}

// --dry-run lists every point with its overrides and command and touches nothing; after the
// sweep has run, the same listing says every point is complete.
TEST_F(Sweep, DryRunListsThePointsAndWritesNothing) {
  write("spec.yaml", "base: base.yaml\nproduct:\n  sim.seed: [1, 2, 3]\n");
  Result r = run({"sweep", "spec.yaml", "--out", "out", "--dry-run"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
  EXPECT_NE(r.out.find("3 points, 0 complete, 3 to run"), std::string::npos) << r.out;
  for (const char* line : {"r0001  to run    sim.seed=1", "r0002  to run    sim.seed=2", "r0003  to run    sim.seed=3"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << " missing:\n" << r.out;
  EXPECT_NE(r.out.find(" run "), std::string::npos) << "no command line:\n" << r.out;
  ASSERT_EQ(run({"sweep", "spec.yaml", "--out", "out"}).code, 0);
  r = run({"sweep", "spec.yaml", "--out", "out", "-n"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("3 points, 3 complete, 0 to run"), std::string::npos) << r.out;
}

// runs.txt's commands run from any directory (issue 15): the base config and the run
// directory are absolute. Point r0001's line, run from /, rewrites its results in place.
TEST_F(Sweep, RunsTxtCommandsRunFromAnyDirectory) {
  write("spec.yaml", "base: base.yaml\nproduct:\n  sim.seed: [1, 2]\n");
  ASSERT_EQ(run({"sweep", "spec.yaml", "--out", "out"}).code, 0);
  const std::vector<std::string> cmds = lines(slurp(dir_ / "out/runs.txt"));
  ASSERT_EQ(cmds.size(), 2u);
  const fs::path here = fs::absolute(dir_).lexically_normal();
  EXPECT_NE(cmds[0].find(" run " + (here / "base.yaml").string() + " "), std::string::npos) << cmds[0];
  EXPECT_NE(cmds[0].find(" --out " + (here / "out/runs/r0001").string()), std::string::npos) << cmds[0];
  fs::remove_all(dir_ / "out/runs/r0001");
  ASSERT_EQ(std::system(("cd / && " + cmds[0] + " > /dev/null 2>&1").c_str()), 0) << cmds[0];
  EXPECT_EQ(results("r0001")["seed"], 1);
}

// After the spec changes, the same directory holds points of other configs: none of them
// is reused under the new labels.
TEST_F(Sweep, ResumeAfterEditingTheSpecRerunsEveryChangedPoint) {
  write("spec.yaml", "base: base.yaml\nproduct:\n  sim.seed: [1, 2, 3]\n");
  ASSERT_EQ(run({"sweep", "spec.yaml", "--out", "out"}).code, 0);
  write("spec.yaml", "base: base.yaml\nproduct:\n  sim.seed: [7, 2, 9]\n");
  const Result r = run({"sweep", "spec.yaml", "--out", "out"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("1 already complete"), std::string::npos) << r.err;  // r0002 kept seed 2
  EXPECT_EQ(results("r0001")["seed"], 7);
  EXPECT_EQ(results("r0002")["seed"], 2);
  EXPECT_EQ(results("r0003")["seed"], 9);
}

// A point over its wall-time limit is stopped and reported as such; the others complete.
TEST_F(Sweep, PointOverItsTimeLimitIsStopped) {
  write("spec.yaml",
        "base: base.yaml\nruns:\n  - {name: quick, set: [\"sim.seed=1\"]}\n"
        "  - {name: long, set: [\"sim.time_ns=1e9\", \"apps.s.count=0\", \"apps.s.duration_ns=1e9\"]}\n");
  const auto t0 = std::chrono::steady_clock::now();
  const Result r = run({"sweep", "spec.yaml", "--out", "out", "--timeout", "2s"});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 30.0);
  EXPECT_EQ(r.code, 1) << r.err;
  const auto rows = summary();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1][0], "quick");
  EXPECT_EQ(rows[1][1], "ok");
  EXPECT_EQ(rows[2][0], "long");
  EXPECT_EQ(rows[2][1], "timeout");
  EXPECT_NE(r.err.find("run long: timeout"), std::string::npos) << r.err;
  // No results, so no figures: fidelity_notes is empty like the rest (it read 0).
  const auto& head = rows[0];
  const std::size_t notes = static_cast<std::size_t>(std::find(head.begin(), head.end(), "fidelity_notes") - head.begin());
  ASSERT_LT(notes, head.size());
  EXPECT_EQ(rows[1][notes], "0");
  EXPECT_TRUE(notes >= rows[2].size() || rows[2][notes].empty());
}

// A point over its memory limit fails as out_of_memory: a batch program of 10^6 batches
// queued at once needs ~440 MB.
TEST_F(Sweep, PointOverItsMemoryLimitFails) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "a sanitizer build sets no address-space limit (its shadow memory needs terabytes)";
#endif
  write("spec.yaml",
        "base: base.yaml\nruns:\n  - {name: quick, set: [\"sim.seed=1\"]}\n"
        "  - {name: hog, set: [\"apps.s.program=[{repeat: 1000000, streams: [{gpu: gpu0, kernel_ns: 1}]}]\"]}\n");
  write("base.yaml", "platform: " + config("platforms/seed000_fig2.yaml") +
                         "\nsim: {log_level: warn, time_ns: 20000}\napps: [{name: s, type: batch, count: 1, "
                         "program: [{streams: [{gpu: gpu0, kernel_ns: 1}]}]}]\n");
  const Result r = run({"sweep", "spec.yaml", "--out", "out", "--mem-limit", "200MiB"});
  EXPECT_EQ(r.code, 1) << r.err;
  const auto rows = summary();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1][1], "ok");
  EXPECT_EQ(rows[2][1], "out_of_memory");
}

// Whatever a run directory holds, the summary is written (here results.json is a directory:
// that point cannot complete and is reported failed, the other is fine).
TEST_F(Sweep, SummarySurvivesAnUnexpectedRunDirectory) {
  write("spec.yaml", "base: base.yaml\nproduct:\n  sim.seed: [1, 2]\n");
  fs::create_directories(dir_ / "out/runs/r0001/results.json/x");
  const Result r = run({"sweep", "spec.yaml", "--out", "out"});
  EXPECT_EQ(r.code, 1) << r.err;
  const auto rows = summary();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1][1], "failed");
  EXPECT_EQ(rows[2][1], "ok");
}

// Killed (SIGKILL) after its first point, then run again: the summary and the tidy tables are
// those of a sweep never interrupted (issue 15); the finished point is not run again.
TEST_F(Sweep, KilledAndResumedGivesTheOutputsOfAnUninterruptedSweep) {
  write("spec.yaml", "base: base.yaml\nproduct:\n  sim.seed: [1, 2, 3]\n"
                     "set: [\"sim.time_ns=1e7\", \"apps.s.count=0\", \"apps.s.duration_ns=1e7\"]\n");
  ASSERT_EQ(run({"sweep", "spec.yaml", "-j", "3", "--out", "whole"}).code, 0);
  const std::string cmd = "cd " + quote(dir_.string()) + " && (" + quote(kBin) +
                          " sweep spec.yaml -j 1 --out out >/dev/null 2>&1 & echo $! > sweep.pid; wait)";
  std::thread sweep([&] { (void)std::system(cmd.c_str()); });
  for (int i = 0; i < 2000 && !fs::exists(dir_ / "out/runs/r0001/point.json"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(std::system(("kill -KILL " + slurp(dir_ / "sweep.pid")).c_str()), 0);
  sweep.join();
  ASSERT_FALSE(fs::exists(dir_ / "out/summary.csv")) << "the killed sweep finished before it was killed";
  const Result r = run({"sweep", "spec.yaml", "-j", "1", "--out", "out"});
  ASSERT_EQ(r.code, 0) << r.err;
  // The kill lands after the first run at the earliest; on a loaded machine the sweep may
  // have finished every run but not its summary by then (a flake seen under two parallel
  // test suites): any of these is a resume.
  const bool resumed = r.err.find("3 runs, 1 already complete") != std::string::npos ||
                       r.err.find("3 runs, 2 already complete") != std::string::npos ||
                       r.err.find("3 runs, 3 already complete") != std::string::npos;
  EXPECT_TRUE(resumed) << r.err;
  EXPECT_EQ(slurp(dir_ / "out/summary.csv"), slurp(dir_ / "whole/summary.csv"));
  for (const char* t : {"points", "apps", "gpus", "links", "link_vcs", "arbiters", "arbiter_vcs"})
    EXPECT_EQ(slurp(dir_ / "out/tables" / (std::string(t) + ".csv")), slurp(dir_ / "whole/tables" / (std::string(t) + ".csv")))
        << t;
}

// A spec's limits are checked where the file and line are known (a zero timeout named no
// file before); the command line's, by their flags.
TEST_F(Sweep, BadLimitsNameTheSpecOrTheFlag) {
  write("spec.yaml", "base: base.yaml\nproduct:\n  sim.seed: [1]\nlimits: {timeout: 0}\n");
  expect_one_error(run({"sweep", "spec.yaml", "--out", "out"}), {"spec.yaml:4:", "limits.timeout", "at least 1 s", "'0'"});
  write("spec.yaml", "base: base.yaml\nproduct:\n  sim.seed: [1]\nlimits: {memory: 1MiB}\n");
  expect_one_error(run({"sweep", "spec.yaml", "--out", "out"}), {"spec.yaml:4:", "limits.memory", "64MiB"});
  write("spec.yaml", "base: base.yaml\nproduct:\n  sim.seed: [1]\n");
  expect_one_error(run({"sweep", "spec.yaml", "--out", "out", "--timeout", "0"}), {"--timeout 0"});
  // A bare number is ns; the message says so (it only said "at least 1 s" to a 60).
  expect_one_error(run({"sweep", "spec.yaml", "--out", "out", "--timeout", "60"}), {"a number without a unit is in ns"});
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

// Points that differ only in a platform.defaults key no element takes run alike: on a base
// whose links set their width themselves (as a config.effective.yaml does), a sweep of
// platform.defaults.link.width gave identical points under different hashes (found by a
// user trial). Refused before anything runs.
TEST_F(Sweep, PointsDifferingOnlyInDefaultsNoElementTakesAreRefused) {
  write("own.yaml", "platform:\n  nodes: [{name: rc0, type: root_complex}, {name: gpu0, type: gpu}]\n"
                    "  links: [{up: rc0, down: gpu0, width: 16}]\n"
                    "apps: [{name: s, type: stream, gpu: gpu0, size: {fixed: 4KiB}, count: 1}]\n");
  write("spec.yaml", "base: own.yaml\nproduct:\n  platform.defaults.link.width: [4, 8]\n");
  expect_one_error(run({"sweep", "spec.yaml", "--out", "out", "--dry-run"}),
                   {"run alike: they differ only in platform.defaults keys that no element takes"});
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

// A product key given twice is named as such, with its line (it was blamed on "two keys
// set one setting" with no line); a run name too long for a directory is refused before
// anything runs (a 300-character one passed --dry-run and failed each run). Found by a user
// trial.
TEST_F(Sweep, ARepeatedProductKeyAndAnOverlongRunNameAreBadInput) {
  write("spec.yaml", "base: base.yaml\nproduct:\n  sim.seed: [1, 2]\n  sim.seed: [3]\n");
  expect_one_error(run({"sweep", "spec.yaml", "--out", "out", "--dry-run"}),
                   {"spec.yaml:4: product.sim.seed: key given twice in one map"});
  write("spec.yaml", "base: base.yaml\nruns:\n  - {name: " + std::string(300, 'n') + ", set: [sim.seed=1]}\n");
  expect_one_error(run({"sweep", "spec.yaml", "--out", "out", "--dry-run"}), {"300 characters: at most 200"});
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

// One setting named twice in a product, by index and by name: the later key won, so both
// points ran gen 5 while the summary said 3 and 4 (found by a user trial). Refused before
// anything runs: the two points give one config.
TEST_F(Sweep, TwoKeysForOneSettingAreRefused) {
  write("spec.yaml", "base: base.yaml\nproduct: {platform.links.0.gen: [3, 4], platform.links.rc0-sw0.gen: [5]}\n");
  for (const char* dry : {"--dry-run", "--jobs"}) {
    std::vector<std::string> args = {"sweep", "spec.yaml", "--out", "out", dry};
    if (std::string(dry) == "--jobs") args.push_back("1");
    expect_one_error(run(args), {"spec.yaml", "runs r0001", "r0002", "give one config", "platform.links.0.gen=3"});
  }
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

// One setting varied under two spellings in separate runs (by index, by name, with brackets):
// the configs differ, but the summary would give each spelling its own column, blank where
// the other is set (found by a user trial). Refused before anything runs, naming both.
TEST_F(Sweep, OneSettingSpelledTwoWaysIsRefused) {
  for (const char* other : {"platform.links.rc0-sw0.gen", "platform.links[0].gen"}) {
    write("spec.yaml", std::string("base: base.yaml\nruns:\n  - {name: a, set: [\"platform.links.0.gen=3\"]}\n") +
                           "  - {name: b, set: [\"" + other + "=4\"]}\n");
    expect_one_error(run({"sweep", "spec.yaml", "--out", "out", "--dry-run"}),
                     {"spec.yaml", "run b varies " + std::string(other), "run a varies as platform.links.0.gen",
                      "spell it one way"});
  }
  // One spelling in every run is a sweep.
  write("spec.yaml", "base: base.yaml\nruns:\n  - {name: a, set: [\"platform.links.0.gen=3\"]}\n"
                     "  - {name: b, set: [\"platform.links.0.gen=4\"]}\n");
  EXPECT_EQ(run({"sweep", "spec.yaml", "--out", "out", "--dry-run"}).code, 0);
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

// The Slurm backend's settings are checked before anything is submitted or written: a bad
// `slurm:` key in the spec, a bad flag, a Slurm flag without --backend slurm, and no sbatch on
// PATH are each one error line, exit 2, and no output directory.
TEST_F(Sweep, BadSlurmSettingsAreRefusedBeforeAnythingRuns) {
  const std::string no_slurm = no_slurm_path();
  write("spec.yaml", "base: base.yaml\nproduct:\n  sim.seed: [1]\nslurm: {points_per_task: 0}\n");
  expect_one_error(run({"sweep", "spec.yaml", "--out", "out", "--backend", "slurm"}), {"spec.yaml", "slurm.points_per_task", ">= 1"});
  write("spec.yaml", "base: base.yaml\nproduct:\n  sim.seed: [1]\nslurm: {partiton: short}\n");
  expect_one_error(run({"sweep", "spec.yaml", "--out", "out"}), {"spec.yaml", "partiton"});
  write("spec.yaml", "base: base.yaml\nproduct:\n  sim.seed: [1]\n");
  expect_one_error(run({"sweep", "spec.yaml", "--out", "out", "--backend", "cloud"}), {"--backend cloud", "local or slurm"});
  expect_one_error(run({"sweep", "spec.yaml", "--out", "out", "--partition", "short"}), {"need --backend slurm"});
  expect_one_error(run({"sweep", "spec.yaml", "--out", "out", "--backend", "slurm", "--points-per-task", "0"}),
                   {"--points-per-task"});
  expect_one_error(run({"sweep", "spec.yaml", "--out", "out", "--backend", "slurm"}, no_slurm),
                   {"--backend slurm", "sbatch", "not found on PATH"});
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

// --dry-run with --backend slurm says how the array would be cut, and submits nothing (no
// Slurm needed).
TEST_F(Sweep, SlurmDryRunDescribesTheArray) {
  write("spec.yaml", "base: base.yaml\nproduct:\n  sim.seed: [1, 2, 3]\nslurm: {partition: short, throttle: 4}\n");
  const Result r = run({"sweep", "spec.yaml", "--out", "out", "--backend", "slurm", "--points-per-task", "2", "-n"},
                       no_slurm_path());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("3 to run, as a Slurm array, 2 points per task, 4 tasks at a time, partition short"),
            std::string::npos) << r.out;
  // And the sbatch command: 3 points at 2 a task are tasks 0-1, 4 at a time; each task's
  // wall time is its 2 points at the 1 h limit each, plus a minute (121 min).
  EXPECT_NE(r.out.find("would submit: sbatch --parsable '--array=0-1%4' --ntasks=1 --job-name=arbsim-spec --time=121"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--partition=short "), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

// Killing the sweep stops the runs it started (they used to go on, reparented to init).
TEST_F(Sweep, KillingTheSweepStopsItsRuns) {
  write("spec.yaml", "base: base.yaml\nproduct:\n  sim.seed: [90401, 90402, 90403, 90404]\n"
                     "set: [\"sim.time_ns=1e9\", \"apps.s.count=0\", \"apps.s.duration_ns=1e9\"]\n");
  const std::string cmd = "cd " + quote(dir_.string()) + " && (" + quote(kBin) +
                          " sweep spec.yaml -j 2 --out out >/dev/null 2>&1 & echo $! > sweep.pid; wait)";
  std::thread sweep([&] { (void)std::system(cmd.c_str()); });
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const std::string pid = slurp(dir_ / "sweep.pid");
  ASSERT_FALSE(pid.empty());
  ASSERT_EQ(std::system(("kill -TERM " + pid).c_str()), 0);
  sweep.join();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  // The runs' command lines hold these seeds (unique to this test); "run[s]" keeps the
  // pattern from matching this probe's own shell.
  const std::string probe = "pgrep -f 'sim.seed=9040[1-4] --out out/run[s]/' >/dev/null";
  EXPECT_NE(std::system(probe.c_str()), 0) << "runs of the killed sweep are still running";
  EXPECT_FALSE(fs::exists(dir_ / "out/runs/r0001/results.json"));
}

}  // namespace
