#include "models/jobs/mig_scheduler.h"
#include <algorithm>
#include <stdexcept>
#include "models/jobs/first_fit_scheduler.h"
#include "models/jobs/pcie_aware_scheduler.h"

namespace arbsim::jobs {

namespace {

// Name -> factory, the built-in two first; ordered by registration (names() keeps that order).
std::vector<std::pair<std::string, MigSchedulerFactory>>& registry() {
  static std::vector<std::pair<std::string, MigSchedulerFactory>> r = {
      {"first_fit", [](const SchedulerParams& p) -> std::unique_ptr<MigScheduler> {
         return std::make_unique<FirstFitScheduler>(p);
       }},
      {"pcie_aware", [](const SchedulerParams& p) -> std::unique_ptr<MigScheduler> {
         return std::make_unique<PcieAwareScheduler>(p);
       }}};
  return r;
}

}  // namespace

void register_mig_scheduler(const std::string& name, MigSchedulerFactory make) {
  for (const auto& [n, f] : registry())
    if (n == name) throw std::invalid_argument("MIG scheduler '" + name + "' is already registered");
  if (!make) throw std::invalid_argument("MIG scheduler '" + name + "': no factory");
  registry().emplace_back(name, std::move(make));
}

std::vector<std::string> mig_scheduler_names() {
  std::vector<std::string> names;
  for (const auto& [n, f] : registry()) names.push_back(n);
  return names;
}

std::unique_ptr<MigScheduler> make_mig_scheduler(const std::string& name, const SchedulerParams& p) {
  std::string known;
  for (const auto& [n, f] : registry()) {
    if (n == name) return f(p);
    known += (known.empty() ? "" : ", ") + n;
  }
  throw std::invalid_argument("unknown MIG scheduler '" + name + "' (known: " + known + ")");
}

std::vector<int> partition_for(const std::vector<int>& sizes, int slices, bool keep_first) {
  std::vector<int> want = sizes;
  std::vector<int> out;
  int used = 0;
  if (keep_first && !want.empty() && want.front() <= slices && mig_size_offered(want.front(), slices)) {
    out.push_back(want.front());
    used = want.front();
    want.erase(want.begin());
  }
  std::stable_sort(want.begin(), want.end());
  for (const int s : want) {
    if (used + s > slices || !mig_size_offered(s, slices)) continue;
    out.push_back(s);
    used += s;
  }
  for (; used < slices; ++used) out.push_back(1);
  return out;
}

}  // namespace arbsim::jobs
