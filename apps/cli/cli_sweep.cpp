// `pcie-arbsim sweep`: runs every point of a spec as its own `pcie-arbsim run` process, N at
// a time, with a progress bar and ETA. A point is keyed by its effective config's hash and
// the simulator's version: a resumed sweep skips exactly the points whose results are
// complete (results.json parses and carries that hash) for this key, and re-runs any other.
// Each point runs under a wall-time and an address-space limit, reported as its failure;
// killing the sweep (SIGINT, SIGTERM, or SIGKILL through the children's parent-death
// signal) stops its runs; the output directory is locked. DIR/runs.txt lists one
// self-contained command per point, for a cluster backend to execute instead.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>
#include <nlohmann/json.hpp>
#include "apps/cli/cli.h"
#include "apps/cli/output_dir.h"
#include "apps/cli/sweep.h"
#include "platforms/config/config.h"
#include "platforms/config/reader.h"
#include "apps/run/version.h"

namespace arbsim {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// AddressSanitizer reserves terabytes of address space for its shadow memory, so an
// address-space limit would stop every run of a sanitizer build: none is set there.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitizerBuild = true;
#else
constexpr bool kSanitizerBuild = false;
#endif

volatile sig_atomic_t g_stop_signal = 0;
void on_stop_signal(int sig) { g_stop_signal = sig; }

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

std::string fnv_hex(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

// One point: its run, where it goes, and its key (config hash + simulator version).
struct Point {
  const SweepRun* run = nullptr;
  fs::path dir;
  std::string config_hash, key;
  std::string status = "pending";  // ok, failed, timeout, out_of_memory, stopped
  std::string detail;
};

struct Limits {
  double timeout_s = 3600;
  uint64_t memory_bytes = 0;  // 0 = none
};

nlohmann::json read_json(const fs::path& p) {
  try {
    return nlohmann::json::parse(read_text_file(p.string()), nullptr, false);
  } catch (const ConfigError&) {
    return nlohmann::json();  // missing, a directory, unreadable
  }
}

// Complete for this key: point.json names it and results.json parses with the same hash.
bool complete(const Point& p) {
  const nlohmann::json mark = read_json(p.dir / "point.json");
  if (!mark.is_object() || mark.value("key", "") != p.key) return false;
  const nlohmann::json res = read_json(p.dir / "results.json");
  return res.is_object() && res.value("config_hash", "") == p.config_hash;
}

void write_point_mark(const Point& p) {
  const nlohmann::json mark = {{"key", p.key}, {"config_hash", p.config_hash}, {"version", version()}};
  OutputDir::write_file(p.dir / "point.json", mark.dump(2) + "\n");
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
    const double el = std::chrono::duration<double>(Clock::now() - t0_).count();
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
  Clock::time_point t0_ = Clock::now();
};

// Starts one point as a child process: its console to log.txt, its address space limited,
// and a SIGTERM to it when the sweep dies (also by SIGKILL). Returns -1 on failure.
pid_t spawn(const std::vector<std::string>& argv, const fs::path& log, const Limits& lim) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid != 0) return pid;
  // Child: only async-signal-safe calls until exec.
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(127);
  const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) _exit(127);
  dup2(fd, 1);
  dup2(fd, 2);
  close(fd);
  if (lim.memory_bytes > 0 && !kSanitizerBuild) {
    const rlimit r{lim.memory_bytes, lim.memory_bytes};
    setrlimit(RLIMIT_AS, &r);
  }
  execv(args[0], args.data());
  _exit(127);
}

bool log_says_out_of_memory(const fs::path& log) {
  std::string text;
  try {
    text = read_text_file(log.string());
  } catch (const ConfigError&) {
    return false;
  }
  return text.find("bad_alloc") != std::string::npos || text.find("out of memory") != std::string::npos;
}

// The local process pool: `jobs` points at a time, each within its limits.
class Pool {
 public:
  Pool(std::string exe, const SweepSpec& s, Limits lim, int jobs, Progress& progress)
      : exe_(std::move(exe)), spec_(s), lim_(lim), jobs_(jobs), progress_(progress) {}

