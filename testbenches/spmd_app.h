// An SPMD program of `processes` processes sharing one GPU (seed 004 §4; SpmdParams in
// app_params.h): each process copies its input in, runs its kernel and copies its result
// out, once.
//
// * Without a sharing layer each process has its own context, and the GPU runs the
//   contexts one after another (§4.1): process i starts when process i-1 has ended plus
//   T_ctx_switch, pays T_init, then its three phases. Eq. 1 is the total.
// * With `sharing: streams` (the paper's GVM, §4.3) one context holds a stream per process;
//   the context issues all streams' operations in PS-1 order (all copies in, all kernels,
//   all copies out) or PS-2 order (stream by stream), and the GPU's hardware queues decide
//   what may start (models/gpu/work_queue.h). The copies go through the fabric (the GPU's
//   H2D and D2H copy engines, in order), the kernels through the SM dispatcher, so phases
//   overlap only as far as engines, links and SMs allow. T_init and T_ctx_switch are gone:
//   the GVM holds one context, created before the processes arrive.
//
// Each process's turnaround (start -> its last phase done) and the total are reported.
#pragma once
#include <memory>
#include <vector>
#include "models/gpu/work_queue.h"
#include "testbenches/app.h"

namespace arbsim {

class SpmdApp : public App {
 public:
  SpmdApp(sc_core::sc_module_name name, const AppSetup& setup, const SpmdParams& p, Driver& driver);
  const SpmdParams& params() const { return p_; }
  // By process; -1 for a process not finished (a time-limited run's cut-off).
  const std::vector<double>& turnaround_ns() const { return turnaround_ns_; }
  double total_ns() const { return total_ns_; }  // -1 until every process finished

 protected:
  void on_wake() override;

 private:
  // Without sharing: process `i` after its context switch and T_init, then its job.
  void run_process(int i);
  void run(int i);
  // With streams: starts what the hardware queues allow.
  void issue_streams();
  void pump();
  void start_op(int id);
  void op_done(int id);
  void kernel(int owner, std::function<void()> then);
  void begins(int i);  // process i's first operation starts now
  void process_done(int i);
  int owner(int process) const { return kernel_owner(setup_.flow_id, process); }

  const SpmdParams p_;
  std::unique_ptr<WorkQueue> queue_;
  std::vector<double> turnaround_ns_;
  std::vector<sc_core::sc_time> began_at_;  // by process: its first operation's start (begins())
  std::vector<bool> began_;
  sc_core::sc_time started_;
  double total_ns_ = -1;
  int done_ = 0;
  bool begun_ = false;
  int waiting_ = 0;  // the process whose T_init (+ T_ctx_switch) is running
};

}  // namespace arbsim
