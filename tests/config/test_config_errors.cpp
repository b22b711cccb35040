// Config errors, in process and without a SystemC kernel (the config and topology floors,
// arbsim_config, have none): each bad input raises one ConfigError naming the file, the
// line, the dotted key and the reason. The CLI's exit code 2 for the same inputs is tested
// in tests/cli/.
#include <gtest/gtest.h>
#include <stdexcept>
#include <string>
#include "models/pcie/arbiters/catalogue.h"
#include "platforms/config/config_error.h"
#include "platforms/config/node_types.h"
#include "platforms/topology/scenario.h"
#include "tests/config/config_text.h"

using namespace arbsim;
using namespace arbsim::test;

namespace {

// One root complex, one switch, one GPU, one stream; line numbers as in the text.
const std::string kBase =
    "platform:\n"                                                                    // 1
    "  nodes:\n"                                                                     // 2
    "    - {name: rc0, type: root_complex}\n"                                        // 3
    "    - {name: sw0, type: switch}\n"                                              // 4
    "    - {name: gpu0, type: gpu}\n"                                                // 5
    "  links:\n"                                                                     // 6
    "    - {up: rc0, down: sw0}\n"                                                   // 7
    "    - {up: sw0, down: gpu0}\n"                                                  // 8
    "apps:\n"                                                                        // 9
    "  - {name: a, type: stream, gpu: gpu0, direction: h2d, size: {fixed: 4096}, count: 2}\n";  // 10

}  // namespace

TEST(ConfigErrors, TheBaseConfigLoads) {
  EXPECT_EQ(error_of(kBase), "");
  const Scenario s = load_scenario_text(kBase);
  EXPECT_EQ(s.walk.size(), 6u);  // 2 links x 2 directions + the memory port's 2
}

TEST(ConfigErrors, UnknownKeyNamesTheKnownOnes) {
  const std::string e = error_of(replace(kBase, "count: 2}", "count: 2, cuont: 3}"));
  EXPECT_EQ(e.rfind("bad.yaml:10: apps[0].cuont: unknown key (known: name, type, gpu,", 0), 0u) << e;
}

TEST(ConfigErrors, WrongType) {
  EXPECT_EQ(error_of(replace(kBase, "count: 2}", "count: two}")),
            "bad.yaml:10: apps[0].count: expected an integer, got 'two'");
}

// YAML reads 010 as octal 8 and 0x10 as 16 where a size reads 010 as 10 bytes: one
// reading, decimal, so a leading zero is refused rather than read two ways.
TEST(ConfigErrors, AnIntegerWithALeadingZeroIsRefused) {
  EXPECT_EQ(error_of(replace(kBase, "count: 2}", "count: 010}")),
            "bad.yaml:10: apps[0].count: expected an integer in decimal digits (no leading zero, no 0x), got '010'");
  EXPECT_EQ(error_of(replace(kBase, "count: 2}", "count: 0x10}")),
            "bad.yaml:10: apps[0].count: expected an integer in decimal digits (no leading zero, no 0x), got '0x10'");
  EXPECT_EQ(error_of(replace(kBase, "count: 2}", "count: 0}")).find("leading zero"), std::string::npos);
}

// config_hash is the config's identity, not its layout's: block or flow style, keys in another
// order, or the same config as JSON (a user trial: three layouts of one config gave three
// hashes, and a sweep re-ran its points after a reformat). A changed value still changes it.
TEST(ConfigErrors, TheConfigHashIgnoresLayoutAndKeyOrder) {
  const std::string hash = config_hash(load_scenario_text(kBase).config);
  const std::string block =
      "platform:\n  nodes:\n    - name: rc0\n      type: root_complex\n    - type: switch\n      name: sw0\n"
      "    - {type: gpu, name: gpu0}\n  links:\n    - {down: sw0, up: rc0}\n    - up: sw0\n      down: gpu0\n"
      "apps:\n  - name: a\n    type: stream\n    gpu: gpu0\n    direction: h2d\n    size:\n      fixed: 4096\n"
      "    count: 2\n";
  const std::string json =
      "{\"apps\": [{\"count\": 2, \"size\": {\"fixed\": 4096}, \"direction\": \"h2d\", \"gpu\": \"gpu0\", "
      "\"type\": \"stream\", \"name\": \"a\"}], \"platform\": {\"links\": [{\"up\": \"rc0\", \"down\": \"sw0\"}, "
      "{\"up\": \"sw0\", \"down\": \"gpu0\"}], \"nodes\": [{\"name\": \"rc0\", \"type\": \"root_complex\"}, "
      "{\"name\": \"sw0\", \"type\": \"switch\"}, {\"name\": \"gpu0\", \"type\": \"gpu\"}]}}";
  EXPECT_EQ(config_hash(load_scenario_text(block).config), hash);
  EXPECT_EQ(config_hash(load_scenario_text(json).config), hash);
  EXPECT_NE(config_hash(load_scenario_text(replace(kBase, "count: 2}", "count: 3}")).config), hash);
}

