// `pcie-arbsim run --trace` as a user meets it (issue 16, docs/observability.md): the trace
// file is written and listed in run.json, bounded by its window and filter, tracing changes
// no result (it only adds arbiters[].why_not_granted), and bad trace options are bad input.
// The format itself is checked by tests/python (pcie_arbsim.trace.load_trace) and the reasons
// on hand-worked timelines by tests/sim/test_why_not_granted.cpp.
#include <gtest/gtest.h>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>
#include "tests/cli/cli_fixture.h"
#include "tests/cli/vcd_reader.h"

using namespace arbsim::test;
using nlohmann::json;

namespace {

class Trace : public Cli {
 protected:
  json read(const std::string& rel) const { return json::parse(slurp(dir_ / rel)); }
  Result traced(const std::vector<std::string>& extra) const {
    std::vector<std::string> args = {"run", config("default.yaml"), "--sim-time", "300us", "--out", "out"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  }
};

TEST_F(Trace, WindowBoundsTheTraceAndRunJsonListsIt) {
  const Result r = traced({"--trace", "out/trace.json", "--trace-window", "100us:110us"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json t = read("out/trace.json");
  std::size_t slices = 0;
  for (const json& e : t["traceEvents"]) {
    if (e["ph"] == "M") continue;
    EXPECT_GE(e["ts"].get<double>(), 100.0) << e.dump();
    EXPECT_LE(e["ts"].get<double>(), 110.0) << e.dump();
    slices += e["ph"] == "X";
  }
  EXPECT_GT(slices, 100u);
  const json outputs = read("out/run.json")["outputs"];
  EXPECT_NE(std::find(outputs.begin(), outputs.end(), "trace.json"), outputs.end()) << outputs.dump();
  std::size_t explained = 0;
  const json results = read("out/results.json");  // kept: a loop over a temporary's member would dangle
  for (const json& a : results["arbiters"]) explained += a.contains("why_not_granted");
  EXPECT_GT(explained, 0u);
}

TEST_F(Trace, FilterKeepsOnlyTheMatchingLinkDirections) {
  ASSERT_EQ(traced({"--trace", "out/trace.json", "--trace-filter", "sw0->*"}).code, 0);
  std::set<std::string> names;
  const json t = read("out/trace.json"), results = read("out/results.json");
  for (const json& e : t["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "process_name") names.insert(e["args"]["name"].get<std::string>());
  EXPECT_EQ(names, (std::set<std::string>{"sw0->gpu0", "sw0->gpu1", "sw0->rc0"}));
  for (const json& a : results["arbiters"])
    EXPECT_EQ(a.contains("why_not_granted"), a["name"].get<std::string>().rfind("sw0->", 0) == 0) << a["name"];
}

// Observing changes nothing it observes: results.json with --trace is the one without, plus
// the why_not_granted summaries.
TEST_F(Trace, TracingChangesNoResult) {
  ASSERT_EQ(traced({}).code, 0);
  const json plain = read("out/results.json");
  ASSERT_EQ(traced({"--trace", "t.json"}).code, 0);
  json with = read("out/results.json");
  for (json& a : with["arbiters"]) a.erase("why_not_granted");
  EXPECT_EQ(with, plain);
}

TEST_F(Trace, BadTraceOptionsAreBadInput) {
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--trace", "t.json", "--trace-window", "100us"},
        std::vector<std::string>{"--trace", "t.json", "--trace-window", "200us:100us"},
        std::vector<std::string>{"--trace", "t.json", "--trace-window", "-1us:100us"},
        std::vector<std::string>{"--trace-window", "1us:2us"},
        std::vector<std::string>{"--trace", "t.json", "--trace-window", "300us:"},  // the run ends at 300 us
        std::vector<std::string>{"--trace", "t.json", "--fidelity", "flow"},
        std::vector<std::string>{"--trace", "afile/t.json"}}) {  // through a file (was exit 3, out/ and sim.log made)
    write("afile", "a file\n");
    const Result r = traced(extra);
    expect_one_error(r, {"--trace"});
    EXPECT_FALSE(fs::exists(dir_ / "out")) << extra.back();
    EXPECT_FALSE(fs::exists(dir_ / "t.json")) << extra.back();
  }
}

// --detect adds results.json `detectors` (each kind, found or not) and changes nothing else.
TEST_F(Trace, DetectAddsOnlyTheDetectorsSection) {
  ASSERT_EQ(traced({}).code, 0);
  const json plain = read("out/results.json");
  const Result r = traced({"--detect", "--starvation-bound", "2us"});
  ASSERT_EQ(r.code, 0) << r.err;
  json with = read("out/results.json");
  ASSERT_TRUE(with.contains("detectors"));
  EXPECT_EQ(with["detectors"]["starvation_bound_ns"], 2000);
  for (const char* kind : {"head_of_line_blocking", "priority_inversion", "starvation"})
    EXPECT_TRUE(with["detectors"][kind].contains("episodes")) << kind;
  with.erase("detectors");
  EXPECT_EQ(with, plain);
}

TEST_F(Trace, BadDetectOptionsAreBadInput) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--starvation-bound", "2us"}, "--starvation-bound needs --detect"},
      {{"--detect", "--starvation-bound", "0"}, "--starvation-bound 0"},
      {{"--detect", "--starvation-bound", "soon"}, "--starvation-bound soon"},
      {{"--detect", "--fidelity", "flow"}, "--detect: the flow fidelity"}};
  for (const auto& [extra, says] : cases) {
    const Result r = traced(extra);
    expect_one_error(r, {says});
    EXPECT_FALSE(fs::exists(dir_ / "out")) << says;
  }
}

// sim.stats_period_ns writes DIR/series.csv, listed in run.json; a run without it into the
// same directory removes it with the earlier run's other outputs.
TEST_F(Trace, TimeSeriesIsAnOutputOfTheRun) {
  ASSERT_EQ(traced({"-s", "sim.stats_period_ns=10us"}).code, 0);
  ASSERT_TRUE(fs::exists(dir_ / "out/series.csv"));
  EXPECT_EQ(slurp(dir_ / "out/series.csv").rfind("time_ns,kind,name,vc,value\n", 0), 0u);
  const json outputs = read("out/run.json")["outputs"];
  EXPECT_NE(std::find(outputs.begin(), outputs.end(), "series.csv"), outputs.end()) << outputs.dump();
  EXPECT_EQ(read("out/results.json")["series"]["samples"], 30);  // 300 us / 10 us
  ASSERT_EQ(traced({}).code, 0);
  EXPECT_FALSE(fs::exists(dir_ / "out/series.csv"));
}

// --vcd-window T0:T1: every timestamp of the VCD lies in [T0, T1], and each signal's values
// there are the whole-run VCD's (its value at the end of T0, then each change up to T1).
TEST_F(Trace, VcdWindowHoldsTheWholeRunsValuesInsideIt) {
  const std::vector<std::string> base = {"run", config("default.yaml"), "--sim-time", "40us", "--out", "out", "--vcd"};
  std::vector<std::string> whole = base, windowed = base;
  whole.push_back("out/whole.vcd");
  windowed.insert(windowed.end(), {"out/w.vcd", "--vcd-window", "10us:20us"});
  ASSERT_EQ(run(whole).code, 0);
  const VcdChanges all = read_vcd(slurp(dir_ / "out/whole.vcd"));
  const Result r = run(windowed);  // replaces the run in out/, not whole.vcd (outside its list)
  ASSERT_EQ(r.code, 0) << r.err;
  const VcdChanges win = read_vcd(slurp(dir_ / "out/w.vcd"));
  ASSERT_EQ(win.size(), all.size());
  const uint64_t t0 = 10000000, t1 = 20000000;
  std::size_t changes = 0;
  for (const auto& [name, seq] : win) {
    ASSERT_FALSE(seq.empty()) << name;
    EXPECT_EQ(seq.front().first, t0) << name;  // its initial value, at T0
    EXPECT_EQ(vcd_value_at(seq, t0), vcd_value_at(all.at(name), t0)) << name;
    for (const auto& [t, v] : seq) {
      EXPECT_LE(t, t1) << name;
      if (t > t0) {
        EXPECT_EQ(v, vcd_value_at(all.at(name), t)) << name << " at " << t;
        ++changes;
      }
    }
  }
  EXPECT_GT(changes, 100u);
  EXPECT_NE(slurp(dir_ / "out/w.gtkw").find("[timestart] 10000000\n"), std::string::npos);
}

// --vcd-filter keeps the signals whose dotted names match, with the values they had.
TEST_F(Trace, VcdFilterKeepsTheMatchingSignalsOnly) {
  ASSERT_EQ(run({"run", config("default.yaml"), "--sim-time", "20us", "--out", "out", "--vcd", "out/w.vcd",
                 "--vcd-filter", "sw0.*.busy,gpu*.state"})
                .code,
            0);
  const std::string filtered_text = slurp(dir_ / "out/w.vcd");
  const VcdChanges kept = read_vcd(filtered_text);
  ASSERT_EQ(run({"run", config("default.yaml"), "--sim-time", "20us", "--out", "out", "--vcd", "out/w.vcd"}).code, 0);
  const VcdChanges all = read_vcd(slurp(dir_ / "out/w.vcd"));
  std::size_t expected = 0;
  for (const auto& [name, seq] : all) {
    const bool busy = name.rfind("sw0.", 0) == 0 && name.size() > 5 && name.compare(name.size() - 5, 5, ".busy") == 0;
    const bool state = name.rfind("gpu", 0) == 0 && name.find(".state") != std::string::npos;
    if (!busy && !state) continue;
    ++expected;
    ASSERT_TRUE(kept.count(name)) << name;
    EXPECT_EQ(kept.at(name), seq) << name;
  }
  EXPECT_EQ(kept.size(), expected);
  EXPECT_GE(expected, 4u);  // sw0's 3 egress ports, 4 GPUs
  // It still ends at the run's end (SystemC's closing "#T", which no change follows).
  EXPECT_EQ(lines(filtered_text).back(), "#20000000");
}

TEST_F(Trace, BadVcdOptionsAreBadInput) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--vcd-window", "1us:2us"}, "--vcd-window needs --vcd"},
      {{"--vcd", "w.vcd", "--vcd-window", "2us:1us"}, "--vcd-window 2us:1us"},
      {{"--vcd", "w.vcd", "--vcd-window", "400us:"}, "starts at or after the run's end"},
      {{"--vcd-filter", "sw0.*"}, "--vcd-filter sw0.*: needs --vcd"},
      {{"--vcd", "w.vcd", "--vcd-filter", ","}, "at least one glob"}};
  for (const auto& [extra, says] : cases) {
    expect_one_error(traced(extra), {says});
    EXPECT_FALSE(fs::exists(dir_ / "out")) << says;
    EXPECT_FALSE(fs::exists(dir_ / "w.vcd")) << says;
  }
}

