// `pcie-arbsim sweep`: runs every run of a spec as its own `pcie-arbsim run` process, N at a
// time, with a progress bar and ETA; skips runs already complete; reports failed runs with
// their logs without stopping the others; gathers DIR/summary.csv. DIR/runs.txt lists one
// self-contained command per run, for a cluster backend to execute instead.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>
#include <nlohmann/json.hpp>
#include "apps/cli.h"
#include "apps/sweep.h"
#include "platforms/config.h"
#include "platforms/config_reader.h"

extern char** environ;

namespace arbsim {

namespace fs = std::filesystem;

namespace {

std::string shell_quote(const std::string& s) {
  if (s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,") ==
      std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::vector<std::string> run_argv(const std::string& exe, const SweepSpec& s, const SweepRun& r,
                                  const std::string& out) {
  std::vector<std::string> v = {exe, "run", s.base};
  for (const std::string& o : r.overrides) {
    v.push_back("-s");
    v.push_back(o);
  }
  v.push_back("--out");
  v.push_back(out);
  return v;
}

pid_t spawn(const std::vector<std::string>& argv, const std::string& log) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  return rc == 0 ? pid : -1;
}

std::string fmt_duration(double s) {
  char b[32];
  if (s >= 60) std::snprintf(b, sizeof b, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  else std::snprintf(b, sizeof b, "%.0fs", s);
  return b;
}

class Progress {
 public:
  Progress(std::size_t total, std::size_t skipped) : total_(total), done_(skipped), skipped_(skipped) {}
  void finished(bool ok) {
    ++done_;
    if (!ok) ++failed_;
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    const std::size_t ran = done_ - skipped_, left = total_ - done_;
    const double eta = ran ? el / ran * left : 0;
    const int width = 30, fill = static_cast<int>(width * done_ / std::max<std::size_t>(total_, 1));
    char line[160];
    std::snprintf(line, sizeof line, "[%s%s] %zu/%zu runs, %zu failed, elapsed %s, ETA %s",
                  std::string(fill, '#').c_str(), std::string(width - fill, '.').c_str(), done_, total_, failed_,
                  fmt_duration(el).c_str(), fmt_duration(eta).c_str());
    std::cerr << (isatty(2) ? "\r" : "") << line << (isatty(2) && left ? "" : "\n") << std::flush;
  }

 private:
  std::size_t total_, done_, skipped_, failed_ = 0;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

// Runs `todo` with at most `jobs` processes at once; returns the ids that failed.
std::vector<std::string> execute(const std::string& exe, const SweepSpec& s, const std::vector<const SweepRun*>& todo,
                                 const fs::path& out, int jobs, Progress& progress) {
  std::map<pid_t, const SweepRun*> running;
  std::vector<std::string> failed;
  std::size_t next = 0;
  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() && static_cast<int>(running.size()) < jobs) {
      const SweepRun* r = todo[next++];
      const fs::path dir = out / "runs" / r->id;
      fs::create_directories(dir);
      const pid_t pid = spawn(run_argv(exe, s, *r, dir.string()), (dir / "log.txt").string());
      if (pid < 0) {
        failed.push_back(r->id);
        progress.finished(false);
      } else {
        running[pid] = r;
      }
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) break;
    const SweepRun* r = running[pid];
    running.erase(pid);
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!ok) failed.push_back(r->id);
    progress.finished(ok);
  }
  return failed;
}

std::string csv_field(const std::string& v) {
  if (v.find_first_of(",\"\n") == std::string::npos) return v;
  std::string q = "\"";
  for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string json_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

void write_summary(const SweepSpec& s, const fs::path& out, const std::vector<std::string>& failed) {
  const char* app_keys[] = {"name", "iterations", "throughput_gbps", "p50_ns", "p99_ns", "deadlines_met",
                            "deadlines_missed"};
  std::vector<nlohmann::json> results(s.runs.size());
  std::size_t max_apps = 0;
  for (std::size_t i = 0; i < s.runs.size(); ++i) {
    std::ifstream in(out / "runs" / s.runs[i].id / "results.json");
    if (in) results[i] = nlohmann::json::parse(in, nullptr, false);
    if (results[i].is_object()) max_apps = std::max(max_apps, results[i]["apps"].size());
  }
  std::ofstream csv(out / "summary.csv");
  csv << "run,status";
  for (const std::string& k : s.varied_keys) csv << "," << csv_field(k);
  csv << ",policy,sim_time_ns,makespan_ns,tlp_hops,bytes_delivered";
  for (std::size_t a = 0; a < max_apps; ++a)
    for (const char* k : app_keys) csv << ",app" << a << "." << k;
  csv << "\n";
  for (std::size_t i = 0; i < s.runs.size(); ++i) {
    const SweepRun& r = s.runs[i];
    const bool ok = results[i].is_object();
    const bool bad = std::find(failed.begin(), failed.end(), r.id) != failed.end();
    csv << r.id << "," << (bad ? "failed" : ok ? "ok" : "missing");
    std::map<std::string, std::string> vals;
    for (const std::string& o : r.varied) vals[o.substr(0, o.find('='))] = o.substr(o.find('=') + 1);
    for (const std::string& k : s.varied_keys) csv << "," << csv_field(vals[k]);
    const nlohmann::json& j = results[i];
    for (const char* k : {"policy", "sim_time_ns", "makespan_ns", "tlp_hops", "bytes_delivered"})
      csv << "," << (ok && j.contains(k) ? csv_field(json_text(j[k])) : "");
    for (std::size_t a = 0; a < max_apps; ++a)
      for (const char* k : app_keys) {
        const bool has = ok && a < j["apps"].size() && j["apps"][a].contains(k);
        csv << "," << (has ? csv_field(json_text(j["apps"][a][k])) : "");
      }
    csv << "\n";
  }
}

// Every run's config must validate before anything runs: a bad override is bad input.
void validate_runs(const SweepSpec& s) {
  for (const SweepRun& r : s.runs) {
    try {
      load_config(s.base, r.overrides);
    } catch (const ConfigError& e) {
      throw ConfigError(s.file + ": run " + r.id + ": " + e.what());
    }
  }
}

void report_failures(const fs::path& out, const std::vector<std::string>& failed) {
  for (const std::string& id : failed) {
    const fs::path log = out / "runs" / id / "log.txt";
    std::cerr << "run " << id << " failed; log " << log.string() << ":\n";
    std::ifstream in(log);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    for (std::size_t i = lines.size() > 5 ? lines.size() - 5 : 0; i < lines.size(); ++i)
      std::cerr << "  " << lines[i] << "\n";
  }
}

}  // namespace

std::string sweep_command(const std::string& exe, const SweepSpec& s, const SweepRun& r, const std::string& out) {
  std::string cmd;
  for (const std::string& a : run_argv(exe, s, r, out)) cmd += (cmd.empty() ? "" : " ") + shell_quote(a);
  return cmd;
}

int cmd_sweep(const SweepArgs& a) {
  SweepSpec s;
  try {
    s = load_sweep_spec(a.spec);
    validate_runs(s);
  } catch (const ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  }
  const fs::path out = a.out_dir.empty() ? fs::path("runs") / fs::path(a.spec).stem() : fs::path(a.out_dir);
  fs::create_directories(out / "runs");
  const std::string exe = fs::read_symlink("/proc/self/exe").string();
  {
    std::ofstream list(out / "runs.txt");
    for (const SweepRun& r : s.runs) list << sweep_command(exe, s, r, (out / "runs" / r.id).string()) << "\n";
  }
  std::vector<const SweepRun*> todo;
  for (const SweepRun& r : s.runs)
    if (!fs::exists(out / "runs" / r.id / "results.json")) todo.push_back(&r);
  const int jobs = a.jobs > 0 ? a.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::cerr << "sweep " << a.spec << ": " << s.runs.size() << " runs, " << s.runs.size() - todo.size()
            << " already complete, " << jobs << " at a time -> " << out.string() << "\n";
  Progress progress(s.runs.size(), s.runs.size() - todo.size());
  const std::vector<std::string> failed = execute(exe, s, todo, out, jobs, progress);
  write_summary(s, out, failed);
  report_failures(out, failed);
  std::cout << "summary: " << (out / "summary.csv").string() << "\n";
  return failed.empty() ? kExitOk : kExitModelError;
}

}  // namespace arbsim
