// Where the job level's jobs come from (issue 14): seed 001 Table 2's job kinds, a CSV trace
// of arrivals, or a seeded Poisson generator with a given PCIe-bound ratio (§5.3-5.4's
// workloads). Plain C++, times in seconds, no SystemC.
#pragma once
#include <cstdint>
#include <istream>
#include <string>
#include <vector>
#include "models/jobs/mig_cluster.h"

namespace arbsim::jobs {

// A job's profile by kind (Table 1's symbols): PCIe_demand, alpha, base_throughput.
struct JobKind {
  std::string name;
  double pcie_demand_GBps = 0;  // 0: not PCIe-bound
  double alpha = 1;
  double base_throughput = 1;   // work units a second alone on its instance
};

// Table 2: resnet50 (not PCIe-bound), bloom560m (5.7 GB/s, alpha 1.25), bloom7b1 (17.65 GB/s,
// alpha 1.07), each at 1 work unit a second, so a job's work is its time alone in seconds.
std::vector<JobKind> table2_kinds();

// The most jobs a simulation takes, generated or from a trace: the schedulers look over the
// waiting jobs at each decision, and an overloaded cluster's queue grows with the jobs, so the
// cost grows with their square (pcie_aware: 100,000 jobs of seed 001's testbed in 21.5 s,
// 160,000 in 59 s; the bound was 10^7, hours).
constexpr int kMaxJobs = 100000;

// Poisson arrivals: gaps exponential with mean `mean_gap_s`; each job PCIe-bound with
// probability `pcie_bound_ratio` (then one of the PCIe-bound kinds, equally likely), else one
// of the others; work uniform in [work_min, work_max]; all ask `slices` slices. Its own
// 64-bit generator and inverse-CDF draws: the same seed gives the same jobs on every machine.
struct JobGenerator {
  int count = 100;
  double mean_gap_s = 10;
  double pcie_bound_ratio = 0.6;
  double work_min = 100, work_max = 400;
  int slices = 1;
  uint64_t seed = 1;
};
// Throws std::invalid_argument when the ratio asks for a class of kind `kinds` lacks.
std::vector<MigJob> generate_jobs(const JobGenerator& g, const std::vector<JobKind>& kinds);

// A CSV trace: the header `arrival_s,kind,slices,work`, then one job a line (ids in line
// order; '#' lines and blank lines skipped). Throws std::invalid_argument "line N: reason" on
// a bad header, a field count, a number that does not parse, a negative or non-finite
// arrival, work <= 0, slices < 1, or an unknown kind.
std::vector<MigJob> read_job_trace(std::istream& in, const std::vector<JobKind>& kinds);

}  // namespace arbsim::jobs
