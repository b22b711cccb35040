// The local backend (apps/cli/sweep_local.h): a pool of child processes. A child gets a
// SIGTERM from the kernel when the sweep dies, even by SIGKILL (parent-death signal), so no
// run outlives its sweep.
#include "apps/cli/sweep_local.h"
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <map>
#include <thread>

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

// Starts one point as a child process: its console to log.txt, its address space limited,
// and a SIGTERM to it when the sweep dies (also by SIGKILL). Returns -1 on failure.
pid_t spawn(const std::vector<std::string>& argv, const fs::path& log, const SweepLimits& lim) {
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

class Pool {
 public:
  Pool(std::string exe, const SweepSpec& s, SweepLimits lim, int jobs, SweepProgress& progress)
      : exe_(std::move(exe)), spec_(s), lim_(lim), jobs_(jobs), progress_(progress) {}

  bool run(const std::vector<SweepPoint*>& todo) {
    std::size_t next = 0;
    while ((next < todo.size() || !running_.empty()) && !stop_signal()) {
      while (next < todo.size() && static_cast<int>(running_.size()) < jobs_) start(*todo[next++]);
      reap();
      enforce_timeouts();
      if (!running_.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!stop_signal()) return true;
    stop_all();
    for (; next < todo.size(); ++next) todo[next]->status = "stopped";
    return false;
  }

 private:
  struct Child {
    SweepPoint* point;
    Clock::time_point deadline;
    bool timed_out = false;
  };

  void start(SweepPoint& p) {
    std::error_code ec;
    fs::create_directories(p.dir, ec);
    fs::remove(p.dir / "point.json", ec);
    const pid_t pid = spawn(run_argv(exe_, spec_, *p.run, p.dir.string()), p.dir / "log.txt", lim_);
    if (pid < 0) {
      p.status = "failed";
      p.detail = "could not start the process";
      progress_.finished(false);
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
      progress_.finished(c.point->status == "ok");
    }
  }

  void classify(SweepPoint& p, int status, bool timed_out) {
    if (timed_out) {
      p.status = "timeout";
      p.detail = "stopped after " + fmt_duration(lim_.timeout_s) + " (--timeout)";
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      finish_ok_run(p);
    } else {
      classify_failed_run(p, WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                               : "killed by signal " + std::to_string(WTERMSIG(status)));
    }
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
  SweepLimits lim_;
  int jobs_;
  SweepProgress& progress_;
  std::map<pid_t, Child> running_;
};

}  // namespace

bool run_local(const std::string& exe, const SweepSpec& s, const SweepLimits& lim, int jobs, SweepProgress& progress,
               const std::vector<SweepPoint*>& todo) {
  Pool pool(exe, s, lim, jobs, progress);
  return pool.run(todo);
}

}  // namespace arbsim
