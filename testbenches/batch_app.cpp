#include "testbenches/batch_app.h"

namespace arbsim {

BatchApp::BatchApp(sc_core::sc_module_name name, const AppCfg& cfg, Driver& driver, BatchRuntime& runtime,
                   std::vector<BatchStreamOp> ops, uint32_t flow_id)
    : App(name, cfg, driver, ops.empty() ? 0 : ops.front().gpu, -1, flow_id), runtime_(runtime), ops_(std::move(ops)) {
  parse_batch_method(cfg.batch_method, &method_);
}

// Back to back (period 0): the next batch is issued when one completes; else one per period.
void BatchApp::on_wake() {
  if (cfg_.count > 0 && issued_ >= cfg_.count) return finish();
  if (past_deadline()) return finish();
  issue();
  if (cfg_.period_ns > 0) wake_at(sc_core::sc_time(cfg_.period_ns, sc_core::SC_NS));
}

void BatchApp::issue() {
  ++issued_;
  const sc_core::sc_time start = sc_core::sc_time_stamp();
  if (!stats_.issued_any) stats_.first_issue = start;
  stats_.issued_any = true;
  runtime_.batch_op_async(ops_, method_, [this](const BatchResult& r) {
    if (done_ == 0) {
      first_ = r;
      predicted_ns_ = r.predicted.makespan_ns;
    }
    ++done_;
    ++stats_.iterations;
    ++stats_.transfers;
    for (const BatchStreamOp& op : ops_) stats_.bytes += op.bytes;
    stats_.latencies_ns.push_back(r.end_ns - r.start_ns);
    stats_.last_done = sc_core::sc_time_stamp();
    if (cfg_.period_ns <= 0) on_wake();
  });
}

}  // namespace arbsim
