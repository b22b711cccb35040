// Seed 001's performance model (§4.1): a PCIe-bound job's slowdown from sharing its GPU's
// link with other PCIe-bound jobs, and the remaining execution time it predicts. The
// simulation (the fabric) gives the true shares; this is what a scheduler predicts with.
// Plain C++.
#pragma once
#include <utility>
#include <vector>

namespace arbsim::jobs {

// Eq. 2: max(1, alpha x demand / (pcie_max / pcie_jobs)); pcie_jobs counts the job itself.
// A job without PCIe demand is never slowed.
double slowdown(double alpha, double demand_GBps, double pcie_max_GBps, int pcie_jobs);
// Eq. 3: remain_work / base_throughput x slowdown.
double exec_time(double remain_work, double base_throughput, double slowdown);
// Eq. 1's alpha by least squares through the origin over (demand / (pcie_max / n),
// runtime(n) / base_runtime) points. Throws std::invalid_argument on no point or all-zero x.
double fit_alpha(const std::vector<std::pair<double, double>>& points);

}  // namespace arbsim::jobs