// A boolean is YAML 1.2's true or false: yaml-cpp also took YAML 1.1's yes/no/on/off, so
// `voq: yes` was on while `voq: 1` was an error.
TEST(ConfigErrors, ABooleanIsTrueOrFalseOnly) {
  for (const char* v : {"yes", "no", "on", "off", "y", "1"})
    EXPECT_EQ(error_of(replace(kBase, "type: switch}", std::string("type: switch, voq: ") + v + "}")),
              std::string("bad.yaml:4: platform.nodes[1].voq: expected true or false, got '") + v + "'");
  for (const char* v : {"true", "True", "FALSE"})
    EXPECT_EQ(error_of(replace(kBase, "type: switch}", std::string("type: switch, voq: ") + v + "}")), "") << v;
}

// An arbiter a link inherits from its sending node is named where it was written: the
// node's `arbitration` (sw0 has 3 requesters toward rc0: gpu0's port, and no more, so 2
// weights over sw0's requesters fail there), not a link key the user never wrote.
TEST(ConfigErrors, AnInheritedArbiterIsNamedWhereItWasWritten) {
  const std::string e = error_of(replace(kBase, "{name: sw0, type: switch}",
                                         "{name: sw0, type: switch, arbitration: {port_arbiter: {type: wrr, weights: [1, 1, 1, 1, 1]}}}"));
  EXPECT_EQ(e.rfind("bad.yaml:4: platform.nodes[1].arbitration: bad arbiter at 'sw0' egress toward ", 0), 0u) << e;
}

TEST(ConfigErrors, NegativeSize) {
  EXPECT_EQ(error_of(replace(kBase, "fixed: 4096", "fixed: -4096")),
            "bad.yaml:10: apps[0].size.fixed: expected a positive byte count of at most 1e15, a number with one of "
            "the units B, KB, KiB, MB, MiB, GB, GiB, TB, TiB (e.g. 4096, 64KiB, 1MiB), got '-4096'");
}

// 5e17 bytes were accepted, and the flow mode then failed with "a zero-delay loop" (the copy's
// end beyond SystemC's 64-bit picoseconds); 1e15 (1 PB) is the largest size.
TEST(ConfigErrors, SizeBeyondOnePetabyte) {
  EXPECT_EQ(error_of(replace(kBase, "fixed: 4096", "fixed: 5e17")),
            "bad.yaml:10: apps[0].size.fixed: expected a positive byte count of at most 1e15, a number with one of "
            "the units B, KB, KiB, MB, MiB, GB, GiB, TB, TiB (e.g. 4096, 64KiB, 1MiB), got '5e17'");
  EXPECT_EQ(error_of(replace(kBase, "fixed: 4096", "fixed: 1e15")), "");
  // Terabytes are units too (1TiB was refused as if out of range, while 1024GiB was taken).
  EXPECT_EQ(error_of(replace(kBase, "fixed: 4096", "fixed: 1TiB")), "");
  EXPECT_EQ(error_of(replace(kBase, "fixed: 4096", "fixed: 2TB")), "");
}

// A run shorter than the simulator's 1 ps stopped at 0 with its copies open and its apps
// reported as never started (found by a user trial: --sim-time 1e-9ns ran).
TEST(ConfigErrors, ARunShorterThanAPicosecondIsRefused) {
  EXPECT_EQ(error_of(kBase + "sim: {time_ns: 1e-9}\n"),
            "bad.yaml:11: sim.time_ns: below the simulator's 1 ps resolution: give 0 (until the traffic ends) or at "
            "least 0.001");
  EXPECT_EQ(error_of(kBase + "sim: {time_ns: 0.001}\n"), "");
}

TEST(ConfigErrors, GpuAboveASwitchIsAnImpossibleTopology) {
  EXPECT_EQ(error_of(replace(kBase, "{up: sw0, down: gpu0}", "{up: gpu0, down: sw0}")),
            "bad.yaml:8: platform.links[1].up: a GPU cannot be the upstream end of a link");
}

