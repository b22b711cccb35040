// The batch run-time's terms, without SystemC: one stream of a batch operation as an op, the
// model that turns ops into the predictor's transfers (paths, weights, latencies, engines)
// over a platform's graph, and a batch app's program of ops. The platform's side builds the
// model (platforms/topology/batch_model.h); the run-time (batch_runtime.h) and `pcie-arbsim
// predict` use it.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>
#include "models/batch/batch_predictor.h"
#include "models/common/copy_command.h"

namespace arbsim {

struct BatchStreamOp {
  int gpu = 0;                   // the driver's GPU number (Scenario::units; a peer copy's source)
  CopyDir dir = CopyDir::H2D;    // H2D, D2H or P2P
  uint64_t bytes = 0;            // 0 = no copy
  double kernel_ns = 0;          // 0 = no kernel
  int host = -1;                 // host memory (root-complex ordinal); -1 = the GPU's own
  int peer = -1;                 // P2P: the destination GPU's number
  bool staged = false;           // P2P across PCIe domains: through `host` memory (§3.2, case 2)
  uint32_t flow_id = 0;          // the app it is for: its copies' flow id (CopyCommand::flow_id)
};

// Staged copies (staged_copy.h) move through `staging_buffers` buffers of this many bytes.
constexpr uint64_t kStagingChunkBytes = 4ull << 20;
constexpr int kStagingBuffers = 2;

// How the platform turns a stream into the predictor's terms (path, weights, latency,
// engines) and its links' capacities: the flow-level graph of the same config.
struct BatchModel {
  std::vector<double> capacity;
  std::function<BatchStream(const BatchStreamOp&)> stream;
  RateModel rates;  // max-min over the graph (models/flow/max_min.h)
  // predictBatchLatency: the method's timeline for `ops`, streams sharing a DMA engine merged
  // first (§3.2, case 1); per op: its own transfer's times and, for bandwidth allocation, its
  // static share, reserved for the transfers of `reserved` (the application's; empty: `ops`).
  BatchTimeline predict(const std::vector<BatchStreamOp>& ops, BatchMethod method,
                        const std::vector<BatchStreamOp>& reserved = {}) const;
};

// A batch app's program: its distinct batch operations, the order it issues them in
// (repeats unrolled), and the streams bandwidth allocation reserves for.
struct BatchProgram {
  std::vector<std::vector<BatchStreamOp>> batches;
  std::vector<int> program;
  std::shared_ptr<const std::vector<BatchStreamOp>> reserved;
};

}  // namespace arbsim
