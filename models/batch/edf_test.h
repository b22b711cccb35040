// Schedulability of periodic batch operations under non-preemptive EDF: the test of Jeffay,
// Stanat and Martel, "On non-preemptive scheduling of periodic and sporadic tasks" (RTSS
// 1991), which seed 002 §4.2 uses for wafer inspection (its reference [4]). Each task is a
// batch operation (atomic, so non-preemptive on the interconnect) with its predicted
// latency as execution time e and its period p as relative deadline. The set is schedulable
// by non-preemptive EDF (and, for sporadic tasks, feasible at all) iff, tasks sorted by period:
//   (1) sum of e_i / p_i <= 1, and
//   (2) for every task i and every L with p_1 < L < p_i:
//         L >= e_i + sum over j < i of floor((L - 1) / p_j) * e_j
// (time in integer units; here ns, with e rounded up and p down, so the test stays sound).
#pragma once
#include <string>
#include <vector>

namespace arbsim {

struct PeriodicTask {
  double exec_ns = 0;
  double period_ns = 0;
};

struct EdfVerdict {
  bool schedulable = false;
  double utilization = 0;
  std::string reason;  // the condition that fails, if one does
};

EdfVerdict nonpreemptive_edf_test(std::vector<PeriodicTask> tasks);

}  // namespace arbsim
