// Full-platform equivalence (docs/cosim.md): `pcie-arbsim run CONFIG --arbiter-impl rtl` and the
// same run with the C++ arbiters give identical results.json apart from the fields that name
// the implementation: each arbiter entry's "vc_arbiter" reads "rtl:<spec>" instead of "<spec>".
// The comparison strips that prefix (and requires it on every RTL entry, so the RTL really
// ran) and then wants the two files equal, key for key and value for value.
//
// Configs: the default scenario (round robin), the annotated example (strict priority with
// starvation counters across VCs, WRR port arbiters, rr elsewhere), tests/cosim/arbiters.yaml
// (every arbiter type with and without the guard, four VCs, heavy contention), and the
// seed 000 pair scenario with a seed 000 policy (arbiters the platform builds itself).
//
// Also: the per-arbiter `impl` key, the RTL waveform beside the model's, and the flag's errors.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>
#include "tests/common/cli_harness.h"

namespace {

namespace fs = std::filesystem;
using namespace arbsim::test;
using nlohmann::json;

const std::string kBin = ARBSIM_BIN;
const std::string kSrc = ARBSIM_SRC;

// The first place two JSON values differ, as a JSON pointer with both values.
std::string first_difference(const json& a, const json& b, const std::string& at = "") {
  if (a.type() != b.type() || (!a.is_structured() && a != b))
    return (at.empty() ? "/" : at) + ": " + a.dump() + " vs " + b.dump();
  if (a.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key())) return at + "/" + it.key() + ": only in the C++ run";
      const std::string d = first_difference(it.value(), b[it.key()], at + "/" + it.key());
      if (!d.empty()) return d;
    }
    for (auto it = b.begin(); it != b.end(); ++it)
      if (!a.contains(it.key())) return at + "/" + it.key() + ": only in the RTL run";
  } else if (a.is_array()) {
    if (a.size() != b.size()) return at + ": " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " elements";
    for (size_t i = 0; i < a.size(); ++i) {
      const std::string d = first_difference(a[i], b[i], at + "/" + std::to_string(i));
      if (!d.empty()) return d;
    }
  }
  return "";
}

class Equivalence : public TempDirTest {
 protected:
  // Runs the binary in the test's directory; returns the exit code, stderr in err_.
  int run(const std::vector<std::string>& args) {
    const CliResult r = run_binary(kBin, args);
    err_ = r.err;
    return r.code;
  }

  // Runs `config` with each implementation and compares the results.
  void expect_equivalent(const std::string& config, std::vector<std::string> extra = {}) {
    std::vector<std::string> cpp = {"run", kSrc + "/" + config, "--out", "cpp", "--arbiter-impl", "cpp"};
    std::vector<std::string> rtl = {"run", kSrc + "/" + config, "--out", "rtl", "--arbiter-impl", "rtl"};
    cpp.insert(cpp.end(), extra.begin(), extra.end());
    rtl.insert(rtl.end(), extra.begin(), extra.end());
    ASSERT_EQ(run(cpp), 0) << err_;
    ASSERT_EQ(run(rtl), 0) << err_;
    json a = json::parse(slurp(dir_ / "cpp" / "results.json"));
    json b = json::parse(slurp(dir_ / "rtl" / "results.json"));
    // The configs differ in arbiter_impl, so their hashes do; every figure must not.
    EXPECT_NE(a["config_hash"], b["config_hash"]);
    a.erase("config_hash");
    b.erase("config_hash");
    ASSERT_FALSE(b["arbiters"].empty());
    for (json& e : b["arbiters"]) {
      const std::string name = e["vc_arbiter"].get<std::string>();
      ASSERT_EQ(name.rfind("rtl:", 0), 0u) << e["name"] << " did not run the RTL: " << name;
      e["vc_arbiter"] = name.substr(4);  // the implementation-naming part
    }
    for (const json& e : a["arbiters"]) ASSERT_EQ(e["vc_arbiter"].get<std::string>().rfind("rtl:", 0), std::string::npos);
    EXPECT_GT(a["tlp_hops"].get<unsigned long long>(), 0u);
    EXPECT_EQ(first_difference(a, b), "") << config << ": results.json differ (C++ vs RTL)";
    EXPECT_EQ(a, b);
    EXPECT_NE(slurp(dir_ / "rtl" / "config.effective.yaml").find("arbiter_impl: rtl"), std::string::npos);
  }

  std::string err_;
};

TEST_F(Equivalence, DefaultScenario) { expect_equivalent("configs/default.yaml"); }

TEST_F(Equivalence, AnnotatedExample) { expect_equivalent("configs/examples/full.yaml"); }

TEST_F(Equivalence, EveryArbiterUnderContention) { expect_equivalent("tests/cosim/arbiters.yaml"); }

// A seed 000 policy builds strict+starvation VC arbiters itself; --arbiter-impl reaches them.
TEST_F(Equivalence, PriorityTcPolicyArbiters) {
  expect_equivalent("configs/scenarios/seed000_pair.yaml",
                    {"--sim-time", "3ms", "-s", "driver.policy=priority_s", "-s", "driver.starvation_threshold=4",
                     "-s", "platform.defaults.link.vcs=4"});
}

