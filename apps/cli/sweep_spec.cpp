// Sweep spec parsing and expansion (docs/sweeps.md):
//   base: CONFIG            the config every run starts from (relative to the spec)
//   set: [k=v, ...]         overrides common to every run
//   product: {key: [v...]}  cartesian product, keys varied in the order written (last fastest)
//   runs: [{name?, set: [k=v...]}]   explicit runs (after the product's)
//   limits: {timeout, memory}         per point
//   slurm: {partition, account, points_per_task, throttle, sbatch_args}   --backend slurm
#include <filesystem>
#include <map>
#include <set>
#include "apps/cli/sweep.h"
#include "platforms/config/reader.h"
#include "platforms/config/yaml_guard.h"

namespace arbsim {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> string_list(const Reader& r, const std::string& key) {
  std::vector<std::string> out;
  if (!r.has(key)) return out;
  const YAML::Node n = r.node()[key];
  if (!n.IsSequence()) r.fail(key, "expected a list of dotted.key=value strings");
  for (const YAML::Node& e : n) {
    if (!e.IsScalar() || e.Scalar().find('=') == std::string::npos)
      r.fail(key, "each entry must be a dotted.key=value string, got " + scalar_text(e));
    out.push_back(e.Scalar());
  }
  return out;
}

std::string yaml_scalar(const YAML::Node& v) {
  if (v.IsScalar()) return v.Scalar();
  YAML::Emitter e;
  e << YAML::Flow << v;
  return e.c_str();
}

void expand_product(const Reader& r, SweepSpec& s, const std::vector<std::string>& common) {
  if (!r.has("product")) return;
  const YAML::Node p = r.node()["product"];
  if (!p.IsMap()) r.fail("product", "expected a map of dotted.key: [values]");
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;
  std::set<std::string> seen;  // yaml-cpp keeps both copies of a repeated key
  for (const auto& kv : p) {
    if (!seen.insert(kv.first.Scalar()).second)
      throw ConfigError(s.file + ":" + std::to_string(kv.first.Mark().line + 1) + ": product." + kv.first.Scalar() +
                        ": key given twice in one map");
    if (!kv.second.IsSequence() || kv.second.size() == 0)
      r.fail("product", "'" + kv.first.Scalar() + "' needs a non-empty list of values");
    axes.push_back({kv.first.Scalar(), {}});
    for (const YAML::Node& v : kv.second) axes.back().second.push_back(yaml_scalar(v));
    s.varied_keys.push_back(kv.first.Scalar());
  }
  std::vector<std::size_t> idx(axes.size(), 0);
  while (true) {
    SweepRun run;
    run.overrides = common;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      run.varied.push_back(axes[a].first + "=" + axes[a].second[idx[a]]);
      run.overrides.push_back(run.varied.back());
    }
    s.runs.push_back(run);
    std::size_t a = axes.size();
    while (a > 0 && ++idx[a - 1] == axes[a - 1].second.size()) idx[--a] = 0;
    if (a == 0) break;
  }
}

void add_explicit_runs(const Reader& r, SweepSpec& s, const std::vector<std::string>& common) {
  for (const Reader& e : r.list("runs")) {
    e.allow({"name", "set"});
    SweepRun run;
    run.overrides = common;
    if (e.has("name")) run.id = e.get<std::string>("name", "");
    for (const std::string& o : string_list(e, "set")) {
      run.varied.push_back(o);
      run.overrides.push_back(o);
      const std::string key = o.substr(0, o.find('='));
      if (std::find(s.varied_keys.begin(), s.varied_keys.end(), key) == s.varied_keys.end())
        s.varied_keys.push_back(key);
    }
    s.runs.push_back(run);
  }
}