  // Runs `todo`; returns false when a signal stopped the sweep (the points left are "stopped").
  bool run(const std::vector<Point*>& todo) {
    std::size_t next = 0;
    while ((next < todo.size() || !running_.empty()) && !g_stop_signal) {
      while (next < todo.size() && static_cast<int>(running_.size()) < jobs_) start(*todo[next++]);
      reap();
      enforce_timeouts();
      if (!running_.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!g_stop_signal) return true;
    stop_all();
    for (; next < todo.size(); ++next) todo[next]->status = "stopped";
    return false;
  }

 private:
  struct Child {
    Point* point;
    Clock::time_point deadline;
    bool timed_out = false;
  };

  void start(Point& p) {
    std::error_code ec;
    fs::create_directories(p.dir, ec);
    fs::remove(p.dir / "point.json", ec);
    const pid_t pid = spawn(run_argv(exe_, spec_, *p.run, p.dir.string()), p.dir / "log.txt", lim_);
    if (pid < 0) {
      finish(p, "failed", "could not start the process");
      return;
    }
    const auto budget = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(lim_.timeout_s));
    running_[pid] = Child{&p, Clock::now() + budget};
  }

  void reap() {
    int status = 0;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
      auto it = running_.find(pid);
      if (it == running_.end()) continue;
      const Child c = it->second;
      running_.erase(it);
      classify(*c.point, status, c.timed_out);
    }
  }

  void classify(Point& p, int status, bool timed_out) {
    if (timed_out) return finish(p, "timeout", "stopped after " + fmt_duration(lim_.timeout_s) + " (--timeout)");
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      try {
        write_point_mark(p);
      } catch (const OutputError& e) {
        return finish(p, "failed", e.what());
      }
      return finish(p, "ok", "");
    }
    if (log_says_out_of_memory(p.dir / "log.txt"))
      return finish(p, "out_of_memory", "exceeded the memory limit (--mem-limit)");
    const std::string how = WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                              : "killed by signal " + std::to_string(WTERMSIG(status));
    finish(p, "failed", how);
  }

  void finish(Point& p, const std::string& status, const std::string& detail) {
    p.status = status;
    p.detail = detail;
    progress_.finished(status == "ok");
  }

  void enforce_timeouts() {
    const auto now = Clock::now();
    for (auto& [pid, c] : running_)
      if (!c.timed_out && now >= c.deadline) {
        c.timed_out = true;
        kill(pid, SIGKILL);
      }
  }

  // The sweep was told to stop: its runs stop too (SIGTERM, then SIGKILL after 5 s).
  void stop_all() {
    for (auto& [pid, c] : running_) kill(pid, SIGTERM);
    const auto hard = Clock::now() + std::chrono::seconds(5);
    while (!running_.empty()) {
      int status = 0;
      const pid_t pid = waitpid(-1, &status, WNOHANG);
      if (pid > 0) {
        if (running_.count(pid)) running_.at(pid).point->status = "stopped";
        running_.erase(pid);
        continue;
      }
      if (pid < 0) break;
      if (Clock::now() >= hard)
        for (auto& [p, c] : running_) kill(p, SIGKILL);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  std::string exe_;
  const SweepSpec& spec_;
  Limits lim_;
  int jobs_;
  Progress& progress_;
  std::map<pid_t, Child> running_;
};

std::string csv_field(const std::string& v) {
  if (v.find_first_of(",\"\n") == std::string::npos) return v;
  std::string q = "\"";
  for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string json_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string summary_csv(const SweepSpec& s, const std::vector<Point>& points) {
  const char* app_keys[] = {"name", "iterations", "throughput_gbps", "p50_ns", "p99_ns", "deadlines_met",
                            "deadlines_missed"};
  std::vector<nlohmann::json> results(points.size());
  std::size_t max_apps = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (points[i].status == "ok") results[i] = read_json(points[i].dir / "results.json");
    if (results[i].is_object() && results[i].contains("apps") && results[i]["apps"].is_array())
      max_apps = std::max(max_apps, results[i]["apps"].size());
  }
  std::ostringstream csv;
  csv << "run,status";
  for (const std::string& k : s.varied_keys) csv << "," << csv_field(k);
  csv << ",config_hash,policy,fidelity,fidelity_notes,sim_time_ns,makespan_ns,tlp_hops,bytes_delivered";
  for (std::size_t a = 0; a < max_apps; ++a)
    for (const char* k : app_keys) csv << ",app" << a << "." << k;
  csv << "\n";
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    const nlohmann::json& j = results[i];
    const bool ok = j.is_object();
    csv << p.run->id << "," << (p.status == "ok" && !ok ? "missing" : p.status);
    std::map<std::string, std::string> vals;
    for (const std::string& o : p.run->varied) vals[o.substr(0, o.find('='))] = o.substr(o.find('=') + 1);
    for (const std::string& k : s.varied_keys) csv << "," << csv_field(vals[k]);
    csv << "," << p.config_hash;
    for (const char* k : {"policy", "fidelity"}) csv << "," << (ok && j.contains(k) ? csv_field(json_text(j[k])) : "");
    csv << "," << (ok && j.contains("fidelity_notes") && j["fidelity_notes"].is_array() ? j["fidelity_notes"].size() : 0);
    for (const char* k : {"sim_time_ns", "makespan_ns", "tlp_hops", "bytes_delivered"})
      csv << "," << (ok && j.contains(k) ? csv_field(json_text(j[k])) : "");
    const bool apps = ok && j.contains("apps") && j["apps"].is_array();
    for (std::size_t a = 0; a < max_apps; ++a)
      for (const char* k : app_keys) {
        const bool has = apps && a < j["apps"].size() && j["apps"][a].is_object() && j["apps"][a].contains(k);
        csv << "," << (has ? csv_field(json_text(j["apps"][a][k])) : "");
      }
    csv << "\n";
  }
  return csv.str();
}

