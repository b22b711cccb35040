// A job for the job-level tests (test_mig_schedulers.cpp, test_job_simulation.cpp): 1 token/s
// alone, alpha 1; `demand` 0 = not PCIe-bound.
#pragma once
#include "models/jobs/mig_cluster.h"

namespace arbsim::test {

inline jobs::MigJob mig_job(int id, double demand, double work = 100, int slices = 1, double arrival = 0) {
  jobs::MigJob j;
  j.id = id;
  j.arrival_s = arrival;
  j.slices = slices;
  j.work = work;
  j.base_throughput = 1;
  j.pcie_demand_GBps = demand;
  j.alpha = 1;
  return j;
}

}  // namespace arbsim::test
