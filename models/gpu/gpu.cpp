#include "models/gpu/gpu.h"

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

Gpu::Gpu(sc_core::sc_module_name name, const EndpointParams& p, const PortSpec& port, TransferTracker& tracker)
    : Endpoint(name, p, port, tracker) {
  SC_METHOD(kernel_done);
  sensitive << kernel_event_;
  dont_initialize();
}

void Gpu::run_kernel(sc_core::sc_time duration, std::function<void()> done) {
  kernels_.push_back({duration, std::move(done)});
  if (!computing_) start_kernel();
}

void Gpu::start_kernel() {
  computing_ = true;
  kernel_event_.notify(kernels_.front().duration);
  update_state();
}

void Gpu::kernel_done() {
  Kernel k = std::move(kernels_.front());
  kernels_.pop_front();
  ++kernels_run_;
  computing_ = false;
  last_activity_ = sc_core::sc_time_stamp();
  if (!kernels_.empty()) start_kernel();
  update_state();
  if (k.done) k.done();
}

void Gpu::copy_queued() {
  ++copies_waiting_;
  update_state();
}

void Gpu::copy_started() {
  --copies_waiting_;
  ++copies_active_;
  update_state();
}

void Gpu::copy_finished() {
  --copies_active_;
  last_activity_ = sc_core::sc_time_stamp();
  update_state();
}

void Gpu::update_state() {
  const GpuState next = computing_ ? GpuState::Compute
                        : copies_waiting_ > 0 ? GpuState::Stalled
                        : copies_active_ > 0 ? GpuState::Copy
                                             : GpuState::Idle;
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  state_ps_[static_cast<int>(state_)] += (now - since_).to_seconds() * 1e12;
  since_ = now;
  state_ = next;
  state_trace_ = static_cast<int>(next);
}

void Gpu::finish() { update_state(); }

void Gpu::trace(sc_core::sc_trace_file* tf) {
  Endpoint::trace(tf);
  sc_core::sc_trace(tf, state_trace_, std::string(name()) + ".state");
}

}  // namespace arbsim
