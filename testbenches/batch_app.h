// A batch app (seed 002): runs its program of batch operations (one batch, or several with
// repeats, e.g. §4.2's domain decomposition) `count` times, back to back or one run every
// `period_ns`, through the batch run-time. It records each run's latency and, for the
// first run, the first batch's predicted and measured end of every stream (seed 002
// Table 2) and the predicted and measured time of the whole program.
#pragma once
#include <vector>
#include "models/batch/batch_runtime.h"
#include "testbenches/app.h"

namespace arbsim {

class BatchApp : public App {
 public:
  // `program`: the app's batches as the run-time's ops (platforms/topology/batch_model.h).
  BatchApp(sc_core::sc_module_name name, const AppSetup& setup, const BatchParams& p, Driver& driver,
           BatchRuntime& runtime, BatchProgram program);
  // Whether the first batch, and the first run of the program, have ended (a time-limited run
  // can stop before: their figures are then unknown, not 0).
  bool first_batch_ended() const { return first_ended_; }
  bool first_run_ended() const { return done_ > 0; }
  const BatchResult& first() const { return first_; }
  double predicted_ns() const { return first_.predicted.makespan_ns; }
  // The first run of the program: predicted (sum of its batches' predictions) and measured.
  double program_predicted_ns() const { return program_predicted_ns_; }
  double program_ns() const { return program_ns_; }
  std::size_t program_batches() const { return program_.program.size(); }

 protected:
  void on_wake() override;
  bool busy_at_window() const override { return issued_ > done_; }

 private:
  void issue();
  void batch_done(std::size_t step, double run_start_ns, const BatchResult& r);
  uint64_t bytes_after(const std::vector<BatchStreamOp>& batch, const BatchResult& r, double from_ns) const;
  const BatchParams p_;
  BatchRuntime& runtime_;
  BatchProgram program_;
  int64_t issued_ = 0, done_ = 0;
  BatchResult first_;
  bool first_ended_ = false;
  double program_predicted_ns_ = 0, program_ns_ = 0;
};

}  // namespace arbsim
