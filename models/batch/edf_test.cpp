#include "models/batch/edf_test.h"
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace arbsim {

namespace {

struct Task {
  int64_t e, p;
};

// Condition (2) for task i: the demand of shorter-period jobs released in [0, L - 1] plus
// one job of task i, which may block them, fits in L. The demand only rises at L = k p_j + 1,
// and L - demand falls only there, so those points (and p_1 + 1) are the ones to check.
bool blocking_fits(const std::vector<Task>& t, std::size_t i, int64_t* bad_l) {
  std::vector<int64_t> points = {t[0].p + 1};
  for (std::size_t j = 0; j < i; ++j)
    for (int64_t l = t[j].p + 1; l < t[i].p; l += t[j].p)
      if (l > t[0].p) points.push_back(l);
  for (int64_t l : points) {
    if (l >= t[i].p) continue;
    int64_t demand = t[i].e;
    for (std::size_t j = 0; j < i; ++j) demand += (l - 1) / t[j].p * t[j].e;
    if (l < demand) {
      *bad_l = l;
      return false;
    }
  }
  return true;
}

}  // namespace

EdfVerdict nonpreemptive_edf_test(std::vector<PeriodicTask> tasks) {
  EdfVerdict v;
  std::vector<Task> t;
  for (const PeriodicTask& k : tasks) {
    if (!(k.period_ns >= 1) || !(k.exec_ns >= 0)) {
      v.reason = "every task needs a period of at least 1 ns and a non-negative execution time";
      return v;
    }
    t.push_back({static_cast<int64_t>(std::ceil(k.exec_ns)), static_cast<int64_t>(std::floor(k.period_ns))});
    v.utilization += k.exec_ns / k.period_ns;
  }
  std::stable_sort(t.begin(), t.end(), [](const Task& a, const Task& b) { return a.p < b.p; });
  if (v.utilization > 1) {
    v.reason = "utilization above 1";
    return v;
  }
  double points = 0;  // the test is pseudo-polynomial: p_i / p_j points per pair
  for (std::size_t i = 1; i < t.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) points += static_cast<double>(t[i].p) / std::max<int64_t>(1, t[j].p);
  if (points > 1e7) {
    v.reason = "periods too far apart to check (more than 10^7 points)";
    return v;
  }
  for (std::size_t i = 1; i < t.size(); ++i) {
    int64_t l = 0;
    if (!blocking_fits(t, i, &l)) {
      v.reason = "a job of period " + std::to_string(t[i].p) + " ns blocks shorter-period jobs at L = " +
                 std::to_string(l) + " ns";
      return v;
    }
  }
  v.schedulable = true;
  return v;
}

}  // namespace arbsim