// Model logs: --log sw0=trace gives sw0's grants, each with its object's name and the
// simulated time, and nothing of other modules below info. The worked example's two GPUs
// each write 16 MWr up through sw0: 32 grants, all at sw0.to_rc0 (nothing goes down).
TEST_F(Trace, PerModuleLogLevelsKeepOneModulesTrace) {
  const std::vector<std::string> base = {"run", config("examples/strict_guard_trace.yaml"), "-s", "sim.time_ns=1000",
                                         "--out", "out"};
  std::vector<std::string> args = base;
  args.insert(args.end(), {"--log", "sw0=trace"});
  ASSERT_EQ(run(args).code, 0);
  std::size_t grants = 0;
  for (const std::string& l : lines(slurp(dir_ / "out/sim.log"))) {
    if (l.find("] [trace] ") == std::string::npos && l.find("] [debug] ") == std::string::npos) continue;
    EXPECT_NE(l.find("] sw0."), std::string::npos) << l;  // sw0 and the objects below it only
    EXPECT_EQ(l.rfind("[", 0), 0u) << l;                  // "[<simulated time> ns] ..."
    grants += l.find("[trace] sw0.to_rc0: grant MWr 256 B") != std::string::npos;
  }
  EXPECT_EQ(grants, 32u);
  args = base;
  args.insert(args.end(), {"--log-level", "debug"});
  ASSERT_EQ(run(args).code, 0);
  const std::string debug = slurp(dir_ / "out/sim.log");
  EXPECT_NE(debug.find("[0.000000 ns] [debug] gpu0_compute: state idle -> stalled"), std::string::npos);
  EXPECT_NE(debug.find("[debug] app_hi: D2H copy of 4096 B issued"), std::string::npos);
  EXPECT_EQ(debug.find("[trace]"), std::string::npos);
  // One module's level lets nothing else through: at warn, no info line of the run appears.
  args = base;
  args.insert(args.end(), {"--log-level", "warn", "--log", "sw0=trace"});
  ASSERT_EQ(run(args).code, 0);
  const std::string quiet = slurp(dir_ / "out/sim.log");
  EXPECT_EQ(quiet.find("[info]"), std::string::npos) << quiet.substr(0, 400);
  EXPECT_NE(quiet.find("[trace] sw0.to_rc0: grant"), std::string::npos);
}

