// The Slurm backend (apps/cli/sweep_slurm.h). Each array task runs its lines of the manifest
// one after the other, each under the sweep's per-point limits (timeout(1), ulimit -v), its
// console to the point's log.txt, and records the exit status in the point's `exit` file
// (written to a temporary and renamed, so a follower never reads half of it). The sweep never
// trusts a status alone: a point is complete only when its results.json carries its config
// hash (apps/cli/sweep_point.h). DIR/slurm/ keeps the manifests, task scripts, the tasks'
// own logs and jobs.json (every array submitted for DIR), which a resumed sweep reads.
#include "apps/cli/sweep_slurm.h"
#include <sys/wait.h>
#include <unistd.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>
#include "apps/cli/output_dir.h"
#include "platforms/config/reader.h"

namespace arbsim {

namespace fs = std::filesystem;

namespace {

// Runs `argv` through /bin/sh, stdout and stderr captured; returns its exit status (-1 when
// it could not start).
int capture(const std::vector<std::string>& argv, std::string* out) {
  std::string cmd;
  for (const std::string& a : argv) cmd += (cmd.empty() ? "" : " ") + shell_quote(a);
  cmd += " 2>&1 </dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  out->clear();
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out->append(buf, n);
  const int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool on_path(const std::string& prog) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string d; std::getline(dirs, d, ':');)
    if (!d.empty() && access((fs::path(d) / prog).c_str(), X_OK) == 0) return true;
  return false;
}

std::string first_line(const std::string& text) {
  const std::string line = text.substr(0, text.find('\n'));
  return line.empty() ? "(no output)" : line;
}

// Sleeps `seconds` in short steps, waking early when a stop signal arrives.
void nap(double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until && !stop_signal())
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

// The point's recorded exit status, or -1 when its task has not recorded one.
int recorded_exit(const SweepPoint& p) {
  std::string text;
  try {
    text = read_text_file((p.dir / "exit").string());
  } catch (const ConfigError&) {
    return -1;
  }
  char* end = nullptr;
  const long code = std::strtol(text.c_str(), &end, 10);
  return end != text.c_str() && code >= 0 && code < 256 ? static_cast<int>(code) : -1;
}

// A point worth submitting again: its task never recorded an exit (lost with its node, a
// cluster time limit, a cancelled task) or the run was killed by a signal from outside.
bool retryable(const SweepPoint& p) { return p.status == "lost" || p.detail.rfind("killed by signal", 0) == 0; }

}  // namespace

SlurmBackend::SlurmBackend(std::string exe, const SweepSpec& s, const SweepLimits& lim, const SlurmOptions& opt,
                           const fs::path& out)
    : exe_(std::move(exe)), spec_(s), lim_(lim), opt_(opt), out_(fs::absolute(out).lexically_normal()),
      dir_(out_ / "slurm") {}

std::string SlurmBackend::missing_commands() {
  std::string missing;
  for (const char* prog : {"sbatch", "squeue", "scancel"})
    if (!on_path(prog)) missing += (missing.empty() ? "" : ", ") + std::string(prog);
  return missing;
}

std::string SlurmBackend::task_script(const fs::path& manifest) const {
  const long timeout_s = std::lround(std::ceil(lim_.timeout_s));
  std::ostringstream sh;
  sh << "#!/bin/bash\n"
     << "# Written by pcie-arbsim sweep --backend slurm: array task i runs lines i*K+1 .. i*K+K of the\n"
     << "# manifest (point id, run directory, command), each under the per-point limits.\n"
     << "manifest=" << shell_quote(manifest.string()) << "\n"
     << "k=" << opt_.points_per_task << "\n"
     << "first=$((SLURM_ARRAY_TASK_ID * k + 1))\n"
     << "sed -n \"${first},$((first + k - 1))p\" \"$manifest\" | while IFS=$'\\t' read -r id dir cmd; do\n"
     << "  mkdir -p \"$dir\" && rm -f \"$dir/exit\" \"$dir/point.json\"\n"
     << "  (";
  if (lim_.memory_given) sh << "ulimit -v " << (lim_.memory_bytes >> 10) << "; ";
  sh << "exec timeout -k 10 " << timeout_s << " bash -c \"$cmd\") </dev/null >\"$dir/log.txt\" 2>&1\n"
     << "  echo $? >\"$dir/exit.tmp\" && mv \"$dir/exit.tmp\" \"$dir/exit\"\n"
     << "done\n";
  return sh.str();
}

