// The job-level config (`pcie-arbsim jobs CONFIG`, seed 001 §4-5; docs/mig-scheduling.md):
// a cluster of MIG GPUs, a scheduler by name with Table 1's thresholds, the job kinds
// (Table 2 by default) and the jobs, from a CSV trace or a seeded Poisson generator. Checked
// as every config is: unknown keys, types and ranges, each error naming the file, the line
// and the dotted key (ConfigError, exit 2). No SystemC.
#pragma once
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>
#include "models/jobs/job_simulation.h"
#include "models/jobs/job_workload.h"

namespace arbsim {

struct JobsConfig {
  std::string file;
  jobs::JobSimConfig sim;
  std::vector<jobs::JobKind> kinds;
  std::vector<jobs::MigJob> jobs;
  std::string source;        // "trace PATH" or "generator"
  double pcie_bound_ratio = 0;  // of the jobs as loaded
  YAML::Node effective;      // with every default written in (config.effective.yaml)
};

JobsConfig load_jobs_config(const std::string& path, const std::vector<std::string>& overrides);
// For YAML text (tests); a trace path resolves against `base_dir`.
JobsConfig load_jobs_config_text(const std::string& yaml, const std::vector<std::string>& overrides = {},
                                 const std::string& name = "<jobs>", const std::string& base_dir = ".");

}  // namespace arbsim
