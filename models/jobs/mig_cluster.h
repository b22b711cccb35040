// The job level of seed 001 (§4): GPUs split into MIG instances, jobs that each run on one
// instance, and the scheduler's view of them - which job runs where, and what the
// performance model (Eq. 1-3, mig_perf_model.h) predicts for each. Schedulers
// (mig_scheduler.h) read and change it. Plain C++, times in seconds, no SystemC.
#pragma once
#include <map>
#include <vector>
#include "models/gpu/gpu_params.h"
#include "models/jobs/mig_perf_model.h"

namespace arbsim::jobs {

// A job as seed 001 Table 1 describes it (its profile is the scheduler's input).
struct MigJob {
  int id = 0;
  double arrival_s = 0;
  int slices = 1;                // the MIG instance size it asks for (1g .. 7g)
  double work = 0;               // tokens
  double base_throughput = 1;    // tokens/s alone on its instance
  double pcie_demand_GBps = 0;   // 0: not PCIe-bound
  double alpha = 1;              // Eq. 1's sensitivity
  bool pcie_bound() const { return pcie_demand_GBps > 0; }
};

struct MigInstance {
  int slices = 1;
  int job = -1;  // the job on it, -1 = free
};

struct MigGpu {
  std::vector<MigInstance> instances;
  bool marked = false;           // to be reconfigured once idle (§4.2 stage 3)
  double ready_s = 0;            // a reconfiguration ends then
};

struct Placement {
  int job = -1, gpu = -1, instance = -1;
};

class MigCluster {
 public:
  // `gpus` GPUs, each split as `partition` (slices per instance), `slices` per GPU.
  MigCluster(int gpus, const std::vector<int>& partition, double pcie_max_GBps, int slices = 7);

  int gpu_count() const { return static_cast<int>(gpus_.size()); }
  const MigGpu& gpu(int g) const { return gpus_.at(static_cast<std::size_t>(g)); }
  int slices_per_gpu() const { return slices_; }
  double pcie_max_GBps() const { return pcie_max_; }

  bool ready(int g, double now) const { return gpu(g).ready_s <= now; }
  bool idle(int g) const;                       // no job on it
  int free_instance(int g, int slices) const;   // exactly that size, lowest index; -1
  int best_fit_instance(int g, int slices) const;  // the smallest free one at least that size; -1
  int free_slices(int g) const;
  int free_count(int slices) const;           // free instances of exactly that size, all GPUs
  int free_count_at_least(int slices) const;  // free instances of that size or larger
  // Instances of exactly that size (`exact`) or of that size or larger, free or busy, all
  // GPUs: whether the existing configurations hold the size (§4.2 principle 3).
  int instance_count_at_least(int slices, bool exact) const;
  int pcie_jobs(int g) const;                   // PCIe-bound jobs running on it
  // Eq. 2 for `j` on GPU g, counting j among its PCIe-bound jobs.
  double slowdown_on(const MigJob& j, int g) const;
  // Eq. 3: when `j` would end on g if started now; and the latest predicted end of the jobs
  // running on g (now when idle): its "estimated end time" (§4.2 stage 3).
  double predicted_end(const MigJob& j, int g, double now) const;
  double gpu_end(int g, double now) const;

  // The scheduler's records (§4.2 stage 1): each running job's remaining work, brought up
  // to `now` at the rate Eq. 2-3 predicts.
  void update(double now);
  void start(const MigJob& j, const Placement& p, double now);
  void finish(int job, double now);
  void mark(int g, bool on) {
    bool& m = gpus_.at(static_cast<std::size_t>(g)).marked;
    marked_ += (on ? 1 : 0) - (m ? 1 : 0);
    m = on;
  }
  int marked_count() const { return marked_; }
  // An idle GPU re-split as `partition`; usable again after `cost_s`.
  void reconfigure(int g, const std::vector<int>& partition, double now, double cost_s);
  double remain_work(int job) const { return running_.at(job).remain; }
  int running() const { return static_cast<int>(running_.size()); }
  const std::vector<int>& jobs_on(int g) const { return jobs_on_.at(static_cast<std::size_t>(g)); }

 private:
  struct Running {
    MigJob job;
    int gpu = 0, instance = 0;
    double remain = 0, since = 0;
  };
  double rate(const Running& r) const;  // tokens/s predicted now
  double remain_at(const Running& r, double now) const { return r.remain - (now - r.since) * rate(r); }
  void update_gpu(int g, double now);   // its jobs' records brought up to now (their rates change)
  void count_free(const MigGpu& g, int sign);

  std::vector<MigGpu> gpus_;
  std::vector<int> pcie_count_;               // [GPU] PCIe-bound jobs running
  std::vector<std::vector<int>> jobs_on_;     // [GPU] running job ids
  std::map<int, int> free_by_size_;           // instance size -> free instances, all GPUs
  std::map<int, int> all_by_size_;            // instance size -> instances, free or busy
  int marked_ = 0;                             // GPUs marked
  int slices_;
  double pcie_max_;
  std::map<int, Running> running_;  // by job id
};

// A valid split of a GPU of `slices` slices: instances of offered sizes (mig_size_offered)
// adding up to at most `slices`.
bool valid_partition(const std::vector<int>& partition, int slices);

}  // namespace arbsim::jobs
