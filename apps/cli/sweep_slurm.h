// The Slurm backend of `pcie-arbsim sweep` (--backend slurm; docs/sweeps.md): the points to
// run go to a job array, K points per array task, from a manifest of self-contained commands
// (absolute paths: the nodes must see the binary, the configs and DIR at the same paths); the
// sweep follows the array with squeue, collects each point as its task records its exit,
// resubmits points whose task was lost, and on resume follows the arrays an earlier sweep
// left running instead of submitting them again.
#pragma once
#include <filesystem>
#include <string>
#include <vector>
#include "apps/cli/sweep_point.h"

namespace arbsim {

class SlurmBackend {
 public:
  SlurmBackend(std::string exe, const SweepSpec& s, const SweepLimits& lim, const SlurmOptions& opt,
               const std::filesystem::path& out);

  // "" when sbatch, squeue and scancel are on PATH; else what is missing.
  static std::string missing_commands();

  // Before the points to run are chosen: follows every array an earlier sweep of DIR left in
  // the queue, then marks complete each point whose task ran it to a good end. Returns false
  // when a signal stopped the sweep.
  bool resume_earlier(std::vector<SweepPoint>& points);

  // Submits `todo`, follows it, resubmits lost points up to --retries times. Returns false
  // when a signal stopped the sweep (the array is cancelled; its points are "stopped").
  bool run(const std::vector<SweepPoint*>& todo, SweepProgress& progress);

  // The sbatch command that would submit `points` points now (--dry-run shows it): the first
  // round's array, limits and options, its task script by name.
  std::string sbatch_line(std::size_t points) const;

 private:
  struct Job {
    std::string id;
    std::vector<SweepPoint*> points;
  };
  std::string submit(const std::vector<SweepPoint*>& todo);
  bool follow(const Job& job, SweepProgress& progress);
  bool collect(SweepPoint& p) const;
  int in_queue(const std::string& job) const;
  std::string task_states(const std::string& job) const;
  void record(const Job& job) const;
  std::vector<std::string> sbatch_argv(std::size_t tasks, int round) const;
  std::string task_script(const std::filesystem::path& manifest) const;

  std::string exe_;
  const SweepSpec& spec_;
  SweepLimits lim_;
  SlurmOptions opt_;
  std::filesystem::path out_, dir_;  // DIR, DIR/slurm
};

}  // namespace arbsim
