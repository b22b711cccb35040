// `pcie-arbsim sweep SPEC.yaml [-j N] [--out DIR] [--backend local|slurm]`: a list or cartesian
// product of `-s` overrides on one base config, run as parallel local processes or as a Slurm
// job array. docs/sweeps.md.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace arbsim {

struct SweepRun {
  std::string id;                       // r0001, r0002, ... in spec order
  std::vector<std::string> overrides;   // dotted.key=value, common ones first
  std::vector<std::string> varied;      // the overrides that differ between runs (for the CSV)
};

// Where and how a Slurm job array runs (spec `slurm:`, overridden by the command line).
struct SlurmOptions {
  std::string partition, account;       // "" = the cluster's default
  int points_per_task = 1;              // K points run one after the other by each array task
  int throttle = 0;                     // array tasks at once (`%N`); 0 = the cluster's limit
  std::vector<std::string> sbatch_args; // passed to sbatch as they are
  double poll_s = 10;                   // seconds between squeue polls
  int retries = 1;                      // times a point whose task was lost is submitted again
};

struct SweepSpec {
  std::string file, base;               // base: resolved against the spec's directory
  std::vector<SweepRun> runs;
  std::vector<std::string> varied_keys; // CSV columns, in first-seen order
  std::string timeout, memory;          // `limits:` per point, as text ("" = not given)
  SlurmOptions slurm;                   // `slurm:`
};

// Reads and expands a spec; throws ConfigError (file, key, line, reason).
SweepSpec load_sweep_spec(const std::string& path);

// A per-point limit as written (the spec's `limits:` or the command line's flag): into
// seconds or bytes; "" when it is valid, else what it should be.
std::string parse_timeout(const std::string& text, double* seconds);
std::string parse_memory_limit(const std::string& text, uint64_t* bytes);

struct SweepArgs {
  std::string spec, out_dir;
  int jobs = 0;             // 0 = one per core
  std::string timeout;      // per point, e.g. "10m"; "" = the spec's limits.timeout, else 1 h
  std::string mem_limit;    // per point, e.g. "4GiB"; "" = the spec's limits.memory, else RAM / jobs
  bool dry_run = false;     // list the points and what would run; run and write nothing
  std::string backend = "local";  // local | slurm
  // Command-line settings of the Slurm backend, each over the spec's `slurm:` when given.
  std::string partition, account;
  int points_per_task = 0, retries = -1;
  double poll_s = 0;
  std::vector<std::string> sbatch_args;
};

int cmd_sweep(const SweepArgs& a);

// One shell-quoted command line that runs `r` on its own (the cluster-backend contract).
std::string sweep_command(const std::string& exe, const SweepSpec& s, const SweepRun& r, const std::string& out);

}  // namespace arbsim
