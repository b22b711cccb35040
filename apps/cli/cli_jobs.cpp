// `pcie-arbsim jobs CONFIG [--out DIR]`: seed 001's job level (docs/mig-scheduling.md): jobs
// from a trace or a generator placed on MIG instances by the named scheduler, each running
// at the PCIe share the flow allocator gives it on its GPU's link. Prints the summary; with
// --out, writes DIR/results.json (summary), DIR/jobs.csv (one row a job) and
// DIR/config.effective.yaml, all or none. Deterministic: the same config gives the same files.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <filesystem>
#include <sstream>
#include <nlohmann/json.hpp>
#include "apps/cli/cli.h"
#include "apps/cli/output_dir.h"
#include "platforms/config/config_error.h"
#include "platforms/config/jobs_config.h"

namespace arbsim {

namespace {

using nlohmann::ordered_json;

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size()))) - (q > 0 ? 1 : 0)];
}

ordered_json summary(const std::vector<jobs::JobResult>& r) {
  std::vector<double> jct;
  double total = 0, wait = 0, exec = 0, end = 0, err = 0, abs_err = 0;
  for (const jobs::JobResult& x : r) {
    jct.push_back(x.jct_s());
    total += x.jct_s();
    wait += x.start_s - x.arrival_s;
    exec += x.exec_s();
    end = std::max(end, x.end_s);
    err += (x.predicted_exec_s - x.exec_s()) / x.exec_s();
    abs_err += std::abs(x.predicted_exec_s - x.exec_s()) / x.exec_s();
  }
  const double n = static_cast<double>(std::max<std::size_t>(1, r.size()));
  return {{"jobs", r.size()},
          {"total_jct_s", total},
          {"mean_jct_s", total / n},
          {"p50_jct_s", quantile(jct, 0.5)},
          {"p99_jct_s", quantile(jct, 0.99)},
          {"mean_wait_s", wait / n},
          {"mean_exec_s", exec / n},
          {"makespan_s", end},
          {"prediction", {{"what", "Eq. 2-3's execution time at each job's start against the simulated one"},
                          {"mean_error_pct", 100 * err / n},
                          {"mean_abs_error_pct", 100 * abs_err / n}}}};
}

ordered_json results_json(const RunArgs& a, const JobsConfig& c, const ordered_json& summary) {
  return {{"schema", "pcie-arbsim-jobs/1"},
          {"config", a.config},
          {"scheduler", c.sim.scheduler},
          {"gpus", c.sim.gpus},
          {"slices", c.sim.slices},
          {"partition", c.sim.partition},
          {"pcie_max_GBps", c.sim.pcie_max_GBps},
          {"delay_threshold", c.sim.params.delay_threshold},
          {"wait_time_threshold_s", c.sim.params.wait_time_threshold_s},
          {"reconfig_s", c.sim.params.reconfig_s},
          {"source", c.source},
          {"pcie_bound_ratio", c.pcie_bound_ratio},
          {"summary", summary}};
}

std::string jobs_csv(const JobsConfig& c, const std::vector<jobs::JobResult>& r) {
  std::ostringstream o;
  o.precision(17);
  o << "id,arrival_s,slices,pcie_demand_GBps,gpu,instance_slices,start_s,end_s,jct_s,exec_s,predicted_exec_s\n";
  for (const jobs::JobResult& x : r) {
    const jobs::MigJob& j = c.jobs[static_cast<std::size_t>(x.id)];
    o << x.id << ',' << x.arrival_s << ',' << j.slices << ',' << j.pcie_demand_GBps << ',' << x.gpu << ','
      << x.instance_slices << ',' << x.start_s << ',' << x.end_s << ',' << x.jct_s() << ',' << x.exec_s() << ','
      << x.predicted_exec_s << '\n';
  }
  return o.str();
}

int write_outputs(const RunArgs& a, const JobsConfig& c, const std::vector<jobs::JobResult>& r, const ordered_json& s) {
  YAML::Emitter e;
  e << c.effective;
  const int code = write_all_or_none(a.out_dir, {{"config.effective.yaml", std::string(e.c_str()) + "\n"},
                                                 {"jobs.csv", jobs_csv(c, r)},
                                                 {"results.json", results_json(a, c, s).dump(2) + "\n"}});
  if (code == kExitOk) std::printf("results: %s\n", (std::filesystem::path(a.out_dir) / "results.json").c_str());
  return code;
}

}  // namespace

int cmd_jobs(const RunArgs& a) {
  JobsConfig c;
  try {
    c = load_jobs_config(a.config, a.overrides);
  } catch (const ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  }
  const std::clock_t t0 = std::clock();
  std::vector<jobs::JobResult> r;
  try {
    r = jobs::simulate_jobs(c.sim, c.jobs);
  } catch (const std::exception& e) {
    std::cerr << "error: " << a.config << ": " << e.what() << "\n";
    return kExitModelError;
  }
  const double cpu = static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
  const ordered_json s = summary(r);
  std::printf("pcie-arbsim jobs: %s, %d GPUs x %d slices, %zu jobs (%s, %.0f %% PCIe-bound), %s\n", a.config.c_str(),
              c.sim.gpus, c.sim.slices, r.size(), c.source.c_str(), 100 * c.pcie_bound_ratio, c.sim.scheduler.c_str());
  std::printf("JCT mean %.1f s, p50 %.1f s, p99 %.1f s; wait mean %.1f s; makespan %.1f s; Eq. 2-3 exec error %+.1f %% "
              "(mean |error| %.1f %%); %.3f s CPU\n",
              s["mean_jct_s"].get<double>(), s["p50_jct_s"].get<double>(), s["p99_jct_s"].get<double>(),
              s["mean_wait_s"].get<double>(), s["makespan_s"].get<double>(),
              s["prediction"]["mean_error_pct"].get<double>(), s["prediction"]["mean_abs_error_pct"].get<double>(), cpu);
  return a.out_dir.empty() ? kExitOk : write_outputs(a, c, r, s);
}

}  // namespace arbsim