TEST_F(Trace, BadLogLevelsAreBadInput) {
  for (const char* spec : {"sw0", "sw0=loud", "=trace", ","}) {
    expect_one_error(traced({"--log", spec}), {std::string("--log ") + spec});
    EXPECT_FALSE(fs::exists(dir_ / "out")) << spec;
  }
}

// The flow fabric's trace log: each copy's rate at every recomputation. Two writers share the
// uplink round robin (every link Gen3 x16): each moves half of what one moves alone (the
// division is work-conserving and the turns equal), and both are held by the uplink.
TEST_F(Trace, FlowFabricLogsEachCopysRate) {
  const auto rates = [&](int writers) {
    std::string y = "platform: " + config("platforms/seed000_fig2.yaml") + "\nsim: {fidelity: flow}\napps:\n";
    for (int g = 0; g < writers; ++g)
      y += "  - {name: w" + std::to_string(g) + ", type: stream, gpu: gpu" + std::to_string(g) +
           ", direction: d2h, size: {fixed: 4MiB}, count: 1}\n";
    std::ofstream(dir_ / "w.yaml") << y;
    const Result r = run({"run", (dir_ / "w.yaml").string(), "--out", "out", "--log", "flow_fabric=trace"});
    EXPECT_EQ(r.code, 0) << r.err;
    std::vector<double> at_zero;
    for (const std::string& l : lines(r.err))
      if (l.rfind("[0.000000 ns] [trace] flow_fabric: transfer ", 0) == 0) {
        at_zero.push_back(std::stod(l.substr(l.find(" at ") + 4)));
        EXPECT_NE(l.find("GB/s, held by link "), std::string::npos) << l;
      }
    return at_zero;
  };
  const std::vector<double> alone = rates(1), shared = rates(2);
  ASSERT_EQ(alone.size(), 1u);
  ASSERT_GE(shared.size(), 2u);  // the second start recomputes both
  EXPECT_NEAR(shared[shared.size() - 1], alone[0] / 2, 1e-6 * alone[0]);
  EXPECT_NEAR(shared[shared.size() - 2], alone[0] / 2, 1e-6 * alone[0]);
}

