// The batch run-time of seed 002 §3: batch operations run atomically in issue order; each
// binds command streams (an optional H2D or D2H copy, then an optional kernel, on one
// GPU). The run-time computes the method's timeline (batch_predictor.h) and executes it
// through the host driver: the batch method starts each copy at its computed time so all
// kernels end together; bandwidth allocation paces every copy at its static share; time
// division runs one copy at a time. The API mirrors the paper's: batch_op_async, query,
// synchronize, predict_batch_latency (batchOp = batch_op_async + synchronize).
#pragma once
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <vector>
#include <systemc>
#include "models/host/batch/batch_predictor.h"
#include "models/host/driver.h"

namespace arbsim {

struct BatchStreamOp {
  int gpu = 0;                   // GPU ordinal
  CopyDir dir = CopyDir::H2D;    // H2D or D2H
  uint64_t bytes = 0;            // 0 = no copy
  double kernel_ns = 0;          // 0 = no kernel
  int host = -1;                 // host memory (root-complex ordinal); -1 = the GPU's own
};

struct BatchResult {
  double start_ns = 0, end_ns = 0;
  BatchTimeline predicted;                 // relative to start_ns
  std::vector<double> copy_end_ns;         // measured, relative to start_ns (0: no copy)
  std::vector<double> stream_end_ns;       // measured end of each stream, relative to start_ns
};

// How the platform turns a stream into the predictor's terms (path, weights, latency,
// engine) and its links' capacities: the flow-level graph of the same config.
struct BatchModel {
  std::vector<double> capacity;
  std::function<BatchStream(const BatchStreamOp&)> stream;
  // Rates of transfers moving together (max-min over the graph, models/flow/max_min.h).
  std::function<std::vector<double>(const std::vector<BatchStream>&)> rates_of;
  RateModel rates_for(const std::vector<BatchStream>& streams) const;
  // predictBatchLatency: the method's timeline for `ops`, streams sharing a DMA engine merged
  // first (§3.2, case 1). `streams`, if given, receives each op's stream.
  BatchTimeline predict(const std::vector<BatchStreamOp>& ops, BatchMethod method,
                        std::vector<BatchStream>* streams = nullptr) const;
};

class BatchRuntime : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(BatchRuntime);
  BatchRuntime(sc_core::sc_module_name name, Driver& driver, BatchModel model);

  using Handle = uint64_t;
  Handle batch_op_async(std::vector<BatchStreamOp> ops, BatchMethod method,
                        std::function<void(const BatchResult&)> done = nullptr);
  bool batch_op_query(Handle h) const;
  // Runs `then` when batch h has completed (at once if it has): the event-driven form of
  // batchOpSynchronize for SystemC processes.
  void batch_op_synchronize(Handle h, std::function<void()> then);
  BatchTimeline predict_batch_latency(const std::vector<BatchStreamOp>& ops, BatchMethod method) const;

 private:
  struct Batch {
    Handle id = 0;
    std::vector<BatchStreamOp> ops;
    BatchMethod method = BatchMethod::Batch;
    std::function<void(const BatchResult&)> done;
    BatchResult result;
    int open = 0;
    std::vector<double> pace_GBps;  // bandwidth allocation: each copy's static share
    std::vector<int> order;        // time division: copies in this order, one at a time
    std::size_t next_in_order = 0;
  };
  void start_next();
  void start_copy(int i);
  void copy_done(int i);
  void stream_done(int i);
  void fire();                     // SC_METHOD: timed copy starts
  double now_ns() const;

  Driver& driver_;
  BatchModel model_;
  std::deque<std::unique_ptr<Batch>> queue_;
  std::unique_ptr<Batch> running_;
  std::multimap<double, int> starts_;  // ns -> stream index of the running batch
  std::map<Handle, std::vector<std::function<void()>>> waiters_;
  Handle next_id_ = 1, completed_upto_ = 0;
  sc_core::sc_event start_event_;
};

}  // namespace arbsim
