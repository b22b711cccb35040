#include "models/jobs/mig_perf_model.h"
#include <algorithm>
#include <stdexcept>

namespace arbsim::jobs {

double slowdown(double alpha, double demand_GBps, double pcie_max_GBps, int pcie_jobs) {
  if (demand_GBps <= 0 || pcie_jobs <= 0) return 1.0;
  return std::max(1.0, alpha * demand_GBps / (pcie_max_GBps / pcie_jobs));
}

double exec_time(double remain_work, double base_throughput, double slowdown) {
  return remain_work / base_throughput * slowdown;
}

double fit_alpha(const std::vector<std::pair<double, double>>& points) {
  double xy = 0, xx = 0;
  for (const auto& [x, y] : points) {
    xy += x * y;
    xx += x * x;
  }
  if (xx <= 0) throw std::invalid_argument("fit_alpha: needs a point with contention (x > 0)");
  return xy / xx;
}

}  // namespace arbsim::jobs