// A module the model does not have (a typo) would log nothing: the run says so, naming the
// top-level modules, and runs as it would without the entry.
TEST_F(Trace, ALogModuleThatNamesNothingIsWarnedAbout) {
  const Result r = run({"run", config("examples/strict_guard_trace.yaml"), "-s", "sim.time_ns=1000", "--out", "out",
                        "--log", "sw9=trace,sw0=debug"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("--log sw9=trace: the model has no module 'sw9', so it logs nothing (modules: "),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sw0"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("'sw0'"), std::string::npos) << r.err;  // sw0 exists: no warning for it
}

// A --trace-filter that matches no link direction of the platform (here a node's name without
// the arrow) is warned about; one that matches some is not.
TEST_F(Trace, ATraceFilterThatMatchesNothingIsWarnedAbout) {
  const auto with_filter = [&](const std::string& glob) {
    return run({"run", config("default.yaml"), "--sim-time", "20us", "--out", "out", "--trace", "t.json",
                "--trace-filter", glob});
  };
  Result r = with_filter("sw0");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("--trace-filter sw0 matches no link direction"), std::string::npos) << r.err;
  r = with_filter("sw0->*");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find("--trace-filter"), std::string::npos) << r.err;
}

// An unlimited run with a warm-up and a series ends where its traffic ends; SystemC is never
// asked to run a kernel with nothing left to do (it used to warn "no activity or clock
// movement for sc_start() invocation" at the end of such a run).
TEST_F(Trace, AnUnlimitedRunWithPausesEndsWithoutAKernelWarning) {
  const Result r = run({"run", config("examples/strict_guard_trace.yaml"), "-s", "sim.time_ns=0", "-s",
                        "sim.warmup_ns=200", "-s", "sim.stats_period_ns=100", "--out", "out"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find("[warning]"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir_ / "out/sim.log").find("no activity"), std::string::npos);
}

// A series period shorter than the gaps between events (1 ns here: the example's TLPs take
// longer on the wire) leaves periods with nothing in them; the run says nothing of them (the
// kernel used to warn "no activity or clock movement" once per empty period), and samples
// every one: 300 of them in 300 ns, limited or not.
TEST_F(Trace, ASeriesOfEmptyPeriodsWarnsOfNothing) {
  const Result r = run({"run", config("examples/strict_guard_trace.yaml"), "-s", "sim.time_ns=300", "-s",
                        "sim.stats_period_ns=1", "--out", "out"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find("no activity"), std::string::npos) << r.err.substr(0, 400);
  EXPECT_EQ(slurp(dir_ / "out/sim.log").find("no activity"), std::string::npos);
  EXPECT_EQ(json::parse(slurp(dir_ / "out/results.json"))["series"]["samples"].get<int>(), 300);
}

// An unlimited run whose series fills up (10^5 samples: 1-ns periods over 20 MiB of copies
// at Gen4 x16, about 0.8 ms) stops sampling at 10^5 ns, says so in the log, and results.json
// series.stopped_at_ns gives that time; the last rows of series.csv are at it.
TEST_F(Trace, ASeriesThatFillsUpSaysWhereItStopped) {
  const std::string cfg = write("tiny.yaml", R"(platform:
  name: tiny
  nodes:
    - {name: rc0, type: root_complex}
    - {name: gpu0, type: gpu}
  links:
    - {up: rc0, down: gpu0, gen: 4, width: 16}
apps:
  - {name: w, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 1MiB}, count: 20}
sim: {stats_period_ns: 1}
)");
  const Result r = run({"run", cfg, "--out", "out"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("the time series stops at 100000 ns after 100000 samples"), std::string::npos) << r.err;
  const json series = read("out/results.json")["series"];
  EXPECT_EQ(series["samples"].get<int>(), 100000);
  EXPECT_EQ(series["stopped_at_ns"].get<double>(), 100000.0);
  EXPECT_GT(read("out/results.json")["makespan_ns"].get<double>(), 500000.0);  // the run itself goes on
  const std::vector<std::string> rows = lines(slurp(dir_ / "out/series.csv"));
  EXPECT_EQ(rows.back().rfind("100000,", 0), 0u) << rows.back();
}

// A flow-level run's VCD has the GPU states and nothing of the links: the log says so.
TEST_F(Trace, AFlowLevelVcdSaysWhatItLeavesOut) {
  Result r = traced({"--vcd", "w.vcd", "--fidelity", "flow"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("the VCD of a flow-level run holds the GPUs' states only"), std::string::npos) << r.err;
  const std::string vcd = slurp(dir_ / "w.vcd");
  EXPECT_NE(vcd.find(" state "), std::string::npos);
  EXPECT_EQ(vcd.find("busy"), std::string::npos);
  r = traced({"--vcd", "w.vcd"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find("flow-level run"), std::string::npos) << r.err;
}

// With RTL arbiters, --vcd also writes their own FILE.rtl.vcd: complete when the run reports
// success (it used to be written out only at exit, so the run's own check found it cut off).
TEST_F(Trace, RtlWaveformIsCompleteWhenTheRunEnds) {
  const Result r = run({"run", config("examples/strict_guard_trace.yaml"), "-s", "sim.time_ns=1000", "--out", "out",
                        "--arbiter-impl", "rtl", "--vcd", "out/w.vcd"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string rtl = slurp(dir_ / "out/w.rtl.vcd");
  ASSERT_FALSE(rtl.empty());
  EXPECT_EQ(rtl.back(), '\n');
  EXPECT_NE(rtl.find("$enddefinitions"), std::string::npos);
  const json outputs = read("out/run.json")["outputs"];
  EXPECT_NE(std::find(outputs.begin(), outputs.end(), "w.rtl.vcd"), outputs.end()) << outputs.dump();
}

// --vcd also writes FILE.gtkw (GTKWave opens it with every signal shown, grouped per node,
// port and VC) and the GPU-state filter it names; both are listed in run.json.
TEST_F(Trace, VcdComesWithAGtkwaveSaveFileListingEverySignal) {
  ASSERT_EQ(run({"run", config("default.yaml"), "--sim-time", "20us", "--out", "out", "--vcd", "out/w.vcd"}).code, 0);
  const std::string vcd = slurp(dir_ / "out/w.vcd"), gtkw = slurp(dir_ / "out/w.gtkw");
  // Every $var of the VCD appears once in the save file, under its full dotted name.
  std::vector<std::string> scope;
  std::size_t vars = 0;
  std::stringstream in(vcd.substr(0, vcd.find("$enddefinitions")));
  for (std::string w; in >> w;) {
    if (w == "$scope") {
      std::string kind, name;
      in >> kind >> name;
      scope.push_back(name);
    } else if (w == "$upscope") {
      scope.pop_back();
    } else if (w == "$var") {
      std::string type, id, name;
      int width = 0;
      in >> type >> width >> id >> name;
      std::string full;
      for (const std::string& s : scope) full += s + ".";
      full += name + (width > 1 ? "[" + std::to_string(width - 1) + ":0]" : "");
      EXPECT_NE(gtkw.find("\n" + full + "\n"), std::string::npos) << full;
      ++vars;
    }
  }
  EXPECT_GT(vars, 100u);
  // Groups open and close in pairs; GPU states are translated by the filter written beside.
  const auto count = [&](const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t at = gtkw.find(needle); at != std::string::npos; at = gtkw.find(needle, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("\n@800200\n") + count("\n@c00200\n"), count("\n@1000200\n") + count("\n@1401200\n"));
  EXPECT_EQ(count("\n^1 "), 4u);  // gpu0..gpu3
  EXPECT_EQ(slurp(dir_ / "out/w.gpu_state.txt"), "0 Idle\n1 Copy\n2 Compute\n3 Stalled\n");
  const json outputs = read("out/run.json")["outputs"];
  for (const char* f : {"w.vcd", "w.gtkw", "w.gpu_state.txt"})
    EXPECT_NE(std::find(outputs.begin(), outputs.end(), f), outputs.end()) << f;
}

// --progress prints simulated time, share and ETA on stderr while it runs, and changes no
// result: the kernel paused between steps runs the same events in the same order (a run cut
// at 10 ms whose apps end at 6.9 ms, and one without a time limit).
TEST_F(Trace, ProgressChangesNoResult) {
  for (const std::string& cfg : {config("default.yaml"), config("examples/gpu_sharing_spmd.yaml")}) {
    const std::vector<std::string> limit =
        cfg == config("default.yaml") ? std::vector<std::string>{"--sim-time", "10ms"} : std::vector<std::string>{};
    std::vector<std::string> args = {"run", cfg, "--out", "plain"};
    args.insert(args.end(), limit.begin(), limit.end());
    ASSERT_EQ(run(args).code, 0);
    args[3] = "shown";
    args.push_back("--progress");
    const Result r = run(args);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("[progress] simulated "), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("no activity"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(dir_ / "shown/results.json"), slurp(dir_ / "plain/results.json")) << cfg;
  }
}

}  // namespace
