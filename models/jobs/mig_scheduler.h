// Seed 001's job schedulers (§4.2, §5.1) behind one interface, so a user can add one: on
// each activation (a job arrives or ends, a reconfiguration completes) a scheduler gets the
// waiting jobs in arrival order and places what it can on the cluster (mig_cluster.h).
//   first_fit   the baseline: the first GPU, by id, with a free instance of the size asked
//   pcie_aware  §4.2's four stages: records, reconfiguration of idle marked GPUs, the GPU
//               of least predicted slowdown (Eq. 2, best fit on ties), run or skip against
//               delay_threshold unless the job has waited wait_time_threshold
// Both start from GPUs split into 1g instances (§5.1) and re-split only idle GPUs (§4.2
// principle 1): the baseline the first idle GPU when no GPU has the size a job asks for.
// Plain C++; docs/mig-scheduling.md.
#pragma once
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>
#include "models/jobs/mig_cluster.h"

namespace arbsim::jobs {

struct SchedulerParams {
  double delay_threshold = 1.5;        // Table 1: largest predicted slowdown a job is placed at
  double wait_time_threshold_s = 60;   // Table 1: after this long waiting, the limit is lifted
  double reconfig_s = 0;               // a GPU's re-split takes this long (§4.2 principle 1)
};

class MigScheduler {
 public:
  virtual ~MigScheduler() = default;
  virtual const char* name() const = 0;
  // Places what it can of `waiting` (arrival order) at `now`, starting each on `c`; returns
  // the placements in the order made.
  virtual std::vector<Placement> schedule(double now, const std::vector<const MigJob*>& waiting, MigCluster& c) = 0;
  // The next time after `now` at which its decisions change with nothing else happening (a
  // waiting job passing a wait threshold); +infinity when there is none: the simulation
  // activates it then too.
  virtual double next_decision_s(double /*now*/, const std::vector<const MigJob*>& /*waiting*/) const {
    return std::numeric_limits<double>::infinity();
  }
};

// Schedulers by name: "first_fit", "pcie_aware", and any a user registers (before loading a
// config that names it: the jobs config accepts every registered name). Throws
// std::invalid_argument on a name given twice or an empty factory.
using MigSchedulerFactory = std::function<std::unique_ptr<MigScheduler>(const SchedulerParams&)>;
void register_mig_scheduler(const std::string& name, MigSchedulerFactory make);
// Throws std::invalid_argument naming the known ones for an unknown name.
std::unique_ptr<MigScheduler> make_mig_scheduler(const std::string& name, const SchedulerParams& p);
std::vector<std::string> mig_scheduler_names();  // in registration order

// The split of an idle GPU that lets most of `sizes` (the instance sizes waiting jobs asked
// for, in arrival order) run at once: smallest first while they fit, the rest as 1g
// instances (§4.2 stage 2). `keep_first`: the first size is in it whatever the others (the
// job a GPU was marked for).
std::vector<int> partition_for(const std::vector<int>& sizes, int slices, bool keep_first = false);

}  // namespace arbsim::jobs
