#include "models/jobs/mig_scheduler.h"
#include <algorithm>
#include <stdexcept>
#include "models/jobs/first_fit_scheduler.h"
#include "models/jobs/pcie_aware_scheduler.h"

namespace arbsim::jobs {

const std::vector<std::string>& mig_scheduler_names() {
  static const std::vector<std::string> names = {"first_fit", "pcie_aware"};
  return names;
}

std::unique_ptr<MigScheduler> make_mig_scheduler(const std::string& name, const SchedulerParams& p) {
  if (name == "first_fit") return std::make_unique<FirstFitScheduler>(p);
  if (name == "pcie_aware") return std::make_unique<PcieAwareScheduler>(p);
  throw std::invalid_argument("unknown MIG scheduler '" + name + "' (known: first_fit, pcie_aware)");
}

std::vector<int> partition_for(const std::vector<int>& sizes, int slices) {
  std::vector<int> want = sizes;
  std::stable_sort(want.begin(), want.end());
  std::vector<int> out;
  int used = 0;
  for (const int s : want) {
    if (used + s > slices || !mig_size_offered(s, slices)) continue;
    out.push_back(s);
    used += s;
  }
  for (; used < slices; ++used) out.push_back(1);
  return out;
}

}  // namespace arbsim::jobs