std::vector<std::string> SlurmBackend::sbatch_argv(std::size_t tasks, int round) const {
  // The array's wall time: K points at their limit each, plus a minute to start and record.
  const long minutes = std::lround(std::ceil(opt_.points_per_task * lim_.timeout_s / 60.0)) + 1;
  std::string array = "0-" + std::to_string(tasks - 1);
  if (opt_.throttle > 0) array += "%" + std::to_string(opt_.throttle);
  std::vector<std::string> v = {"sbatch", "--parsable", "--array=" + array, "--ntasks=1",
                                "--job-name=arbsim-" + fs::path(spec_.file).stem().string(),
                                "--time=" + std::to_string(minutes), "--chdir=" + dir_.string(),
                                "--output=" + (dir_ / ("task-" + std::to_string(round) + "-%A_%a.log")).string()};
  if (lim_.memory_given) v.push_back("--mem=" + std::to_string((lim_.memory_bytes >> 20) + 64) + "M");
  if (!opt_.partition.empty()) v.push_back("--partition=" + opt_.partition);
  if (!opt_.account.empty()) v.push_back("--account=" + opt_.account);
  v.insert(v.end(), opt_.sbatch_args.begin(), opt_.sbatch_args.end());
  return v;
}

std::string SlurmBackend::sbatch_line(std::size_t points) const {
  const std::size_t tasks = (points + opt_.points_per_task - 1) / opt_.points_per_task;
  std::vector<std::string> argv = sbatch_argv(tasks, 1);
  argv.push_back((dir_ / "task-1.sh").string());
  std::string line;
  for (const std::string& a : argv) line += (line.empty() ? "" : " ") + shell_quote(a);
  return line;
}

// Writes this round's manifest and task script and submits the array; returns the job id,
// or "" with every point of `todo` failed and the reason in its detail.
std::string SlurmBackend::submit(const std::vector<SweepPoint*>& todo) {
  const nlohmann::json jobs = read_json_file(dir_ / "jobs.json");
  const int round = (jobs.is_object() && jobs.contains("jobs") ? static_cast<int>(jobs["jobs"].size()) : 0) + 1;
  const fs::path manifest = dir_ / ("manifest-" + std::to_string(round) + ".tsv");
  const fs::path script = dir_ / ("task-" + std::to_string(round) + ".sh");
  std::string lines;
  for (const SweepPoint* p : todo)
    lines += p->run->id + "\t" + fs::absolute(p->dir).lexically_normal().string() + "\t" +
             sweep_command(exe_, spec_, *p->run, p->dir.string()) + "\n";
  std::string why, out;
  try {
    fs::create_directories(dir_);
    OutputDir::write_file(manifest, lines);
    OutputDir::write_file(script, task_script(manifest));
    fs::permissions(script, fs::perms::owner_exec, fs::perm_options::add);
  } catch (const std::exception& e) {
    why = e.what();
  }
  const std::size_t tasks = (todo.size() + opt_.points_per_task - 1) / opt_.points_per_task;
  std::vector<std::string> argv = sbatch_argv(tasks, round);
  argv.push_back(script.string());
  if (why.empty() && capture(argv, &out) != 0) why = "sbatch: " + first_line(out);
  const std::string id = out.substr(0, out.find_first_of(";\n"));
  if (why.empty() && (id.empty() || id.find_first_not_of("0123456789") != std::string::npos))
    why = "sbatch printed no job id: " + first_line(out);
  if (!why.empty()) {
    for (SweepPoint* p : todo) {
      p->status = "failed";
      p->detail = why;
    }
    return "";
  }
  std::cerr << "sweep: Slurm job " << id << ", " << tasks << " array tasks of up to " << opt_.points_per_task
            << " points (" << todo.size() << " points); its logs in " << dir_.string() << "\n";
  return id;
}

// Appends `job` to DIR/slurm/jobs.json, so a resumed sweep can follow it.
void SlurmBackend::record(const Job& job) const {
  nlohmann::json all = read_json_file(dir_ / "jobs.json");
  if (!all.is_object() || !all.contains("jobs") || !all["jobs"].is_array()) all = {{"jobs", nlohmann::json::array()}};
  nlohmann::json ids = nlohmann::json::array();
  for (const SweepPoint* p : job.points) ids.push_back(p->run->id);
  all["jobs"].push_back({{"id", job.id}, {"points", ids}});
  OutputDir::write_file(dir_ / "jobs.json", all.dump(2) + "\n");
}

// 1 when `job` still has tasks in the queue, 0 when it has none, -1 when squeue failed.
int SlurmBackend::in_queue(const std::string& job) const {
  std::string out;
  const int rc = capture({"squeue", "-h", "-j", job, "-o", "%i"}, &out);
  if (rc == 0) return out.find_first_not_of(" \n") != std::string::npos ? 1 : 0;
  return out.find("Invalid job id") != std::string::npos ? 0 : -1;  // purged: long gone
}

