// Seed 001's job-level simulation (§5.3's simulator, with the fabric's shares): jobs arrive,
// a scheduler (mig_scheduler.h) places them on MIG instances, and each runs at the rate its
// PCIe share allows. The share is not the scheduler's prediction (Eq. 2) but what the flow
// mode's allocator gives: each running PCIe-bound job is a flow capped at its demand on its
// GPU's link of PCIe_max (max-min, models/flow/max_min.h), recomputed on every start and end;
// a job getting a of its demand D progresses at base_throughput x a / D (its copies and
// compute interleave perfectly: the "staggered" bound of docs/gpu-sharing.md "MIG
// instances"). Deterministic; plain C++, seconds.
#pragma once
#include <string>
#include <vector>
#include "models/jobs/mig_scheduler.h"

namespace arbsim::jobs {

struct JobSimConfig {
  int gpus = 4;
  std::vector<int> partition = {1, 1, 1, 1, 1, 1, 1};  // every GPU's split at the start (§5.1)
  int slices = 7;
  double pcie_max_GBps = 30.08;                         // §5.1's A100-PCIe on Gen4
  std::string scheduler = "pcie_aware";
  SchedulerParams params;
};

struct JobResult {
  int id = 0;
  double arrival_s = 0, start_s = 0, end_s = 0;
  int gpu = -1, instance_slices = 0;
  // What the performance model (Eq. 2-3) predicted at the start for its execution, with
  // the PCIe-bound jobs on its GPU then; the simulation's shares say how well it predicts.
  double predicted_exec_s = 0;
  double jct_s() const { return end_s - arrival_s; }  // wait + execution (§5.2)
  double exec_s() const { return end_s - start_s; }
};

// Runs `jobs` (any order; arrival times >= 0) to completion. Throws std::invalid_argument on
// a job no GPU could ever hold (more slices than a GPU has, demand above PCIe_max, no work),
// std::runtime_error if jobs wait with nothing running and nothing left to happen.
std::vector<JobResult> simulate_jobs(const JobSimConfig& cfg, std::vector<MigJob> jobs);

}  // namespace arbsim::jobs