TEST(ConfigErrors, TwoUpstreamLinksMakeNoTree) {
  EXPECT_EQ(error_of(replace(kBase, "    - {up: sw0, down: gpu0}\n", "    - {up: sw0, down: gpu0}\n    - {up: rc0, down: gpu0}\n")),
            "bad.yaml:9: platform.links[2].down: 'gpu0' already has an upstream link (to 'sw0')");
}

TEST(ConfigErrors, ReservedNameOfAModuleTheSystemBuilds) {
  std::string y = replace(kBase, "{name: sw0, type: switch}", "{name: gpu0_compute, type: switch}");
  y = replace(replace(y, "{up: rc0, down: sw0}", "{up: rc0, down: gpu0_compute}"), "{up: sw0,", "{up: gpu0_compute,");
  EXPECT_EQ(error_of(y), "bad.yaml:4: platform.nodes[1].name: name 'gpu0_compute' is reserved for the compute "
                         "engine of gpu 'gpu0'");
}

TEST(ConfigErrors, ArbiterTypeOutsideTheCatalogue) {
  const std::string e = error_of(
      replace(kBase, "{name: sw0, type: switch}", "{name: sw0, type: switch, arbitration: {vc_arbiter: {type: fifo}}}"));
  EXPECT_EQ(e.rfind("bad.yaml:4: platform.nodes[1].arbitration.vc_arbiter.type: ", 0), 0u) << e;
  for (const char* name : {"rr", "strict", "wrr"}) EXPECT_NE(e.find(name), std::string::npos) << e;
}

TEST(ConfigErrors, RegisteredEndpointKeyOutOfRange) {
  EXPECT_EQ(error_of(replace(kBase, "{name: gpu0, type: gpu}", "{name: gpu0, type: nvme, queue_depth: 0}")),
            "bad.yaml:5: platform.nodes[2].queue_depth: must be in [1, 65535], got 0");
}

// Checks across a registered type's keys run at the node: a NIC whose last packet would
// arrive after 1e15 ns (1e8 packets of 1 GiB at 1 MB/s) names `messages`.
TEST(ConfigErrors, NicBeyondTheTimeRange) {
  const std::string e = error_of(replace(kBase, "{name: gpu0, type: gpu}",
      "{name: gpu0, type: nic, line_rate: 0.001, message_bytes: 1GiB, messages: 100000000}"));
  EXPECT_EQ(e.rfind("bad.yaml:5: platform.nodes[2].messages: the last packet would arrive after 1e15 ns", 0), 0u) << e;
}

// A program registering a node type gets its mistakes at registration, not at load.
TEST(ConfigErrors, BadEndpointTypeRegistrations) {
  EndpointType t;
  t.name = "widget";
  t.keys = {{"mode", KeyKind::Choice, 2, 0, 0, {"a", "b"}, ""}};
  EXPECT_THROW(register_endpoint_type(t), std::invalid_argument);  // default index 2 of 2 choices
  t.keys = {{"size", KeyKind::Bytes, 10, 64, 1024, {}, ""}};
  EXPECT_THROW(register_endpoint_type(t), std::invalid_argument);  // default below its range
  t.keys = {{"x", KeyKind::Number, 1, 0, 2, {}, ""}, {"x", KeyKind::Number, 1, 0, 2, {}, ""}};
  EXPECT_THROW(register_endpoint_type(t), std::invalid_argument);  // given twice
  t.keys = {{"x", KeyKind::Number, 1, 0, 2, {}, ""}};
  EXPECT_NO_THROW(register_endpoint_type(t));
  EXPECT_THROW(register_endpoint_type(t), std::invalid_argument);  // the name is taken now
}

// A deadline of 0 was read as "none" by the stream kinds and as "the period" by a periodic
// app, while config.effective.yaml said 0: given, it must be a time a response can meet.
TEST(ConfigErrors, AZeroDeadlineIsRefused) {
  EXPECT_EQ(error_of(replace(kBase, "count: 2}", "count: 2, deadline_ns: 0}")),
            "bad.yaml:10: apps[0].deadline_ns: must be in [0.001, 1e+15], got '0'");
  EXPECT_EQ(error_of(replace(kBase, "count: 2}", "count: 2, deadline_ns: 1ps}")), "");
}

