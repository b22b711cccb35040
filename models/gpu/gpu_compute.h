// A GPU's compute engine and the state it is in at every moment, recorded for results and
// VCD. The states partition time (they add up to the run), in this precedence:
//   compute  a kernel runs (copies may run beside it: copy_any counts those too)
//   copy     no kernel; a copy to or from it is in progress (its engine has started it)
//   stalled  no kernel, no copy in progress, but copies for it are submitted and wait for
//            an engine (behind another GPU's commands, or a staging step)
//   idle     none of these
// Seed 000 §2 calls the time without a kernel but with copies pending "GPU stall": copy +
// stalled here. It needs no fabric port: the packet model's Gpu endpoint holds one, and the
// flow-level mode (sim.fidelity: flow) builds it alone.
#pragma once
#include <array>
#include "models/common/progress_guard.h"
#include <deque>
#include <functional>
#include <string>
#include <systemc>

namespace arbsim {

enum class GpuState { Idle = 0, Copy = 1, Compute = 2, Stalled = 3 };
const char* to_string(GpuState s);

class GpuCompute : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(GpuCompute);
  // `label`: the GPU's name in results and VCD (the module may sit inside the endpoint).
  GpuCompute(sc_core::sc_module_name name, std::string label);

  const std::string& label() const { return label_; }
  void run_kernel(sc_core::sc_time duration, std::function<void()> done);
  // Copy lifecycle, reported by the driver for copies to or from this GPU.
  void copy_queued();
  void copy_started();
  void copy_finished();

  void finish();  // closes the state accounting at the end of simulation
  double state_ns(GpuState s) const { return state_ps_[static_cast<int>(s)] / 1000.0; }
  double copy_any_ns() const { return copy_any_ps_ / 1000.0; }  // a copy in progress, kernel or not
  uint64_t kernels_run() const { return kernels_run_; }
  sc_core::sc_time last_activity() const { return last_activity_; }
  void trace(sc_core::sc_trace_file* tf);

 private:
  struct Kernel {
    sc_core::sc_time duration;
    std::function<void()> done;
  };
  void kernel_done();  // SC_METHOD
  void start_kernel();
  void update_state();

  std::string label_;
  std::deque<Kernel> kernels_;
  bool computing_ = false;
  int copies_waiting_ = 0, copies_active_ = 0;
  GpuState state_ = GpuState::Idle;
  int state_trace_ = 0;
  sc_core::sc_time since_, last_activity_;
  std::array<double, 4> state_ps_{};
  double copy_any_ps_ = 0;
  bool copying_ = false;  // copies_active_ > 0 since since_
  uint64_t kernels_run_ = 0;
  sc_core::sc_event kernel_event_;
  ProgressGuard guard_;
};

}  // namespace arbsim
