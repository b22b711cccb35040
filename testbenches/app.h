// The base of every traffic app (a testbench that drives the platform through the host
// driver): when it starts, when it must stop, how it issues a copy and what it records -
// the bytes it moved, the iterations it completed and each transfer's latency (command
// submitted -> last byte delivered). One file per kind: copy_exec_app.h, stream_app.h,
// batch_app.h.
#pragma once
#include <iterator>
#include <set>
#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <vector>
#include <systemc>
#include "models/common/latency_histogram.h"
#include "models/common/progress_guard.h"
#include "models/common/open_copies.h"
#include "testbenches/deadline.h"
#include "models/host/driver.h"
#include "testbenches/app_params.h"

namespace arbsim {

struct AppStats {
  uint64_t bytes = 0, transfers = 0, iterations = 0;
  uint64_t deadlines_met = 0, deadlines_missed = 0;  // transfers of a QoS app
  std::vector<double> latencies_ns;
  std::array<LatencyHistogram, kNumTcs> copy_latency_by_tc;  // its copies', by the TC the driver gave each
  sc_core::sc_time first_issue, last_done;
  bool issued_any = false;
  bool copied_any = false;  // issued a copy (or a batch that moves bytes): its throughput is a figure
  // After a warm-up: copies issued during it and open at its end count in no figure but the
  // data rate, with the bytes they delivered inside the window.
  Carried carried;
};

// What every app is given besides its kind's parameters.
struct AppSetup {
  AppTiming timing;
  int gpu = 0;            // the driver's GPU number (Scenario::units: a GPU or a MIG instance)
  int peer = -1;          // a peer copy's destination GPU number
  int host_rc = -1;       // the socket whose memory its copies use; -1 = the GPU's own
  uint32_t flow_id = 0;   // tags its transfers (ordering checks, statistics)
  double pcie_GBps = 0;   // a PCIe share of 100 % (GpuJob::pcie_share_pct)
};

class App : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(App);
  App(sc_core::sc_module_name name, const AppSetup& setup, Driver& driver);
  const AppStats& stats() const { return stats_; }
  // Copies with a deadline still open at `end_ns` whose deadline has passed by then: missed
  // already, though not completed (a time-limited run's cut-off).
  uint64_t open_past_deadline(double end_ns) const {
    return static_cast<uint64_t>(std::distance(open_deadlines_.begin(), open_deadlines_.lower_bound(deadline_ps(end_ns))));
  }
  bool finished() const { return finished_; }
  // The end of the warm-up (sim.warmup_ns, docs/results.md "Warm-up"): the statistics start
  // again from nothing and count only transfers (runs, jobs) issued from now on; the data
  // rate also counts what the copies open now deliver from now on (`delivered`: of a fabric
  // transfer, so far).
  void restart_stats(const OpenCopies::Delivered& delivered) {
    done_before_ = stats_.last_done;
    stats_ = AppStats{};
    open_deadlines_.clear();  // issued during the warm-up: they count nowhere
    measure_from_ = sc_core::sc_time_stamp();
    stats_.carried.from = measure_from_;
    stats_.carried.open_at_start = open_copies_.start_window(delivered) || busy_at_window();
  }
  // Whether one of its copies ends within `share` of its time of `end_ns`: the last one done
  // (its time from its engine's start: a copy queued behind many waited long, which says
  // nothing of how closely its end is known), or an open one with no more than `share` of its bytes to go
  // (`delivered`). The flow mode's note on a cut-off within its accuracy (platforms/system.h).
  bool copy_ends_near(double end_ns, double share, const OpenCopies::Delivered& delivered) const {
    const double done_ns = last_copy_done_.to_seconds() * 1e9;
    if (last_copy_ns_ > 0 && done_ns >= end_ns - share * last_copy_ns_) return true;
    return open_copies_.nearest_end(delivered) >= 1 - share;
  }
  // Its last completion, warm-up included (makespan_ns).
  sc_core::sc_time last_done_whole_run() const {
    return std::max({done_before_, stats_.last_done, stats_.carried.until});
  }

 protected:
  virtual void on_wake() = 0;            // start time reached, or a timer the app set
  // Work under way now that moves bytes other than through copy() (a batch app's runs): at
  // the warm-up's end, whether the data rate then runs from it (restart_stats()).
  virtual bool busy_at_window() const { return false; }
  // The end of the warm-up, or zero without one.
  const sc_core::sc_time& window_start() const { return measure_from_; }
  void wake_at(sc_core::sc_time delay) { wake_.notify(delay); }
  bool past_deadline() const { return past_deadline_in(sc_core::SC_ZERO_TIME); }  // duration_ns elapsed since start_ns
  // The same `delay` from now: a timer then would find nothing to do, so it is not set (it
  // would keep the run going past the app's last work: sim_time_ns and every utilization
  // over it are the traffic's).
  bool past_deadline_in(const sc_core::sc_time& delay) const;
  void copy(CopyDir dir, uint64_t bytes, std::function<void()> then);
  // One job (GpuJob, which must outlive it): copy in, the kernel of process `owner` on the
  // app's GPU, copy out, from phase `step` on; then `done`.
  void run_job(const GpuJob& j, int owner, std::function<void()> done, int step = 0);
  void finish() { finished_ = true; }
  // Whether work issued at `start` counts in the statistics (not issued during the warm-up).
  bool measured(const sc_core::sc_time& start) const { return start >= measure_from_; }
  // Notes an issue at now for the throughput's window (the first issue that counts).
  void note_issue() {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (!measured(now)) return;
    if (!stats_.issued_any) stats_.first_issue = now;
    stats_.issued_any = true;
  }
  // A job's kernel starts now: the first issue for a job without a copy in (first_issue_ns
  // read 0 for it); one with a copy in started at that copy (after a warm-up, a kernel whose
  // copy-in came before W is not the first issue: docs/results.md).
  void note_kernel(const GpuJob& j) {
    if (j.h2d_bytes == 0) note_issue();
  }
  static sc_core::sc_time ns(double v) { return sc_core::sc_time(v * 1000.0, sc_core::SC_PS); }

  const AppSetup setup_;
  Driver& driver_;
  double copy_rate_GBps_ = 0;  // paces the app's copies (a PCIe share); 0 = as fast as they go
  AppStats stats_;

 private:
  void tick();
  sc_core::sc_event wake_;
  ProgressGuard guard_;
  bool finished_ = false;
  sc_core::sc_time measure_from_;  // SC_ZERO_TIME: no warm-up
  std::multiset<int64_t> open_deadlines_;  // absolute deadlines (ps) of measured copies still open
  sc_core::sc_time done_before_;   // stats_.last_done when the warm-up ended
  sc_core::sc_time last_copy_done_;  // its last copy's end, warm-up or not, and its time from its start
  double last_copy_ns_ = 0;
  OpenCopies open_copies_;        // for the window's data rate and the cut-off
};

}  // namespace arbsim
