// A periodic real-time task (seed 003 §5.3): every `period_ns` it releases a job (copy in,
// kernel, copy out, each optional); jobs of one task run one at a time, a release during a
// job waits for it. A job's response time runs from its release to its end; it meets its
// deadline when that is at most `deadline_ns`.
//
// With driver.share_control (kind: aimd) the tasks are in the loop of seed 003 §3.4's AIMD
// controller (models/host/aimd_controller.h): each job's end reports met or missed, and
// the controller's new shares take effect at once:
// * acts_on: sm - the task's kernels hold at most its share of the SMs (MPS active-thread
//   percentage, seed 003 §3.2): blocks dispatched from then on (resident ones finish);
// * acts_on: pcie, pcie_by: rate - the task's copies are paced at its share of `pcie_GBps`
//   (0: its GPU's own link's write bandwidth): copies submitted from then on;
// * acts_on: pcie, pcie_by: wrr - the task's weight in the WRR port arbiters on its data
//   path is its configured weight x share (platforms/topology/share_points.h): the System
//   reloads those tables on every change (on_change), TLPs arbitrated from then on.
#pragma once
#include <deque>
#include <functional>
#include <vector>
#include "models/host/aimd_controller.h"
#include "testbenches/app.h"

namespace arbsim {

class PeriodicApp;

// What a share limits (driver.share_control.acts_on, pcie_by).
enum class ShareTarget { Sm, PcieRate, PcieWrr };

// The controller and the tasks it steers (one per System).
class ShareLoop {
 public:
  ShareLoop(const AimdParams& p, ShareTarget target) : aimd_(p), target_(target) {}
  void add(PeriodicApp* app);
  void report(const std::string& task, bool met);  // updates and applies every share
  // Called after every update that changed a share (the System's WRR reweighting).
  void on_change(std::function<void(const ShareLoop&)> f) { on_change_ = std::move(f); }
  ShareTarget target() const { return target_; }
  bool pcie() const { return target_ != ShareTarget::Sm; }
  double share_pct(const std::string& task) const { return aimd_.share_pct(task); }

 private:
  AimdController aimd_;
  ShareTarget target_;
  std::vector<PeriodicApp*> apps_;
  std::function<void(const ShareLoop&)> on_change_;
};

struct JobRecord {
  double release_ns, response_ns, share_pct;  // share_pct: its share when the job ended
};

class PeriodicApp : public App {
 public:
  // `loop` may be null (no controller); `owner`: the SM-share owner id of its kernels.
  PeriodicApp(sc_core::sc_module_name name, const AppSetup& setup, const PeriodicParams& p, Driver& driver,
              std::string task, int owner, ShareLoop* loop);
  const PeriodicParams& params() const { return p_; }
  const std::string& task() const { return task_; }
  const std::vector<JobRecord>& jobs() const { return jobs_; }
  // Releases of the jobs released and not yet ended (the one running, then those waiting).
  std::vector<double> unfinished_releases_ns() const;
  double share_pct() const { return share_pct_; }
  // Every share change: [time_ns, share_pct] (the controller's sawtooth, seed 003 Fig. 7).
  const std::vector<std::pair<double, double>>& share_changes() const { return share_changes_; }
  void apply_share(double pct);  // called by the loop

 protected:
  void on_wake() override;  // a release

 private:
  void start_job();
  void end_job();

  const PeriodicParams p_;
  const std::string task_;
  const int owner_;
  ShareLoop* loop_;
  double share_pct_ = 100;
  int64_t released_ = 0;
  bool busy_ = false;
  bool releasing_ = true;  // a next release is due (its timer set)
  std::deque<sc_core::sc_time> pending_;  // releases waiting for the job before them
  sc_core::sc_time release_;
  std::vector<JobRecord> jobs_;
  std::vector<std::pair<double, double>> share_changes_;
};

}  // namespace arbsim