// Every point's config must validate before anything runs (a bad override is bad input);
// its hash is the point's identity.
std::vector<Point> make_points(const SweepSpec& s, const fs::path& out) {
  std::vector<Point> points;
  for (const SweepRun& r : s.runs) {
    Point p;
    p.run = &r;
    p.dir = out / "runs" / r.id;
    try {
      p.config_hash = config_hash(load_config(s.base, r.overrides));
    } catch (const ConfigError& e) {
      throw ConfigError(s.file + ": run " + r.id + ": " + e.what());
    }
    p.key = fnv_hex(p.config_hash + "|" + version());
    points.push_back(p);
  }
  return points;
}

void report_failures(const std::vector<Point>& points) {
  for (const Point& p : points) {
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

// Limits from the command line, else the spec, else 1 h and RAM / jobs.
Limits limits_of(const SweepArgs& a, const SweepSpec& s, int jobs) {
  Limits lim;
  const std::string timeout = !a.timeout.empty() ? a.timeout : s.timeout;
  if (!timeout.empty()) {
    double ns = 0;
    if (!parse_time_ns(timeout, &ns) || !(ns >= 1e9))
      throw ConfigError("timeout " + timeout + ": expected a wall time of at least 1 s (e.g. 600s, 10min, 1h)");
    lim.timeout_s = ns / 1e9;
  }
  const std::string memory = !a.mem_limit.empty() ? a.mem_limit : s.memory;
  if (!memory.empty()) {
    if (!parse_bytes(memory, &lim.memory_bytes) || lim.memory_bytes < (64ull << 20))
      throw ConfigError("memory limit " + memory + ": expected at least 64MiB (e.g. 4GiB)");
  } else {
    const uint64_t ram = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    lim.memory_bytes = std::max<uint64_t>(ram / static_cast<uint64_t>(jobs), 1ull << 30);
  }
  return lim;
}

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
}

// --dry-run: what the sweep would do, one line per point: its id, "complete" (its results
// are there for this config and version) or "to run", its varied overrides, its command.
int dry_run(const std::string& exe, const SweepArgs& a, const SweepSpec& s, const std::vector<Point>& points,
            const fs::path& out, int jobs, const Limits& lim) {
  std::vector<bool> done_at;
  for (const Point& p : points) done_at.push_back(complete(p));
  const auto done = static_cast<std::size_t>(std::count(done_at.begin(), done_at.end(), true));
  std::cout << "sweep " << a.spec << " (dry run): " << points.size() << " points, " << done << " complete, "
            << points.size() - done << " to run, " << jobs << " at a time -> " << out.string() << "; limits per point "
            << fmt_duration(lim.timeout_s) << ", " << (lim.memory_bytes >> 20) << " MiB\n";
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    std::string varied;
    for (const std::string& o : p.run->varied) varied += (varied.empty() ? "" : " ") + o;
    std::cout << p.run->id << "  " << (done_at[i] ? "complete" : "to run  ") << "  " << varied << "\n    "
              << sweep_command(exe, s, *p.run, p.dir.string()) << "\n";
  }
  return kExitOk;
}

}  // namespace

