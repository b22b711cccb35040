// `pcie-arbsim sweep`: every point of a spec run as its own `pcie-arbsim run`, by the local
// backend (a process pool with a progress bar and ETA; apps/cli/sweep_local) or the Slurm one
// (a job array; apps/cli/sweep_slurm). A point is keyed by its effective config's hash and
// the simulator's version: a resumed sweep skips exactly the points whose results are
// complete for this key, and re-runs any other. The output directory is locked; at the end
// it holds runs.txt (one self-contained command per point), summary.csv and the tidy tables.
#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>
#include <unistd.h>
#include "apps/cli/cli.h"
#include "apps/cli/output_dir.h"
#include "apps/cli/sweep.h"
#include "apps/cli/sweep_local.h"
#include "apps/cli/sweep_point.h"
#include "apps/cli/sweep_slurm.h"
#include "apps/cli/sweep_tables.h"
#include "platforms/config/config.h"
#include "platforms/config/reader.h"

namespace arbsim {

namespace fs = std::filesystem;

namespace {

void report_failures(const std::vector<SweepPoint>& points) {
  for (const SweepPoint& p : points) {
    if (p.status == "ok") continue;
    const fs::path log = p.dir / "log.txt";
    std::cerr << "run " << p.run->id << ": " << p.status << (p.detail.empty() ? "" : " (" + p.detail + ")")
              << "; log " << log.string() << ":\n";
    std::string text;
    try {
      text = read_text_file(log.string());
    } catch (const ConfigError&) {
    }
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    for (std::size_t i = lines.size() > 5 ? lines.size() - 5 : 0; i < lines.size(); ++i)
      std::cerr << "  " << lines[i] << "\n";
  }
}

// Limits from the command line, else the spec, else 1 h and (local backend) RAM / jobs.
SweepLimits limits_of(const SweepArgs& a, const SweepSpec& s, int jobs) {
  SweepLimits lim;
  const std::string timeout = !a.timeout.empty() ? a.timeout : s.timeout;
  if (!timeout.empty()) {
    if (const std::string why = parse_timeout(timeout, &lim.timeout_s); !why.empty())
      throw ConfigError("--timeout " + timeout + ": " + why);
  }
  const std::string memory = !a.mem_limit.empty() ? a.mem_limit : s.memory;
  if (!memory.empty()) {
    if (const std::string why = parse_memory_limit(memory, &lim.memory_bytes); !why.empty())
      throw ConfigError("--mem-limit " + memory + ": " + why);
    lim.memory_given = true;
  } else if (a.backend == "local") {
    const uint64_t ram = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    lim.memory_bytes = std::max<uint64_t>(ram / static_cast<uint64_t>(jobs), 1ull << 30);
  }
  return lim;
}

// The spec's `slurm:` with the command line's settings over it.
SlurmOptions slurm_options(const SweepArgs& a, const SweepSpec& s) {
  SlurmOptions o = s.slurm;
  if (!a.partition.empty()) o.partition = a.partition;
  if (!a.account.empty()) o.account = a.account;
  if (a.points_per_task > 0) o.points_per_task = a.points_per_task;
  if (a.jobs > 0) o.throttle = a.jobs;
  if (a.retries >= 0) o.retries = a.retries;
  if (a.poll_s > 0) o.poll_s = a.poll_s;
  o.sbatch_args.insert(o.sbatch_args.end(), a.sbatch_args.begin(), a.sbatch_args.end());
  return o;
}

std::string where_it_runs(const SweepArgs& a, int jobs, const SlurmOptions& o) {
  if (a.backend == "local") return std::to_string(jobs) + " at a time";
  return "as a Slurm array, " + std::to_string(o.points_per_task) + (o.points_per_task == 1 ? " point per task" : " points per task") +
         (o.throttle > 0 ? ", " + std::to_string(o.throttle) + " tasks at a time" : "") +
         (o.partition.empty() ? "" : ", partition " + o.partition);
}

// --dry-run: what the sweep would do, one line per point: its id, "complete" (its results
// are there for this config and version) or "to run", its varied overrides, its command.
int dry_run(const std::string& exe, const SweepArgs& a, const SweepSpec& s, const std::vector<SweepPoint>& points,
            const fs::path& out, const std::string& how, const SweepLimits& lim, const SlurmOptions& slurm) {
  std::vector<bool> done_at;
  for (const SweepPoint& p : points) done_at.push_back(point_complete(p));
  const auto done = static_cast<std::size_t>(std::count(done_at.begin(), done_at.end(), true));
  std::cout << "sweep " << a.spec << " (dry run): " << points.size() << " points, " << done << " complete, "
            << points.size() - done << " to run, " << how << " -> " << out.string() << "; limits per point "
            << fmt_duration(lim.timeout_s) << ", "
            << (lim.memory_bytes ? std::to_string(lim.memory_bytes >> 20) + " MiB" : "the cluster's memory") << "\n";
  for (std::size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = points[i];
    std::string varied;
    for (const std::string& o : p.run->varied) varied += (varied.empty() ? "" : " ") + o;
    std::cout << p.run->id << "  " << (done_at[i] ? "complete" : "to run  ") << "  " << varied << "\n    "
              << sweep_command(exe, s, *p.run, p.dir.string()) << "\n";
  }
  // The array as it would be submitted (arrays of an earlier sweep of DIR still queued are
  // followed first, and their points then left out: not known without squeue).
  if (a.backend == "slurm" && done < points.size())
    std::cout << "would submit: " << SlurmBackend(exe, s, lim, slurm, out).sbatch_line(points.size() - done) << "\n";
  return kExitOk;
}

// runs.txt, summary.csv and the tidy tables, all or none.
int write_tables(OutputDir& dir, const std::string& exe, const SweepSpec& s, const std::vector<SweepPoint>& points) {
  try {
    std::string list;
    for (const SweepPoint& p : points) list += sweep_command(exe, s, *p.run, p.dir.string()) + "\n";
    fs::create_directories(dir.path() / "tables");
    dir.stage("runs.txt", list);
    for (const auto& [name, text] : tidy_tables(s, points)) dir.stage(name, text);
    dir.stage("summary.csv", summary_csv(s, points));
    dir.commit();
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitIoError;
  }
  return kExitOk;
}

}  // namespace

int cmd_sweep(const SweepArgs& a) {
  SweepSpec s;
  std::vector<SweepPoint> points;
  const int jobs = a.jobs > 0 ? a.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const fs::path out = a.out_dir.empty() ? fs::path("runs") / fs::path(a.spec).stem() : fs::path(a.out_dir);
  SweepLimits lim;
  SlurmOptions slurm;
  try {
    s = load_sweep_spec(a.spec);
    points = make_points(s, out);
    lim = limits_of(a, s, jobs);
    slurm = slurm_options(a, s);
  } catch (const ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  }
  const std::string exe = fs::read_symlink("/proc/self/exe").string();
  const std::string how = where_it_runs(a, jobs, slurm);
  if (a.dry_run) return dry_run(exe, a, s, points, out, how, lim, slurm);
  if (a.backend == "slurm" && !SlurmBackend::missing_commands().empty()) {
    std::cerr << "error: --backend slurm: " << SlurmBackend::missing_commands()
              << " not found on PATH (run where the Slurm client commands are)\n";
    return kExitBadInput;
  }
  std::unique_ptr<OutputDir> dir;
  try {
    dir = std::make_unique<OutputDir>(out);
  } catch (const OutputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  }
  install_stop_handlers();
  SlurmBackend cluster(exe, s, lim, slurm, out);
  bool finished = a.backend != "slurm" || cluster.resume_earlier(points);
  std::vector<SweepPoint*> todo;
  for (SweepPoint& p : points)
    if (point_complete(p)) p.status = "ok";
    else todo.push_back(&p);
  if (finished) {
    std::cerr << "sweep " << a.spec << ": " << points.size() << " runs, " << points.size() - todo.size()
              << " already complete, " << how << " -> " << out.string() << "\n";
    SweepProgress progress(points.size(), points.size() - todo.size());
    finished = a.backend == "slurm" ? cluster.run(todo, progress) : run_local(exe, s, lim, jobs, progress, todo);
  } else {
    for (SweepPoint* p : todo) p->status = "stopped";
  }
  if (const int rc = write_tables(*dir, exe, s, points); rc != kExitOk) return rc;
  if (!finished) {
    std::cerr << "sweep stopped by signal " << stop_signal() << "; its runs were stopped; run it again to resume\n";
    return 128 + stop_signal();
  }
  report_failures(points);
  std::cout << "summary: " << (out / "summary.csv").string() << "\n";
  const bool all_ok = std::all_of(points.begin(), points.end(), [](const SweepPoint& p) { return p.status == "ok"; });
  return all_ok ? kExitOk : kExitModelError;
}

}  // namespace arbsim
