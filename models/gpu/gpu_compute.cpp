#include "models/gpu/gpu_compute.h"
#include "models/common/sc_progress.h"

namespace arbsim {

const char* to_string(GpuState s) {
  switch (s) {
    case GpuState::Idle: return "idle";
    case GpuState::Copy: return "copy";
    case GpuState::Compute: return "compute";
    case GpuState::Stalled: return "stalled";
  }
  return "?";
}

GpuCompute::GpuCompute(sc_core::sc_module_name name, std::string label)
    : sc_core::sc_module(name), label_(std::move(label)) {
  SC_METHOD(kernel_done);
  sensitive << kernel_event_;
  dont_initialize();
}

void GpuCompute::run_kernel(sc_core::sc_time duration, std::function<void()> done) {
  kernels_.push_back({duration, std::move(done)});
  if (!computing_) start_kernel();
}

void GpuCompute::start_kernel() {
  computing_ = true;
  kernel_event_.notify(kernels_.front().duration);
  update_state();
}

void GpuCompute::kernel_done() {
  guard_progress(guard_, *this);
  Kernel k = std::move(kernels_.front());
  kernels_.pop_front();
  ++kernels_run_;
  computing_ = false;
  last_activity_ = sc_core::sc_time_stamp();
  if (!kernels_.empty()) start_kernel();
  update_state();
  if (k.done) k.done();
}

void GpuCompute::copy_queued() {
  ++copies_waiting_;
  update_state();
}

void GpuCompute::copy_started() {
  --copies_waiting_;
  ++copies_active_;
  update_state();
}

void GpuCompute::copy_finished() {
  --copies_active_;
  last_activity_ = sc_core::sc_time_stamp();
  update_state();
}

void GpuCompute::update_state() {
  const GpuState next = computing_ ? GpuState::Compute
                        : copies_active_ > 0 ? GpuState::Copy
                        : copies_waiting_ > 0 ? GpuState::Stalled
                                              : GpuState::Idle;
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const double elapsed = static_cast<double>((now - since_).value());  // ps (1 ps resolution)
  state_ps_[static_cast<int>(state_)] += elapsed;
  if (copying_) copy_any_ps_ += elapsed;
  copying_ = copies_active_ > 0;
  since_ = now;
  state_ = next;
  state_trace_ = static_cast<int>(next);
}

void GpuCompute::finish() { update_state(); }

void GpuCompute::trace(sc_core::sc_trace_file* tf) { sc_core::sc_trace(tf, state_trace_, label_ + ".state"); }

}  // namespace arbsim
