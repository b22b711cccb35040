// A copy's submission cost (gpu.copy_submit_ns, docs/gpu-sharing.md "Copy engines"): each
// copy reaches its engine `submit` after the later of its request and the previous
// submission to that engine. Hand-worked cases on one GPU under one switch (Gen3 x16,
// 20-ns links, 110-ns switch, 50-ns RC, 400-ns memory read), T(S) the no-cost copy time of
// test_h2d_copy.cpp: 800 + 24 / TLP_bw + (S + ceil(S/256) x 20) / TLP_bw ns.
#include <cmath>
#include <gtest/gtest.h>
#include "tests/sim/sim_helpers.h"

using namespace arbsim;
using namespace arbsim::test;

namespace {

constexpr double kTlpBw = 14.21;  // GB/s = B/ns, Gen3 x16 MPS 256 (docs/pcie-reference.md §2)
constexpr double kSubmit = 8000;

double h2d_time(double s) { return 800.0 + 24.0 / kTlpBw + (s + std::ceil(s / 256.0) * 20.0) / kTlpBw; }

std::string platform(const std::string& gpu_keys) {
  return "platform:\n"
         "  name: one-gpu\n"
         "  defaults: {link: {gen: 3, width: 16, latency_ns: 20}}\n"
         "  nodes:\n"
         "    - {name: rc0, type: root_complex, latency_ns: 50, memory: {bandwidth_GBps: 1000, read_latency_ns: 400}}\n"
         "    - {name: sw0, type: switch, latency_ns: 110}\n"
         "    - {name: gpu0, type: gpu" + gpu_keys + "}\n"
         "  links:\n"
         "    - {up: rc0, down: sw0}\n"
         "    - {up: sw0, down: gpu0}\n";
}

// Synchronous copies (one at a time): each takes submit + T(S), so the curve is
// T0 + S / B with T0 = submit + latency (docs/pcie-reference.md §6).
void synchronous_copies_pay_it_each(const std::string& fidelity) {
  const double s = 65536;
  SimOutcome o = run_yaml(platform(", copy_submit_ns: 8000") +
                              "apps:\n  - {name: c, type: copy_exec, gpu: gpu0, h2d_bytes: 65536, iterations: 3}\n",
                          {"sim.fidelity=" + fidelity});
  const double each = kSubmit + h2d_time(s);
  EXPECT_NEAR(app(o, "c")["max_ns"].get<double>(), each, 0.001 * each);
  EXPECT_NEAR(app(o, "c")["last_done_ns"].get<double>(), 3 * each, 0.001 * 3 * each);
}

TEST(CopySubmit, SynchronousCopiesPayTheCostEach) { synchronous_copies_pay_it_each("packet"); }
TEST(CopySubmit, FlowFidelityPaysTheSameCost) { synchronous_copies_pay_it_each("flow"); }

// Queued copies longer than the cost: submissions overlap earlier transfers, so only the
// first one shows. 8 x 1 MiB reads at depth 4 move back to back after it: the last byte
// lands at submit + 800 + 24 / TLP_bw + all completions / TLP_bw.
TEST(CopySubmit, QueuedLongCopiesHideAllButTheFirst) {
  const double s = 1 << 20;
  SimOutcome o = run_yaml(platform(", copy_submit_ns: 8000") +
                          "apps:\n  - {name: s, type: stream, gpu: gpu0, size: {fixed: 1MiB}, depth: 4, count: 8}\n");
  const double expected = kSubmit + h2d_time(8 * s);
  EXPECT_NEAR(app(o, "s")["last_done_ns"].get<double>(), expected, 0.002 * expected);
}

// Queued copies shorter than the cost are issue-bound: copy k reaches the engine at
// (k + 1) x submit, the last of 20 D2H writes of 4 KiB done at 20 x submit plus its own
// flight; each waits for the `depth` submissions ahead of it: latency depth x submit.
TEST(CopySubmit, QueuedShortCopiesAreBoundByTheIssueRate) {
  SimOutcome o = run_yaml(platform(", copy_submit_ns: 8000") +
                          "apps:\n  - {name: s, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 4KiB}, "
                          "depth: 4, count: 20}\n");
  const double last = app(o, "s")["last_done_ns"].get<double>();
  EXPECT_GT(last, 20 * kSubmit);
  EXPECT_LT(last, 20 * kSubmit + 1000);  // one 4-KiB write's flight: ~0.5 us
  EXPECT_NEAR(app(o, "s")["p50_ns"].get<double>(), 4 * kSubmit, 1.0);
}

// The two engines (H2D, D2H) have their own submission queues: a D2H stream is not held
// behind an H2D one.
TEST(CopySubmit, EachEngineHasItsOwnQueue) {
  SimOutcome o = run_yaml(platform(", copy_submit_ns: 8000") +
                          "apps:\n  - {name: in, type: stream, gpu: gpu0, size: {fixed: 4KiB}, depth: 1, count: 5}\n"
                          "  - {name: out, type: stream, gpu: gpu0, direction: d2h, size: {fixed: 4KiB}, depth: 1, "
                          "count: 5}\n");
  for (const char* a : {"in", "out"}) {
    const double last = app(o, a)["last_done_ns"].get<double>();
    EXPECT_GT(last, 5 * kSubmit) << a;
    EXPECT_LT(last, 5 * (kSubmit + 1200)) << a;  // 5 x (cost + one 4-KiB copy's flight)
  }
}

TEST(CopySubmit, NegativeCostIsAConfigErrorNamingTheKey) {
  std::string what;
  try {
    load_scenario_text(platform(", copy_submit_ns: -1") +
                       "apps:\n  - {name: c, type: copy_exec, gpu: gpu0, h2d_bytes: 4096, iterations: 1}\n");
  } catch (const ConfigError& e) {
    what = e.what();
  }
  EXPECT_NE(what.find("platform.nodes[2].copy_submit_ns"), std::string::npos) << what;
}

}  // namespace
