// Loading a job-level config (jobs_config.h): cluster, scheduler, kinds, jobs.
#include "platforms/config/jobs_config.h"

#include <cmath>
#include <filesystem>
#include <sstream>
#include "platforms/config/config_error.h"
#include "platforms/config/parse.h"
#include "platforms/config/reader.h"

namespace arbsim {

namespace fs = std::filesystem;
using jobs::JobKind;

namespace {

// A list of positive integers at `key` (instance sizes in slices).
std::vector<int> int_list(const Reader& r, const std::string& key, std::vector<int> def) {
  if (!r.has(key)) {
    YAML::Node out = r.node()[key];
    for (int v : def) out.push_back(v);
    return def;
  }
  const YAML::Node n = r.node()[key];
  if (!n.IsSequence() || n.size() == 0) r.fail(key, "expected a non-empty list of instance sizes in slices, e.g. [1, 2, 4]");
  std::vector<int> v;
  for (std::size_t i = 0; i < n.size(); ++i) {
    int x = 0;
    if (!n[i].IsScalar() || !YAML::convert<int>::decode(n[i], x) || x < 1 || x > 64)
      r.fail(key + "[" + std::to_string(i) + "]", "expected an integer in 1..64, got " + scalar_text(n[i]));
    v.push_back(x);
  }
  return v;
}

// An instance size a GPU of `slices` slices does not offer (mig_size_offered()) is refused:
// a job of that size could never be placed, and the schedulers would wait for ever.
std::string no_instance(int size, int slices) {
  return "no instance of " + std::to_string(size) + " slices on a GPU of " + std::to_string(slices) +
         (slices == 7 ? " (an A100 offers 1, 2, 3, 4 and 7)" : "");
}

void need_offered(const Reader& r, const std::string& key, int size, int slices) {
  if (!mig_size_offered(size, slices)) r.fail(key, no_instance(size, slices));
}

void parse_cluster(const Reader& r, jobs::JobSimConfig& c) {
  r.allow({"gpus", "slices", "partition", "pcie_max_GBps"});
  c.gpus = r.int_in("gpus", c.gpus, 1, 100000);
  c.slices = r.int_in("slices", 7, 1, 64);
  c.partition = int_list(r, "partition", std::vector<int>(static_cast<std::size_t>(c.slices), 1));
  int used = 0;
  for (std::size_t i = 0; i < c.partition.size(); ++i) {
    need_offered(r, "partition[" + std::to_string(i) + "]", c.partition[i], c.slices);
    used += c.partition[i];
  }
  if (used > c.slices)
    r.fail("partition", "the instances take " + std::to_string(used) + " slices; a GPU has " + std::to_string(c.slices));
  c.pcie_max_GBps = r.rate_in("pcie_max_GBps", c.pcie_max_GBps, 0.001, 1e6);
}

void parse_scheduler(const Reader& r, jobs::JobSimConfig& c) {
  r.allow({"name", "delay_threshold", "wait_time_threshold_s", "reconfig_s"});
  c.scheduler = r.one_of("name", "pcie_aware", jobs::mig_scheduler_names());
  c.params.delay_threshold = r.number_in("delay_threshold", c.params.delay_threshold, 1, 1e9);
  c.params.wait_time_threshold_s = r.number_in("wait_time_threshold_s", c.params.wait_time_threshold_s, 0, 1e12);
  c.params.reconfig_s = r.number_in("reconfig_s", c.params.reconfig_s, 0, 1e9);
}

std::vector<JobKind> parse_kinds(const Reader& top) {
  if (!top.has("kinds")) return jobs::table2_kinds();
  std::vector<JobKind> kinds;
  for (const Reader& k : top.list("kinds")) {
    k.allow({"name", "pcie_demand_GBps", "alpha", "base_throughput"});
    JobKind j;
    j.name = k.need<std::string>("name");
    k.check_name("name", j.name);
    for (const JobKind& o : kinds)
      if (o.name == j.name) k.fail("name", "kind '" + j.name + "' is given twice");
    j.pcie_demand_GBps = k.rate_in("pcie_demand_GBps", 0, 0, 1e6);
    j.alpha = k.number_in("alpha", 1, 0, 100);
    j.base_throughput = k.number_in("base_throughput", 1, 1e-9, 1e12);
    kinds.push_back(j);
  }
  if (kinds.empty()) top.fail("kinds", "the list is empty: give at least one kind (or leave it out for Table 2's)");
  return kinds;
}

// Mean time alone of a generated job: the work's mean over each class's mean throughput.
double mean_job_time(const jobs::JobGenerator& g, const std::vector<JobKind>& kinds) {
  double bound = 0, other = 0;
  int nb = 0, no = 0;
  for (const JobKind& k : kinds) (k.pcie_demand_GBps > 0 ? (++nb, bound) : (++no, other)) += 1 / k.base_throughput;
  const double per_unit = (nb ? g.pcie_bound_ratio * bound / nb : 0) + (no ? (1 - g.pcie_bound_ratio) * other / no : 0);
  return (g.work_min + g.work_max) / 2 * per_unit;
}

std::vector<jobs::MigJob> generated(const Reader& r, const jobs::JobSimConfig& c, const std::vector<JobKind>& kinds) {
  r.allow({"count", "load", "mean_gap_s", "pcie_bound_ratio", "work_min", "work_max", "slices", "seed"});
  jobs::JobGenerator g;
  g.count = r.int_in("count", 100, 1, jobs::kMaxJobs);
  g.pcie_bound_ratio = r.number_in("pcie_bound_ratio", g.pcie_bound_ratio, 0, 1);
  g.work_min = r.number_in("work_min", g.work_min, 1e-9, 1e12);
  g.work_max = r.number_in("work_max", g.work_max, g.work_min, 1e12);
  g.slices = r.int_in("slices", 1, 1, c.slices);
  need_offered(r, "slices", g.slices, c.slices);
  g.seed = static_cast<uint64_t>(r.int_in("seed", 1, 0, 2147483647));
  if (r.has("load") && r.has("mean_gap_s")) r.fail("mean_gap_s", "give `load` or `mean_gap_s`, not both");
  if (r.has("mean_gap_s")) {
    g.mean_gap_s = r.number_in("mean_gap_s", 10, 1e-9, 1e12);
  } else {
    // load: the arrival rate that keeps this fraction of the cluster's instances of the jobs'
    // size busy on average (Little's law, ignoring contention and waits).
    const double load = r.number_in("load", 0.8, 1e-6, 1e6);
    const double capacity = static_cast<double>(c.gpus) * (c.slices / g.slices);
    g.mean_gap_s = mean_job_time(g, kinds) / (load * capacity);
  }
  try {
    return jobs::generate_jobs(g, kinds);
  } catch (const std::invalid_argument& e) {
    r.fail("pcie_bound_ratio", e.what());
  }
}

std::vector<jobs::MigJob> traced(const Reader& r, const std::string& base_dir, const std::vector<JobKind>& kinds,
                                 std::string* source) {
  r.allow({"trace"});
  const std::string name = r.need<std::string>("trace");
  const std::string path = fs::path(name).is_absolute() ? name : (fs::path(base_dir) / name).string();
  std::string text;
  try {
    text = read_text_file(path);
  } catch (const ConfigError& e) {
    r.fail("trace", e.what());
  }
  // config.effective.yaml lands elsewhere: it names the trace so that it runs again from there.
  r.node()["trace"] = fs::absolute(path).lexically_normal().string();
  std::istringstream in(text);
  *source = "trace " + path;
  try {
    return jobs::read_job_trace(in, kinds);
  } catch (const std::invalid_argument& e) {
    r.fail("trace", path + ": " + e.what());
  }
}

std::string num(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

// Each job must fit a GPU and its link; checked here so the error names the config.
void check_jobs(const Reader& r, const JobsConfig& c) {
  const std::string key = r.has("trace") ? "trace" : "";
  for (const jobs::MigJob& j : c.jobs) {
    const std::string job = "job " + std::to_string(j.id);
    if (j.slices > c.sim.slices)
      r.fail(key, job + " asks " + std::to_string(j.slices) + " slices; a GPU has " + std::to_string(c.sim.slices));
    if (!mig_size_offered(j.slices, c.sim.slices)) r.fail(key, job + ": " + no_instance(j.slices, c.sim.slices));
    if (j.pcie_demand_GBps > c.sim.pcie_max_GBps)
      r.fail(key, job + " demands " + num(j.pcie_demand_GBps) +
                     " GB/s, above cluster.pcie_max_GBps (" + num(c.sim.pcie_max_GBps) + ")");
  }
}

JobsConfig parse(const std::string& text, const std::string& name, const std::string& base_dir,
                 const std::vector<std::string>& overrides) {
  YAML::Node root = parse_config_text(text, name);
  for (const std::string& o : overrides) apply_config_override(root, o, name);
  Reader top(root, "", name);
  top.allow({"description", "cluster", "scheduler", "kinds", "jobs"});
  if (top.has("description")) top.need<std::string>("description");
  JobsConfig c;
  c.file = name;
  parse_cluster(top.map("cluster"), c.sim);
  parse_scheduler(top.map("scheduler"), c.sim);
  c.kinds = parse_kinds(top);
  if (!top.has("jobs")) top.fail("jobs", "required key is missing: a `trace` (CSV) or a generator (count, load, ...)");
  const Reader j = top.map("jobs");
  c.source = "generator";
  c.jobs = j.has("trace") ? traced(j, base_dir, c.kinds, &c.source) : generated(j, c.sim, c.kinds);
  check_jobs(j, c);
  int bound = 0;
  for (const jobs::MigJob& x : c.jobs) bound += x.pcie_bound();
  c.pcie_bound_ratio = c.jobs.empty() ? 0 : static_cast<double>(bound) / static_cast<double>(c.jobs.size());
  c.effective = root;
  return c;
}

}  // namespace

JobsConfig load_jobs_config(const std::string& path, const std::vector<std::string>& overrides) {
  return load_jobs_config_text(read_text_file(path), overrides, path, fs::path(path).parent_path().string());
}

JobsConfig load_jobs_config_text(const std::string& yaml, const std::vector<std::string>& overrides,
                                 const std::string& name, const std::string& base_dir) {
  try {
    return parse(yaml, name, base_dir.empty() ? "." : base_dir, overrides);
  } catch (const YAML::Exception& e) {
    throw ConfigError(name + ": cannot read the config: " + e.what());
  }
}

}  // namespace arbsim
