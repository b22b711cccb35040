// A GPU's compute engine and the state it is in at every moment, recorded for results and
// VCD, in this precedence: compute (a kernel runs) > stalled (a copy for it waits behind
// another command on a busy copy engine) > copy (a copy for it is moving) > idle. Seed 000
// §2 calls the time without a kernel but with copies pending "GPU stall": copy + stalled
// here. It needs no fabric port: the packet model's Gpu endpoint holds one, and the
// flow-level mode (sim.fidelity: flow) builds it alone.
#pragma once
#include <array>
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
  uint64_t kernels_run_ = 0;
  sc_core::sc_event kernel_event_;
};

}  // namespace arbsim
