#include "testbenches/batch_app.h"

namespace arbsim {

BatchApp::BatchApp(sc_core::sc_module_name name, const AppSetup& setup, const BatchParams& p, Driver& driver,
                   BatchRuntime& runtime, BatchProgram program)
    : App(name, setup, driver), p_(p), runtime_(runtime), program_(std::move(program)) {
  for (std::vector<BatchStreamOp>& batch : program_.batches)  // its copies are this app's
    for (BatchStreamOp& op : batch) op.flow_id = setup.flow_id;
}

// Back to back (period 0): the next run is issued when one completes; else one per period.
void BatchApp::on_wake() {
  if (p_.count > 0 && issued_ >= p_.count) return finish();
  if (past_deadline()) return finish();
  issue();
  if (p_.count > 0 && issued_ >= p_.count) return finish();  // no timer a period past the last run
  if (p_.period_ns <= 0) return;
  const sc_core::sc_time period(p_.period_ns, sc_core::SC_NS);
  if (past_deadline_in(period)) return finish();
  wake_at(period);
}

// One run: every batch of the program, queued at once (the run-time runs them atomically
// in issue order, §3.2).
void BatchApp::issue() {
  ++issued_;
  const sc_core::sc_time start = sc_core::sc_time_stamp();
  note_issue();
  for (const auto& batch : program_.batches)
    for (const BatchStreamOp& op : batch) stats_.copied_any = stats_.copied_any || op.bytes > 0;
  const double start_ns = start.to_seconds() * 1e9;
  for (std::size_t step = 0; step < program_.program.size(); ++step)
    runtime_.batch_op_async(program_.batches[program_.program[step]], p_.method,
                            [this, step, start_ns](const BatchResult& r) { batch_done(step, start_ns, r); },
                            program_.reserved);
}

void BatchApp::batch_done(std::size_t step, double run_start_ns, const BatchResult& r) {
  const bool first_run = done_ == 0;
  if (first_run && step == 0) {
    first_ = r;
    first_ended_ = true;
  }
  if (first_run) program_predicted_ns_ += r.predicted.makespan_ns;
  const bool counts = measured(sc_core::sc_time(run_start_ns * 1000.0, sc_core::SC_PS));
  const std::vector<BatchStreamOp>& batch = program_.batches[program_.program[step]];
  if (counts) {
    ++stats_.transfers;
    for (const BatchStreamOp& op : batch) stats_.bytes += op.bytes;
  } else if (window_start() > sc_core::SC_ZERO_TIME) {  // a run issued during the warm-up
    stats_.carried.add(bytes_after(batch, r, window_start().to_seconds() * 1e9));
  }
  if (step + 1 < program_.program.size()) return;
  // The run's last batch.
  ++done_;
  if (first_run) program_ns_ = r.end_ns - run_start_ns;
  if (counts) {
    ++stats_.iterations;
    stats_.latencies_ns.push_back(r.end_ns - run_start_ns);
    stats_.last_done = sc_core::sc_time_stamp();
  }
  if (p_.period_ns <= 0) on_wake();
}

// What a batch's copies moved after `from_ns` (the warm-up's end): each copy's bytes taken at
// an even rate from its start (the prediction's) to its measured end. The run-time moves a
// batch's copies at steady shares (seed 002 §3.2), so the data rate of a batch app after a
// warm-up counts them as App::copy() counts a copy under way (docs/results.md "Warm-up"):
// without them a batch app read 25.4 Gb/s where its link carried 102.5 in the window.
uint64_t BatchApp::bytes_after(const std::vector<BatchStreamOp>& batch, const BatchResult& r, double from_ns) const {
  double bytes = 0;
  for (std::size_t i = 0; i < batch.size() && i < r.copy_end_ns.size(); ++i) {
    if (batch[i].bytes == 0) continue;
    const double start = r.start_ns + (i < r.predicted.streams.size() ? r.predicted.streams[i].copy_start : 0);
    const double end = r.start_ns + r.copy_end_ns[i];
    if (end <= from_ns) continue;
    const double share = end > start ? (end - std::max(start, from_ns)) / (end - start) : 1.0;
    bytes += static_cast<double>(batch[i].bytes) * std::min(1.0, share);
  }
  return static_cast<uint64_t>(bytes + 0.5);
}

}  // namespace arbsim