// A batch app took deadline_ns and counted nothing (0 met, 0 missed on a run 10,000 times
// longer than it).
TEST(ConfigErrors, ABatchAppTakesNoDeadline) {
  const std::string batch =
      "  - {name: b, type: batch, count: 1, deadline_ns: 1, streams: [{gpu: gpu0, direction: h2d, bytes: 64KiB}]}\n";
  const std::string e = error_of(replace(kBase, kBase.substr(kBase.find("  - {name: a")), batch));
  EXPECT_EQ(e.rfind("bad.yaml:10: apps[0].deadline_ns: a batch app's copies carry no deadline and none is counted", 0),
            0u)
      << e;
}

// driver.starvation_threshold guards the strict-priority arbiters a policy sets: under
// static (the configured arbiters) or rr (round robin) it changed nothing, silently.
TEST(ConfigErrors, AStarvationThresholdNoPolicyUsesIsRefused) {
  for (const char* policy : {"static", "rr"}) {
    const std::string e = error_of(kBase + "driver: {policy: " + policy + ", starvation_threshold: 3}\n");
    EXPECT_NE(e.find("driver.starvation_threshold: applies to the strict-priority VC arbiters"), std::string::npos) << e;
    EXPECT_NE(e.find(std::string("under `") + policy + "`"), std::string::npos) << e;
  }
  EXPECT_EQ(error_of(kBase + "driver: {policy: priority_s, starvation_threshold: 3}\n"), "");
  EXPECT_EQ(error_of(kBase + "driver: {policy: rr, starvation_threshold: 0}\n"), "");
}

// A kernel's blocks are timed in whole picoseconds: 1e8 blocks of a 1 us kernel on an A100's
// 108 SMs would run 1.08 ps each (925,926 waves, rounded to 1 ps: 0.93 us), and past 2
// blocks a picosecond to nothing. Under 1 ns a block is refused; at 1 ns (108,000 blocks:
// 1,000 waves of 1 ns) it runs.
TEST(ConfigErrors, ABlockShorterThanANanosecondIsRefused) {
  const std::string spmd = "  - {name: m, type: spmd, gpu: gpu0, processes: 1, kernel_ns: 1us, blocks: ";
  EXPECT_EQ(error_of(kBase + spmd + "100000000}\n"),
            "bad.yaml:11: apps[1].blocks: 100000000 blocks of a 1000 ns kernel on gpu0's 108 SMs run 1.08 ps a block: "
            "under the 1 ns the model times a block to within 0.05 % (it keeps whole picoseconds); use fewer blocks "
            "or a longer kernel");
  EXPECT_EQ(error_of(kBase + spmd + "108000}\n"), "");
  EXPECT_NE(error_of(kBase + spmd + "108001}\n"), "");  // 1,001 waves: 0.999 ns
}

TEST(ConfigErrors, AnOverrideIsCheckedLikeTheFile) {
  try {
    load_scenario_text(kBase, {"apps.0.count=-1"}, "bad.yaml");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("apps[0].count"), std::string::npos) << e.what();
  }
}

// A link given twice is reported as the topology's error, not as an app's `host` that is
// "not connected" (the app checks walked a malformed tree first; found by a user trial).
TEST(ConfigErrors, AMalformedTreeIsReportedBeforeTheAppsThatCrossIt) {
  const std::string e = error_of(
      "platform:\n"
      "  nodes: [{name: cpu0, type: root_complex}, {name: cpu1, type: root_complex}, {name: gpu0, type: gpu}]\n"
      "  links: [{up: cpu0, down: gpu0}, {up: cpu1, down: gpu0}]\n"
      "apps:\n  - {name: a, type: stream, gpu: gpu0, host: cpu1, size: {fixed: 4096}, count: 1}\n");
  EXPECT_NE(e.find("platform.links[1].down: 'gpu0' already has an upstream link (to 'cpu0')"), std::string::npos) << e;
}

// A positive size that rounds to no byte says so (it read "expected a positive byte count ...
// got '0.4'", which is positive; found by a user trial).
TEST(ConfigErrors, ASizeUnderHalfAByteSaysItRoundsToNone) {
  const std::string e = error_of(replace(kBase, "fixed: 4096", "fixed: 0.4"));
  EXPECT_NE(e.find("got '0.4', which rounds to 0 whole bytes"), std::string::npos) << e;
}

