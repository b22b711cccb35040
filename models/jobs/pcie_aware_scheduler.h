// Seed 001 §4.2's PCIe bandwidth-aware scheduler, activated on every arrival, completion and
// end of a reconfiguration, in rounds until a round places nothing:
//   (1) records: each job's remaining work as of now (MigCluster keeps them per GPU);
//   (2) a marked GPU that is idle is re-split for the jobs that found no instance of their
//       size (partition_for) and unmarked;
//   (3) for each waiting job, the ready GPUs with a free instance of its size (any size that
//       fits, smallest first, once it has waited wait_time_threshold: principle 4); a size no
//       GPU's configuration holds (principle 3): mark the GPU with the earliest estimated end,
//       unless one is marked; a size whose instances are all busy: wait. A marked GPU takes
//       a job only if the job would end before the GPU's estimated end (principle 2). The
//       rest sorted by Eq. 2's slowdown, then best fit (fewest free slices), then id;
//   (4) run the job on the first, or skip it while its slowdown exceeds delay_threshold and
//       it has waited less than wait_time_threshold.
// Plain C++.
#pragma once
#include <set>
#include <tuple>
#include "models/jobs/mig_scheduler.h"

namespace arbsim::jobs {

class PcieAwareScheduler : public MigScheduler {
 public:
  explicit PcieAwareScheduler(const SchedulerParams& p) : p_(p) {}
  const char* name() const override { return "pcie_aware"; }
  std::vector<Placement> schedule(double now, const std::vector<const MigJob*>& waiting, MigCluster& c) override;
  // The first waiting job to reach wait_time_threshold after `now`: it starves then (§4.2:
  // the threshold "prevents the job from waiting indefinitely"), whatever else happens.
  double next_decision_s(double now, const std::vector<const MigJob*>& waiting) const override;

 private:
  bool reconfigure_marked(double now, const std::vector<const MigJob*>& waiting, MigCluster& c);
  bool try_place(double now, const MigJob& j, MigCluster& c, Placement* out);
  bool place_now(double now, const MigJob& j, MigCluster& c, bool starving, Placement* out);
  void mark_earliest(double now, MigCluster& c) const;

  SchedulerParams p_;
  std::set<int> no_size_;  // jobs that found no instance of their size
  // Within one activation, the profiles (size, demand, alpha) of jobs that could not be placed
  // while no GPU is marked: stage 3 gives every job of a profile the same answer until a
  // placement or re-split changes the cluster, so the next one is skipped without a scan.
  std::set<std::tuple<int, double, double>> refused_;
};

}  // namespace arbsim::jobs
