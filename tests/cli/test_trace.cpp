// `pcie-arbsim run --trace` as a user meets it (issue 16, docs/observability.md): the trace
// file is written and listed in run.json, bounded by its window and filter, tracing changes
// no result (it only adds arbiters[].why_not_granted), and bad trace options are bad input.
// The format itself is checked by tests/python (pcie_arbsim.trace.load_trace) and the reasons
// on hand-worked timelines by tests/sim/test_why_not_granted.cpp.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include "tests/cli/cli_fixture.h"

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
        std::vector<std::string>{"--trace", "t.json", "--fidelity", "flow"}}) {
    const Result r = traced(extra);
    expect_one_error(r, {"--trace"});
    EXPECT_FALSE(fs::exists(dir_ / "out")) << extra.back();
    EXPECT_FALSE(fs::exists(dir_ / "t.json")) << extra.back();
  }
}

}  // namespace
