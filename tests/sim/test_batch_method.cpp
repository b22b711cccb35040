// Seed 002 §2.4 executed by the batch run-time on the example platform
// (configs/platforms/seed002_sec24_example.yaml): four images of 32, 128, 128, 32 MB go
// to GPUs 0-3 over an 8 GB/s CPU->IOH link and 6 GB/s per GPU; kernels scan at 10 GB/s.
// The paper: bandwidth allocation 76.8 ms, batch method 44.8 ms; time division, best
// order, 320 MB / 6 GB/s + 3.2 ms = 56.53 ms (hand-worked in tests/unit/test_batch_predictor.cpp).
#include <gtest/gtest.h>
#include "tests/sim/sim_helpers.h"

using namespace arbsim;
using namespace arbsim::test;

namespace {

SimOutcome run_method(const std::string& method) {
  return run_yaml("platform: configs/platforms/seed002_sec24_example.yaml\n"
                  "apps:\n"
                  "  - name: inspect\n"
                  "    type: batch\n"
                  "    method: " + method + "\n"
                  "    count: 1\n"
                  "    streams:\n"
                  "      - {gpu: gpu0, bytes: 32MB, kernel_ns: 3.2e6}\n"
                  "      - {gpu: gpu1, bytes: 128MB, kernel_ns: 12.8e6}\n"
                  "      - {gpu: gpu2, bytes: 128MB, kernel_ns: 12.8e6}\n"
                  "      - {gpu: gpu3, bytes: 32MB, kernel_ns: 3.2e6}\n");
}

double makespan_ms(const SimOutcome& o) { return app(o, "inspect")["max_ns"].get<double>() / 1e6; }

}  // namespace

TEST(BatchMethod, BatchMethodMeets44_8ms) {
  SimOutcome o = run_method("batch");
  EXPECT_NEAR(makespan_ms(o), 44.8, 0.02 * 44.8);
  // Completion-aligned: every stream ends together.
  for (const auto& s : app(o, "inspect")["batch"]["streams"])
    EXPECT_NEAR(s["end_ns"].get<double>() / 1e6, 44.8, 0.02 * 44.8);
}

TEST(BatchMethod, BandwidthAllocationTakes76_8ms) {
  EXPECT_NEAR(makespan_ms(run_method("bandwidth_allocation")), 76.8, 0.02 * 76.8);
}

TEST(BatchMethod, TimeDivisionTakes56_5ms) {
  EXPECT_NEAR(makespan_ms(run_method("time_division")), 320.0 / 6.0 + 3.2, 0.02 * 56.5);
}

TEST(BatchMethod, PredictionMatchesSimulationPerStream) {
  SimOutcome o = run_method("batch");
  for (const auto& s : app(o, "inspect")["batch"]["streams"])
    EXPECT_NEAR(s["copy_end_ns"].get<double>(), s["predicted_copy_end_ns"].get<double>(),
                0.02 * s["predicted_copy_end_ns"].get<double>());
}

TEST(BatchMethod, StreamsOnOneCopyEngineAreMerged) {
  // Two 64 MB H2D streams to gpu1 share its copy engine (§3.2, special case 1): merged,
  // 128 MB then 6.4 ms of kernels. Reversed timeline (Algorithm 1): gpu0's 32 MB starts at
  // 3.2 ms alone at 6 GB/s (19.2 MB by 6.4 ms), then shares the 8 GB/s link at 4 GB/s with
  // the merged stream until its last 12.8 MB are done at 9.6 ms; the merged stream, with
  // 12.8 MB moved, sends its other 115.2 MB alone at 6 GB/s: 9.6 + 19.2 = 28.8 ms.
  SimOutcome o = run_yaml("platform: configs/platforms/seed002_sec24_example.yaml\n"
                          "apps:\n"
                          "  - name: inspect\n"
                          "    type: batch\n"
                          "    count: 1\n"
                          "    streams:\n"
                          "      - {gpu: gpu1, bytes: 64MB, kernel_ns: 3.2e6}\n"
                          "      - {gpu: gpu1, bytes: 64MB, kernel_ns: 3.2e6}\n"
                          "      - {gpu: gpu0, bytes: 32MB, kernel_ns: 3.2e6}\n");
  const auto& a = app(o, "inspect");
  EXPECT_NEAR(a["batch"]["predicted_ns"].get<double>() / 1e6, 28.8, 0.01 * 28.8);
  EXPECT_NEAR(a["max_ns"].get<double>() / 1e6, 28.8, 0.02 * 28.8);
}
