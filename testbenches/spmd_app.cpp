#include "testbenches/spmd_app.h"
#include <algorithm>

namespace arbsim {

SpmdApp::SpmdApp(sc_core::sc_module_name name, const AppSetup& setup, const SpmdParams& p, Driver& driver)
    : App(name, setup, driver),
      p_(p),
      turnaround_ns_(static_cast<std::size_t>(p.processes), -1.0),
      began_at_(static_cast<std::size_t>(p.processes)),
      began_(static_cast<std::size_t>(p.processes), false) {}

// A process counts in the statistics (iterations, last_done) where its first operation
// started after the warm-up: the rule every app's work follows (issued at or after W,
// docs/results.md). Counted from the app's start, a process running wholly after a warm-up
// counted nowhere (a user trial: iterations 0 with every copy counted).
void SpmdApp::begins(int i) {
  const std::size_t k = static_cast<std::size_t>(i);
  if (began_[k]) return;
  began_[k] = true;
  began_at_[k] = sc_core::sc_time_stamp();
}

// The first wake is the app's start; later ones end a process's T_init (+ T_ctx_switch).
void SpmdApp::on_wake() {
  if (begun_) return run(waiting_);
  begun_ = true;
  started_ = sc_core::sc_time_stamp();
  if (p_.sm_share_pct < 100)  // MPS active-thread percentage, per process (seed 003 §3.2)
    for (int i = 0; i < p_.processes; ++i) driver_.gpu(setup_.gpu).set_sm_share(owner(i), p_.sm_share_pct / 100.0);
  if (p_.pcie_share_pct < 100) copy_rate_GBps_ = setup_.pcie_GBps * p_.pcie_share_pct / 100;
  if (!p_.streams) return run_process(0);
  queue_ = std::make_unique<WorkQueue>(p_.per_stream_queues ? Queues::PerStream : Queues::Single);
  issue_streams();
  pump();
}

// The kernel of process `owner`: alone on the GPU it takes kernel_ns (T_comp).
void SpmdApp::kernel(int owner, std::function<void()> then) {
  note_kernel(p_);
  driver_.gpu(setup_.gpu).run_kernel_for(p_.blocks, ns(p_.kernel_ns), owner, std::move(then));
}

// --- no sharing layer: contexts one after another (seed 004 §4.1, Eq. 1) ---

void SpmdApp::run_process(int i) {
  const double wait = p_.init_ns + (i > 0 ? p_.ctx_switch_ns : 0);
  if (wait <= 0) return run(i);
  waiting_ = i;  // the switch and the new context's initialisation: nothing of it runs
  wake_at(ns(wait));
}

void SpmdApp::run(int i) {
  begins(i);
  run_job(p_, owner(i), [this, i] {
    process_done(i);
    if (i + 1 < p_.processes) run_process(i + 1);
  });
}

// --- one context, a stream per process (seed 004 §4.2-4.3) ---

void SpmdApp::issue_streams() {
  std::vector<OpKind> steps;
  if (p_.h2d_bytes > 0) steps.push_back(OpKind::H2D);
  if (p_.kernel_ns > 0) steps.push_back(OpKind::Kernel);
  if (p_.d2h_bytes > 0) steps.push_back(OpKind::D2H);
  if (p_.ps1) {
    for (const OpKind k : steps)
      for (int s = 0; s < p_.processes; ++s) queue_->issue(k, s);
  } else {
    for (int s = 0; s < p_.processes; ++s)
      for (const OpKind k : steps) queue_->issue(k, s);
  }
}

void SpmdApp::pump() {
  for (std::vector<int> r = queue_->ready(); !r.empty(); r = queue_->ready()) start_op(r.front());
}

void SpmdApp::start_op(int id) {
  queue_->started(id);
  begins(queue_->stream(id));
  const auto done = [this, id] { op_done(id); };
  switch (queue_->kind(id)) {
    case OpKind::H2D: return copy(CopyDir::H2D, p_.h2d_bytes, done);
    case OpKind::Kernel: return kernel(owner(queue_->stream(id)), done);
    case OpKind::D2H: return copy(CopyDir::D2H, p_.d2h_bytes, done);
  }
}

void SpmdApp::op_done(int id) {
  queue_->completed(id);
  const int s = queue_->stream(id);
  if (queue_->stream_done(s)) process_done(s);
  pump();
}

void SpmdApp::process_done(int i) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  turnaround_ns_[static_cast<std::size_t>(i)] = (now - started_).to_seconds() * 1e9;
  if (measured(began_at_[static_cast<std::size_t>(i)])) {  // one begun in the warm-up counts nowhere
    ++stats_.iterations;
    stats_.last_done = now;
  }
  if (++done_ < p_.processes) return;
  total_ns_ = (now - started_).to_seconds() * 1e9;
  finish();
}

}  // namespace arbsim