// `impl` on one arbiter spec: only that node's egress ports run RTL.
TEST_F(Equivalence, PerArbiterImplKey) {
  ASSERT_EQ(run({"run", kSrc + "/configs/default.yaml", "--out", "o", "--sim-time", "50us", "-s",
                 "platform.nodes.sw0.arbitration.vc_arbiter={type: rr, impl: rtl}"}),
            0)
      << err_;
  const json r = json::parse(slurp(dir_ / "o" / "results.json"));
  int rtl = 0;
  for (const json& e : r["arbiters"]) {
    const std::string name = e["name"].get<std::string>(), impl = e["vc_arbiter"].get<std::string>();
    EXPECT_EQ(impl, name.rfind("sw0->", 0) == 0 ? "rtl:rr" : "rr") << name;
    rtl += impl == "rtl:rr";
  }
  EXPECT_EQ(rtl, 3);  // sw0's ports: rc0, gpu0, gpu1
}

// --vcd FILE.vcd with RTL arbiters also writes FILE.rtl.vcd (Verilator's, femtoseconds).
TEST_F(Equivalence, RtlWaveformBesideModelWaveform) {
  ASSERT_EQ(run({"run", kSrc + "/configs/examples/full.yaml", "--out", "o", "--sim-time", "20us",
                 "--arbiter-impl", "rtl", "--vcd", "o/w.vcd"}),
            0)
      << err_;
  ASSERT_TRUE(fs::exists(dir_ / "o" / "w.vcd"));
  ASSERT_TRUE(fs::exists(dir_ / "o" / "w.rtl.vcd"));
  const std::string v = slurp(dir_ / "o" / "w.rtl.vcd");
  const std::string header = v.substr(0, v.find("$enddefinitions"));
  EXPECT_NE(header.find("$timescale 1fs $end"), std::string::npos) << header.substr(0, 200);
  EXPECT_NE(header.find("$scope module sw0.to_rc0.rtl_arbiter_0.rtl $end"), std::string::npos);
  EXPECT_NE(header.find("$scope module arb_strict_top $end"), std::string::npos);
  EXPECT_NE(header.find("$scope module u_guard $end"), std::string::npos);
  EXPECT_NE(v.find("\n#"), std::string::npos);  // some time steps were dumped
  // C++ arbiters: no RTL waveform.
  ASSERT_EQ(run({"run", kSrc + "/configs/examples/full.yaml", "--out", "c", "--sim-time", "20us", "--vcd", "c/w.vcd"}), 0);
  EXPECT_TRUE(fs::exists(dir_ / "c" / "w.vcd"));
  EXPECT_FALSE(fs::exists(dir_ / "c" / "w.rtl.vcd"));
}

TEST_F(Equivalence, BadImplementationIsBadInput) {
  EXPECT_EQ(run({"run", kSrc + "/configs/default.yaml", "--out", "o", "--arbiter-impl", "verilog"}), 2);
  EXPECT_NE(err_.find("--arbiter-impl verilog: expected cpp or rtl"), std::string::npos) << err_;
  EXPECT_FALSE(fs::exists(dir_ / "o" / "results.json"));
  EXPECT_EQ(run({"validate", kSrc + "/configs/default.yaml", "-s", "platform.arbitration.vc_arbiter.impl=vhdl"}), 2);
  EXPECT_NE(err_.find("platform.arbitration.vc_arbiter.impl"), std::string::npos) << err_;
  // The RTL table holds at most 256 phases.
  EXPECT_EQ(run({"validate", kSrc + "/configs/default.yaml", "--arbiter-impl", "rtl", "-s",
                 "platform.arbitration.port_arbiter={type: wrr, weights: [200, 100, 1]}"}),
            2);
  EXPECT_NE(err_.find("at most 256 wrr phases"), std::string::npos) << err_;
}

// The flow fidelity has no egress ports to run RTL arbiters in: --arbiter-impl rtl (or an
// arbiter's `impl: rtl`) with it exited 0 and co-simulated nothing, said nowhere.
TEST_F(Equivalence, RtlArbitersInTheFlowFidelityAreRefused) {
  EXPECT_EQ(run({"run", kSrc + "/configs/default.yaml", "--out", "o", "--fidelity", "flow", "--arbiter-impl", "rtl"}), 2);
  EXPECT_NE(err_.find("platform.arbiter_impl: rtl arbiters run in the packet fidelity's egress ports"),
            std::string::npos)
      << err_;
  EXPECT_FALSE(fs::exists(dir_ / "o"));
  EXPECT_EQ(run({"validate", kSrc + "/configs/default.yaml", "--fidelity", "flow", "-s",
                 "platform.nodes.sw0.arbitration.vc_arbiter={type: rr, impl: rtl}"}),
            2);
  EXPECT_NE(err_.find("platform.nodes[1].arbitration: rtl arbiters run in the packet"), std::string::npos) << err_;
}

}  // namespace