void read_slurm(const Reader& r, SlurmOptions& o) {
  if (!r.has("slurm")) return;
  const Reader m = r.map("slurm");
  m.allow({"partition", "account", "points_per_task", "throttle", "sbatch_args"});
  o.partition = m.get<std::string>("partition", "");
  o.account = m.get<std::string>("account", "");
  o.points_per_task = m.get<int>("points_per_task", 1);
  if (o.points_per_task < 1) m.fail("points_per_task", "must be >= 1, got " + std::to_string(o.points_per_task));
  o.throttle = m.get<int>("throttle", 0);
  if (o.throttle < 0) m.fail("throttle", "must be >= 0 (0: the cluster's limit), got " + std::to_string(o.throttle));
  if (!m.has("sbatch_args")) return;
  const YAML::Node n = m.node()["sbatch_args"];
  if (!n.IsSequence()) m.fail("sbatch_args", "expected a list of sbatch options, e.g. [\"--qos=short\"]");
  for (const YAML::Node& e : n) {
    if (!e.IsScalar()) m.fail("sbatch_args", "each entry must be a string, got " + scalar_text(e));
    o.sbatch_args.push_back(e.Scalar());
  }
}

}  // namespace

std::string parse_timeout(const std::string& text, double* seconds) {
  double ns = 0;
  if (!parse_time_ns(text, &ns) || !(ns >= 1e9)) {
    // A bare number is nanoseconds, as everywhere in configs: say so ("60" read as 60 ns).
    const bool bare = !text.empty() && text.find_first_not_of("0123456789.eE+-") == std::string::npos;
    return std::string("expected a wall time of at least 1 s (e.g. 600s, 10min, 1h)") +
           (bare ? "; a number without a unit is in ns" : "");
  }
  *seconds = ns / 1e9;
  return "";
}

std::string parse_memory_limit(const std::string& text, uint64_t* bytes) {
  if (!parse_bytes(text, bytes) || *bytes < (64ull << 20))
    return "expected a size of at least 64MiB and under 16EiB (e.g. 4GiB; units B, KB, KiB, MB, MiB, GB, GiB)";
  return "";
}

SweepSpec load_sweep_spec(const std::string& path) {
  YAML::Node root = load_yaml_bounded(read_text_file(path), path);
  if (!root.IsMap()) throw ConfigError(path + ": top level must be a map (base, set, product, runs)");
  Reader r(root, "", path);
  r.allow({"description", "base", "set", "product", "runs", "limits", "slurm"});
  SweepSpec s;
  s.file = path;
  s.base = (fs::path(path).parent_path() / r.need<std::string>("base")).lexically_normal().string();
  if (!is_regular_file_at(s.base)) r.fail("base", "config '" + s.base + "' does not exist or is not a file");
  if (r.has("limits")) {
    const Reader l = r.map("limits");
    l.allow({"timeout", "memory"});
    // Checked here, where the file and line are known (limits_of() checks the command line's).
    double seconds = 0;
    uint64_t bytes = 0;
    if (l.has("timeout")) s.timeout = l.need<std::string>("timeout");
    if (const std::string why = parse_timeout(s.timeout, &seconds); !s.timeout.empty() && !why.empty())
      l.fail("timeout", why + ", got '" + s.timeout + "'");
    if (l.has("memory")) s.memory = l.need<std::string>("memory");
    if (const std::string why = parse_memory_limit(s.memory, &bytes); !s.memory.empty() && !why.empty())
      l.fail("memory", why + ", got '" + s.memory + "'");
  }
  read_slurm(r, s.slurm);
  const std::vector<std::string> common = string_list(r, "set");
  expand_product(r, s, common);
  add_explicit_runs(r, s, common);
  if (s.runs.empty()) r.fail("product", "the spec names no run: give `product` or `runs`");
  std::map<std::string, int> seen;
  for (std::size_t i = 0; i < s.runs.size(); ++i) {
    SweepRun& run = s.runs[i];
    if (run.id.empty()) {
      char id[32];
      std::snprintf(id, sizeof id, "r%04zu", i + 1);
      run.id = id;
    }
    if (run.id.find_first_of("/ .") != std::string::npos || ++seen[run.id] > 1)
      r.fail("runs", "run name '" + run.id + "' must be unique, without '/', '.' or spaces");
    // It names the run's directory: a file name (255 bytes at most) with room for the
    // sweep's temporary suffixes (a 300-character name passed --dry-run and failed each run).
    if (run.id.size() > 200)
      r.fail("runs", "run name '" + run.id.substr(0, 40) + "...' is " + std::to_string(run.id.size()) +
                         " characters: at most 200 (it names the run's directory)");
  }
  return s;
}

}  // namespace arbsim
