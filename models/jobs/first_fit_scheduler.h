// The baseline of seed 001 §5.1: "assigns jobs to a GPU as long as sufficient MIG resources
// exist. If multiple GPUs have enough resources, the scheduler selects the first one
// according to the order of GPU IDs." Unaware of PCIe: a job goes to the first ready GPU with
// a free instance of its size; when none has one, the first idle GPU is re-split for the
// waiting jobs (partition_for) and the job waits for it. Plain C++.
#pragma once
#include "models/jobs/mig_scheduler.h"

namespace arbsim::jobs {

class FirstFitScheduler : public MigScheduler {
 public:
  explicit FirstFitScheduler(const SchedulerParams& p) : p_(p) {}
  const char* name() const override { return "first_fit"; }
  std::vector<Placement> schedule(double now, const std::vector<const MigJob*>& waiting, MigCluster& c) override;

 private:
  SchedulerParams p_;
};

}  // namespace arbsim::jobs
