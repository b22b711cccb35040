// A GPU: an endpoint (copy engines, memory as completer) plus one compute engine that runs
// kernels in order, and the state it is in at every moment, recorded for results and VCD,
// in this precedence: compute (a kernel runs) > stalled (a copy for it waits behind another
// command on a busy copy engine) > copy (a copy for it is moving) > idle. Seed 000 §2 calls
// the time without a kernel but with copies pending "GPU stall": copy + stalled here.
#pragma once
#include <array>
#include <deque>
#include <functional>
#include "models/pcie/endpoint.h"

namespace arbsim {

enum class GpuState { Idle = 0, Copy = 1, Compute = 2, Stalled = 3 };
const char* to_string(GpuState s);

class Gpu : public Endpoint {
 public:
  SC_HAS_PROCESS(Gpu);
  Gpu(sc_core::sc_module_name name, const EndpointParams& p, const PortSpec& port, TransferTracker& tracker);

  void run_kernel(sc_core::sc_time duration, std::function<void()> done);
  // Copy lifecycle, reported by the driver for copies to or from this GPU.
  void copy_queued();
  void copy_started();
  void copy_finished();

  void finish();  // closes the state accounting at the end of simulation
  double state_ns(GpuState s) const { return state_ps_[static_cast<int>(s)] / 1000.0; }
  uint64_t kernels_run() const { return kernels_run_; }
  sc_core::sc_time last_activity() const { return last_activity_; }
  void trace(sc_core::sc_trace_file* tf) override;

 private:
  struct Kernel {
    sc_core::sc_time duration;
    std::function<void()> done;
  };
  void kernel_done();  // SC_METHOD
  void start_kernel();
  void update_state();

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
