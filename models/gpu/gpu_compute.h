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
//
// Kernels run on SMs through the block dispatcher (sm_scheduler.h, seed 004 §3.3): a kernel
// given as a grid shares the SMs with others; a kernel given as a duration alone holds the
// whole GPU for that long, so such kernels run one after another as on a GPU without
// concurrent kernels (what the seeds 000 and 002 testbenches assume).
#pragma once
#include <array>
#include "models/common/progress_guard.h"
#include <functional>
#include <map>
#include <string>
#include <vector>
#include <systemc>
#include "models/common/same_instant_ties.h"
#include "models/gpu/sm_scheduler.h"

namespace arbsim {

enum class GpuState { Idle = 0, Copy = 1, Compute = 2, Stalled = 3 };
const char* to_string(GpuState s);

class GpuCompute : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(GpuCompute);
  // `label`: the GPU's name in results and VCD (the module may sit inside the endpoint).
  GpuCompute(sc_core::sc_module_name name, std::string label, const SmParams& sm = SmParams());

  const std::string& label() const { return label_; }
  void run_kernel(sc_core::sc_time duration, std::function<void()> done);  // the whole GPU
  // A grid of `blocks` blocks of `block` each, owned by process `owner` (its SM share).
  void run_kernel(int64_t blocks, sc_core::sc_time block, int owner, std::function<void()> done);
  // A kernel that alone takes `alone` on the GPU: `blocks` (0 = the GPU's slots) in waves of
  // the GPU's slots, its block time such that the waves, slowed by their own co-resident
  // blocks (block_slowdown), take `alone` in all (block_time()).
  void run_kernel_for(int64_t blocks, sc_core::sc_time alone, int owner, std::function<void()> done);
  // That block time (ps) of a grid of `grid` blocks alone on the GPU.
  uint64_t block_time(int64_t grid, uint64_t alone_ps) const;
  // Caps `owner`'s kernels to `share` of the SMs from now on (seed 003 §3.2; sm_scheduler.h).
  void set_sm_share(int owner, double share);
  const SmParams& sm_params() const { return sm_params_; }
  // Copy lifecycle, reported by the driver for copies to or from this GPU.
  void copy_queued();
  void copy_started();
  void copy_finished();

  void finish();  // closes the state accounting at the end of simulation
  // The end of the warm-up (sim.warmup_ns): state times and kernels count from now on.
  void restart_stats();
  double state_ns(GpuState s) const { return state_ps_[static_cast<int>(s)] / 1000.0; }
  double copy_any_ns() const { return copy_any_ps_ / 1000.0; }  // a copy in progress, kernel or not
  uint64_t kernels_run() const { return kernels_run_; }
  // Kernels of several apps submitted at the same picosecond, one of them then waiting for
  // SMs (same_instant_ties.h): owners are apps' flow ids; one app's own processes go in the
  // order it issues them, modelled.
  const SameInstantTies& kernel_ties() const { return ties_; }
  sc_core::sc_time last_activity() const { return last_activity_; }
  void trace(sc_core::sc_trace_file* tf);

 private:
  void kernel_done();  // SC_METHOD: the dispatcher's next block end
  void wake();         // notifies kernel_event_ at the dispatcher's next block end
  void update_state();

  std::string label_;
  SmParams sm_params_;
  SmScheduler sm_;
  std::map<int, std::function<void()>> done_;  // kernel id -> its callback
  bool computing_ = false;
  int copies_waiting_ = 0, copies_active_ = 0;
  GpuState state_ = GpuState::Idle;
  int state_trace_ = 0;
  sc_core::sc_time since_, last_activity_;
  std::array<double, 4> state_ps_{};
  double copy_any_ps_ = 0;
  bool copying_ = false;  // copies_active_ > 0 since since_
  uint64_t kernels_run_ = 0;
  SameInstantTies ties_;
  uint64_t submit_ps_ = UINT64_MAX;
  std::vector<int> submitted_;  // kernels submitted at submit_ps_
  sc_core::sc_event kernel_event_;
  ProgressGuard guard_;
};

}  // namespace arbsim