// A second YAML document (after `---`) was dropped unread, keys and errors alike: a file
// holds one config (found by a user trial).
TEST(ConfigErrors, ASecondYamlDocumentIsRefused) {
  EXPECT_EQ(error_of(kBase + "---\nsim: {time_ns: 20000}\n"),
            "bad.yaml: holds more than one YAML document (a `---` followed by more): one config or spec per file, "
            "or the rest would be ignored");
  EXPECT_EQ(error_of("---\n" + kBase + "...\n"), "");  // one document, with its markers
  EXPECT_EQ(error_of(kBase + "---\n"), "");               // an empty second one drops nothing
  EXPECT_EQ(error_of(kBase + "--- # end\n"), "");
  // On this malformed text yaml-cpp reports documents for ever; the check looks at the next
  // few only (the config fuzzer found it spinning). It is refused as before.
  EXPECT_EQ(error_of("# A root complex belowder sockets{up: gpu0  \n,     down: cpu1, kind: raw}\napps:\n"
                     "  - {name: a, type: copy_exec, gpu: gpu0, h2d_bytes: 64KiB, iterations: 2}\n"),
            "bad.yaml: top level must be a map of keys, got nothing");
}

// An override sets what its path names only: through an alias (`size: *s`), setting app a's
// size changed app b's too (found by a user trial).
TEST(ConfigErrors, AnOverrideThroughAnAliasChangesOnlyItsPath) {
  const std::string yaml = replace(kBase, "size: {fixed: 4096}, count: 2}",
                                   "size: &s {fixed: 4096}, count: 2}\n  - {name: b, type: stream, gpu: gpu0, "
                                   "direction: d2h, size: *s, count: 1}");
  const Scenario s = load_scenario_text(yaml, {"apps.a.size.fixed=1MiB"});
  const auto size_of = [&](std::size_t k) { return std::get<StreamParams>(s.config.apps.at(k).params).size; };
  EXPECT_EQ(size_of(0), 1u << 20);
  EXPECT_EQ(size_of(1), 4096u);
}

// An all-digit name could never be picked by -s (an index wins: an app named "1" at index 0
// was silently the other one; found by a user trial).
TEST(ConfigErrors, AnAllDigitNameIsRefused) {
  EXPECT_EQ(error_of(replace(kBase, "name: a,", "name: 1,")),
            "bad.yaml:10: apps[0].name: '1' is all digits, which -s reads as a list index: give the name a letter");
}

// `defaults.link` maps merge one level down into a link's own: its `credits: {pd: 512}`
// keeps the defaults' ph 64 (it read the built-in 128), and its `arbitration_up` with only a
// port arbiter keeps the defaults' strict VC arbiter (it fell back to round robin). Found by
// a user trial.
TEST(ConfigErrors, LinkDefaultsMergeIntoALinksOwnMaps) {
  const Scenario s = load_scenario_text(
      "platform:\n"
      "  defaults: {link: {credits: {ph: 64, nph: 32}, arbitration_up: {vc_arbiter: {type: strict}}, vcs: 2}}\n"
      "  nodes: [{name: rc0, type: root_complex}, {name: gpu0, type: gpu}]\n"
      "  links: [{up: rc0, down: gpu0, credits: {pd: 512}, arbitration_up: {port_arbiter: {type: wrr, weights: [1, 2, 2]}}}]\n"
      "apps: [{name: a, type: stream, gpu: gpu0, size: {fixed: 4096}, count: 1}]\n");
  const LinkCfg& l = s.config.platform.links.at(0);
  EXPECT_EQ(l.credits.header[static_cast<int>(CreditClass::Posted)], 64);
  EXPECT_EQ(l.credits.header[static_cast<int>(CreditClass::NonPosted)], 32);
  ASSERT_TRUE(l.arb_up.has_value());
  EXPECT_EQ(l.arb_up->vc.type, &kStrictPriorityType);
  EXPECT_EQ(l.arb_up->port.type, &kWeightedRoundRobinType);
}

// A workload on an app that is not copy_exec blamed the keys it merged in (`h2d_bytes:
// unknown key`), not itself (found by a user trial).
TEST(ConfigErrors, AWorkloadOnAnotherKindOfAppNamesItself) {
  const std::string e = error_of(replace(kBase, "count: 2}", "count: 2, workload: sc}"));
  EXPECT_EQ(e, "bad.yaml:10: apps[0].workload: applies to copy_exec apps (it sets h2d_bytes, d2h_bytes and "
               "kernel_ns); this app is stream");
}