// The command as runs.txt and --dry-run list it: with the base config and the run directory
// absolute, so it runs the same from any directory (a cluster job's, say).
std::string sweep_command(const std::string& exe, const SweepSpec& s, const SweepRun& r, const std::string& out) {
  SweepSpec where = s;
  where.base = fs::absolute(s.base).lexically_normal().string();
  const std::string dir = fs::absolute(out).lexically_normal().string();
  std::string cmd;
  for (const std::string& a : run_argv(exe, where, r, dir)) cmd += (cmd.empty() ? "" : " ") + shell_quote(a);
  return cmd;
}

int cmd_sweep(const SweepArgs& a) {
  SweepSpec s;
  std::vector<Point> points;
  const int jobs = a.jobs > 0 ? a.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const fs::path out = a.out_dir.empty() ? fs::path("runs") / fs::path(a.spec).stem() : fs::path(a.out_dir);
  Limits lim;
  try {
    s = load_sweep_spec(a.spec);
    points = make_points(s, out);
    lim = limits_of(a, s, jobs);
  } catch (const ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  }
  const std::string exe = fs::read_symlink("/proc/self/exe").string();
  if (a.dry_run) return dry_run(exe, a, s, points, out, jobs, lim);
  std::unique_ptr<OutputDir> dir;
  try {
    dir = std::make_unique<OutputDir>(out);
  } catch (const OutputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  }
  std::vector<Point*> todo;
  for (Point& p : points)
    if (complete(p)) p.status = "ok";
    else todo.push_back(&p);
  std::cerr << "sweep " << a.spec << ": " << points.size() << " runs, " << points.size() - todo.size()
            << " already complete, " << jobs << " at a time -> " << out.string() << "\n";
  install_stop_handlers();
  Progress progress(points.size(), points.size() - todo.size());
  Pool pool(exe, s, lim, jobs, progress);
  const bool finished = pool.run(todo);
  try {
    std::string list;
    for (const Point& p : points) list += sweep_command(exe, s, *p.run, p.dir.string()) + "\n";
    dir->stage("runs.txt", list);
    dir->stage("summary.csv", summary_csv(s, points));
    dir->commit();
  } catch (const OutputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitIoError;
  }
  if (!finished) {
    std::cerr << "sweep stopped by signal " << g_stop_signal << "; its runs were stopped; run it again to resume\n";
    return 128 + g_stop_signal;
  }
  report_failures(points);
  std::cout << "summary: " << (out / "summary.csv").string() << "\n";
  const bool all_ok = std::all_of(points.begin(), points.end(), [](const Point& p) { return p.status == "ok"; });
  return all_ok ? kExitOk : kExitModelError;
}

}  // namespace arbsim
