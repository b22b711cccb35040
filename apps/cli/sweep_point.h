// One point of a sweep and what every backend (local processes, Slurm) shares about it: its
// key (effective config hash + simulator version), when it is complete, the command that runs
// it, its limits, the progress line, and the signal that stops the sweep. docs/sweeps.md.
#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>
#include "apps/cli/sweep.h"

namespace arbsim {

struct SweepPoint {
  const SweepRun* run = nullptr;
  std::filesystem::path dir;        // DIR/runs/ID
  std::string config_hash, key;     // key: hash of config hash + simulator version
  std::string elements;             // hash of what its elements run with (elements_yaml)
  std::string status = "pending";   // ok, failed, timeout, out_of_memory, stopped
  std::string detail;
};

struct SweepLimits {
  double timeout_s = 3600;
  uint64_t memory_bytes = 0;        // 0 = none
  bool memory_given = false;        // by --mem-limit or the spec (else a local default)
};

// Every point's config validated and hashed; throws ConfigError naming the run.
std::vector<SweepPoint> make_points(const SweepSpec& s, const std::filesystem::path& out);

// Complete for its key: point.json names the key and results.json parses with the same hash.
bool point_complete(const SweepPoint& p);
void write_point_mark(const SweepPoint& p);  // throws OutputError

// A run that exited 0: marked complete when its results carry its config hash, else failed.
void finish_ok_run(SweepPoint& p);
// The status and detail of a run that exited with `code` (not 0): out_of_memory when its log
// says so, else failed.
void classify_failed_run(SweepPoint& p, const std::string& how);

// The JSON in `p`, or null when it is missing, unreadable or not JSON.
nlohmann::json read_json_file(const std::filesystem::path& p);

// argv of `pcie-arbsim run BASE -s ... --out OUT`, and the same as one shell-quoted line with
// BASE and OUT absolute (runs.txt, --dry-run and the Slurm manifest use it).
std::vector<std::string> run_argv(const std::string& exe, const SweepSpec& s, const SweepRun& r,
                                  const std::string& out);
std::string shell_quote(const std::string& s);
std::string fmt_duration(double seconds);

// The progress bar and ETA on stderr, one update per finished point.
class SweepProgress {
 public:
  SweepProgress(std::size_t total, std::size_t skipped) : total_(total), done_(skipped), skipped_(skipped) {}
  void finished(bool ok);

 private:
  std::size_t total_, done_, skipped_, failed_ = 0;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

// SIGINT, SIGTERM and SIGHUP stop the sweep: stop_signal() says which arrived (0: none).
void install_stop_handlers();
int stop_signal();

}  // namespace arbsim