// What sacct says of the tasks of `job` (one line per state), or "" without accounting.
std::string SlurmBackend::task_states(const std::string& job) const {
  if (!on_path("sacct")) return "";
  std::string out;
  if (capture({"sacct", "-n", "-P", "-X", "-j", job, "-o", "JobID,State"}, &out) != 0) return "";
  std::map<std::string, int> states;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (line.find('|') != std::string::npos) ++states[line.substr(line.find('|') + 1)];
  std::string text;
  for (const auto& [state, n] : states) text += (text.empty() ? "" : ", ") + std::to_string(n) + " " + state;
  return text;
}

// Reads the point's recorded exit; false while its task has not recorded one.
bool SlurmBackend::collect(SweepPoint& p) const {
  const int code = recorded_exit(p);
  if (code < 0) return false;
  if (code == 0) {
    finish_ok_run(p);
  } else if (code == 124) {
    p.status = "timeout";
    p.detail = "stopped after " + fmt_duration(lim_.timeout_s) + " (--timeout)";
  } else {
    classify_failed_run(p, code > 128 ? "killed by signal " + std::to_string(code - 128) : "exit " + std::to_string(code));
  }
  return true;
}

// Polls until every point of `job` has recorded an exit or the array has left the queue;
// points it left unrun are "lost". False when a signal stopped the sweep (array cancelled).
bool SlurmBackend::follow(const Job& job, SweepProgress& progress) {
  std::vector<SweepPoint*> waiting = job.points;
  bool warned = false;
  while (!waiting.empty()) {
    const int queued = in_queue(job.id);  // asked before collecting: a task may finish in between
    std::vector<SweepPoint*> still;
    for (SweepPoint* p : waiting)
      if (collect(*p)) progress.finished(p->status == "ok");
      else still.push_back(p);
    waiting.swap(still);
    if (waiting.empty() || queued == 0) break;
    if (queued < 0 && !warned) {
      std::cerr << "sweep: squeue does not answer for job " << job.id << "; still waiting\n";
      warned = true;
    }
    nap(opt_.poll_s);
    if (stop_signal()) {
      std::string ignored;
      capture({"scancel", job.id}, &ignored);
      for (SweepPoint* p : waiting) p->status = "stopped";
      return false;
    }
  }
  const std::string states = waiting.empty() ? "" : task_states(job.id);
  for (SweepPoint* p : waiting) {
    p->status = "lost";
    p->detail = "its Slurm task ended without recording an exit (job " + job.id +
                (states.empty() ? "" : ": " + states) + ")";
  }
  return true;
}

bool SlurmBackend::resume_earlier(std::vector<SweepPoint>& points) {
  const nlohmann::json all = read_json_file(dir_ / "jobs.json");
  std::map<std::string, SweepPoint*> by_id;
  for (SweepPoint& p : points) by_id[p.run->id] = &p;
  if (all.is_object() && all.contains("jobs") && all["jobs"].is_array())
    for (const nlohmann::json& j : all["jobs"]) {
      Job job{j.value("id", ""), {}};
      if (job.id.empty() || in_queue(job.id) != 1) continue;
      if (j.contains("points") && j["points"].is_array())
        for (const nlohmann::json& id : j["points"])
          if (id.is_string() && by_id.count(id.get<std::string>())) job.points.push_back(by_id[id.get<std::string>()]);
      std::cerr << "sweep: following Slurm job " << job.id << " of an earlier sweep of this directory ("
                << job.points.size() << " points)\n";
      SweepProgress progress(job.points.size(), 0);
      if (!follow(job, progress)) return false;
    }
  for (SweepPoint& p : points)
    if (!point_complete(p) && recorded_exit(p) == 0) finish_ok_run(p);
  for (SweepPoint& p : points) p.status = "pending";  // the caller decides again from point_complete
  return true;
}

bool SlurmBackend::run(const std::vector<SweepPoint*>& todo, SweepProgress& progress) {
  std::vector<SweepPoint*> batch = todo;
  for (int round = 0; !batch.empty(); ++round) {
    Job job{submit(batch), batch};
    if (job.id.empty()) {
      for (std::size_t i = 0; i < batch.size(); ++i) progress.finished(false);
      return true;
    }
    record(job);
    if (!follow(job, progress)) return false;
    std::vector<SweepPoint*> again;
    for (SweepPoint* p : batch)
      if (retryable(*p)) again.push_back(p);
    if (round >= opt_.retries) {
      for (SweepPoint* p : again) {
        if (p->status == "lost") progress.finished(false);
        p->status = "failed";
      }
      break;
    }
    for (SweepPoint* p : again) p->status = "pending";
    if (!again.empty())
      std::cerr << "sweep: submitting again " << again.size() << " lost or killed points\n";
    batch.swap(again);
  }
  return true;
}

}  // namespace arbsim
