#include "models/gpu/gpu_compute.h"
#include "models/common/model_log.h"
#include <algorithm>
#include <cmath>
#include "models/common/sc_progress.h"
#include <limits>

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

GpuCompute::GpuCompute(sc_core::sc_module_name name, std::string label, const SmParams& sm)
    : sc_core::sc_module(name), label_(std::move(label)), sm_params_(sm), sm_(sm) {
  SC_METHOD(kernel_done);
  sensitive << kernel_event_;
  dont_initialize();
}

void GpuCompute::run_kernel(sc_core::sc_time duration, std::function<void()> done) {
  run_kernel_for(0, duration, -1, std::move(done));
}

void GpuCompute::run_kernel(int64_t blocks, sc_core::sc_time block, int owner, std::function<void()> done) {
  const uint64_t now = sc_core::sc_time_stamp().value();
  const int id = sm_.submit(now, KernelShape{blocks, block.value(), owner});
  done_[id] = std::move(done);
  // A tie where a kernel of this instant waits for SMs (one held back by its own share with
  // SMs free is not one), between apps (owner_app()).
  if (now != submit_ps_) submitted_.clear();
  submit_ps_ = now;
  submitted_.push_back(id);
  const bool waits = std::any_of(submitted_.begin(), submitted_.end(), [&](int k) { return sm_.waiting(k); });
  ties_.submitted(now, owner_app(owner), waits);
  computing_ = sm_.resident_kernels() > 0;
  update_state();
  wake();
}

void GpuCompute::run_kernel_for(int64_t blocks, sc_core::sc_time alone, int owner, std::function<void()> done) {
  const int64_t grid = blocks > 0 ? blocks : static_cast<int64_t>(sm_params_.sms) * sm_params_.blocks_per_sm;
  run_kernel(grid, sc_core::sc_time::from_value(block_time(grid, alone.value())), owner, std::move(done));
}

// The block time of a kernel given as a duration (sm_scheduler.h, block_time_ps()).
uint64_t GpuCompute::block_time(int64_t grid, uint64_t alone_ps) const {
  return block_time_ps(sm_params_, grid, alone_ps);
}

void GpuCompute::set_sm_share(int owner, double share) {
  sm_.advance(sc_core::sc_time_stamp().value());
  sm_.set_share(owner, share);
  wake();
}

void GpuCompute::wake() {
  const uint64_t next = sm_.next_event_ps();
  if (next != std::numeric_limits<uint64_t>::max())
    kernel_event_.notify(sc_core::sc_time::from_value(next - sc_core::sc_time_stamp().value()));
}

void GpuCompute::kernel_done() {
  guard_progress(guard_, *this);
  const std::vector<int> ended = sm_.advance(sc_core::sc_time_stamp().value());
  computing_ = sm_.resident_kernels() > 0;
  if (!ended.empty()) last_activity_ = sc_core::sc_time_stamp();
  update_state();
  wake();
  for (const int id : ended) {
    ++kernels_run_;
    std::function<void()> done = std::move(done_.at(id));
    done_.erase(id);
    if (done) done();
  }
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

void GpuCompute::restart_stats() {
  update_state();  // closes the warm-up's interval at now
  state_ps_ = {};
  copy_any_ps_ = 0;
  kernels_run_ = 0;
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
  if (next != state_) ARBSIM_LOG_DEBUG(*this, std::string("state ") + to_string(state_) + " -> " + to_string(next));
  state_ = next;
  state_trace_ = static_cast<int>(next);
}

void GpuCompute::finish() { update_state(); }

// A MIG instance "gpu0/mig1" traces as gpu0.mig1.state: under its GPU in GTKWave's tree.
void GpuCompute::trace(sc_core::sc_trace_file* tf) {
  std::string name = label_ + ".state";
  std::replace(name.begin(), name.end(), '/', '.');
  sc_core::sc_trace(tf, state_trace_, name);
}

}  // namespace arbsim
