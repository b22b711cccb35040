// The batch run-time of seed 002 §3: batch operations run atomically in issue order; each
// binds command streams (an optional H2D, D2H or GPU-to-GPU copy, then an optional kernel,
// on one GPU; a GPU-to-GPU copy across PCIe domains is staged through host memory). The run-time computes the method's timeline (batch_predictor.h) and executes it
// through the host driver: the batch method starts each copy at its computed time so all
// kernels end together; bandwidth allocation paces every copy at its static share; time
// division runs one copy at a time. The API mirrors the paper's: batch_op_async, query,
// synchronize, predict_batch_latency (batchOp = batch_op_async + synchronize).
#pragma once
#include <deque>
#include "models/common/same_instant_ties.h"
#include "models/common/progress_guard.h"
#include <functional>
#include <map>
#include <memory>
#include <vector>
#include <systemc>
#include "models/batch/batch_model.h"
#include "models/batch/batch_predictor.h"
#include "models/batch/staged_copy.h"
#include "models/host/driver.h"

namespace arbsim {

struct BatchResult {
  double start_ns = 0, end_ns = 0;
  BatchTimeline predicted;                 // relative to start_ns
  std::vector<double> copy_end_ns;         // measured, relative to start_ns (0: no copy)
  std::vector<double> stream_end_ns;       // measured end of each stream, relative to start_ns
  std::vector<double> stage_gap_ns;        // staged copies: CPU->GPU start - GPU->CPU start
};

class BatchRuntime : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(BatchRuntime);
  BatchRuntime(sc_core::sc_module_name name, Driver& driver, BatchModel model);

  using Handle = uint64_t;
  // `reserved`: every stream the application runs (bandwidth allocation reserves a static
  // share for each); empty = this batch's streams.
  Handle batch_op_async(std::vector<BatchStreamOp> ops, BatchMethod method,
                        std::function<void(const BatchResult&)> done = nullptr,
                        std::shared_ptr<const std::vector<BatchStreamOp>> reserved = nullptr);
  bool batch_op_query(Handle h) const;
  // Runs `then` when batch h has completed (at once if it has): the event-driven form of
  // batchOpSynchronize for SystemC processes.
  void batch_op_synchronize(Handle h, std::function<void()> then);
  BatchTimeline predict_batch_latency(const std::vector<BatchStreamOp>& ops, BatchMethod method) const;
  // Batches of several apps issued at the same picosecond, one waiting for another: they run
  // in issue order, which the model does not define there (same_instant_ties.h; owners:
  // the apps' flow ids).
  const SameInstantTies& ties() const { return ties_; }

 private:
  // Streams merged on a shared engine (one group) copy one after another, then run their
  // kernels (§3.2, case 1); a group of one is a plain stream.
  struct Group {
    std::vector<int> members;      // op indices, issue order
    std::size_t next = 0;          // next member to copy
    bool copies = false;           // any member moves data
  };
  struct Batch {
    Handle id = 0;
    std::vector<BatchStreamOp> ops;
    BatchMethod method = BatchMethod::Batch;
    std::function<void(const BatchResult&)> done;
    std::shared_ptr<const std::vector<BatchStreamOp>> reserved;
    BatchResult result;
    int open = 0;
    std::vector<Group> groups;
    std::vector<int> order;        // time division: groups in this order, one at a time
    std::size_t next_in_order = 0;
    std::vector<std::unique_ptr<StagedCopy>> staged;
  };
  void start_next();
  void start_time_division();
  double group_start(int g) const;  // predicted, from the batch start
  void start_group(int g);
  void start_copy(int i);
  void copy_done(int i);
  void group_copied(int g);
  void stream_done(int i);
  void finish();
  void fire();                     // SC_METHOD: timed copy starts
  double now_ns() const;

  Driver& driver_;
  BatchModel model_;
  std::deque<std::unique_ptr<Batch>> queue_;
  std::unique_ptr<Batch> running_;
  std::multimap<double, std::pair<Handle, int>> starts_;  // ns -> (batch, group index)
  std::map<Handle, std::vector<std::function<void()>>> waiters_;
  Handle next_id_ = 1, completed_upto_ = 0;
  SameInstantTies ties_;
  sc_core::sc_event start_event_;
  ProgressGuard guard_;
};

}  // namespace arbsim
