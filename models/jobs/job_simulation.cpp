#include "models/jobs/job_simulation.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include "models/flow/max_min.h"

namespace arbsim::jobs {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

struct Live {
  const MigJob* job = nullptr;
  double remain = 0, rate = 0;
};

class Run {
 public:
  Run(const JobSimConfig& cfg, std::vector<MigJob> jobs)
      : cfg_(cfg), jobs_(std::move(jobs)), cluster_(cfg.gpus, cfg.partition, cfg.pcie_max_GBps, cfg.slices),
        sched_(make_mig_scheduler(cfg.scheduler, cfg.params)) {
    std::stable_sort(jobs_.begin(), jobs_.end(), [](const MigJob& a, const MigJob& b) { return a.arrival_s < b.arrival_s; });
    std::map<int, int> seen;
    for (const MigJob& j : jobs_)
      if (check(j), ++seen[j.id] > 1) throw std::invalid_argument("job " + std::to_string(j.id) + " given twice");
  }

  std::vector<JobResult> go() {
    while (next_ < jobs_.size() || !waiting_.empty() || !live_.empty()) step();
    std::vector<JobResult> out;
    for (const auto& [id, r] : results_) out.push_back(r);
    return out;
  }

 private:
  void check(const MigJob& j) const {
    if (j.slices < 1 || j.slices > cfg_.slices || !(j.work > 0) || !(j.base_throughput > 0) ||
        j.pcie_demand_GBps < 0 || j.pcie_demand_GBps > cfg_.pcie_max_GBps || j.arrival_s < 0)
      throw std::invalid_argument("job " + std::to_string(j.id) + ": needs 1.." + std::to_string(cfg_.slices) +
                                  " slices, work and throughput > 0, a demand within PCIe_max, arrival >= 0");
  }

  // The next arrival, completion or end of a reconfiguration.
  double next_event() const {
    double t = next_ < jobs_.size() ? jobs_[next_].arrival_s : kNever;
    for (const auto& [id, l] : live_) t = std::min(t, now_ + l.remain / l.rate);
    for (int g = 0; g < cluster_.gpu_count(); ++g)
      if (cluster_.gpu(g).ready_s > now_) t = std::min(t, cluster_.gpu(g).ready_s);
    return t;
  }

  void step() {
    const double t = next_event();
    if (t == kNever) throw std::runtime_error("jobs wait with nothing running: the scheduler cannot place them");
    for (auto& [id, l] : live_) l.remain -= (t - now_) * l.rate;
    now_ = t;
    finish_due();
    while (next_ < jobs_.size() && jobs_[next_].arrival_s <= now_) waiting_.push_back(&jobs_[next_++]);
    place();
    rates();
  }

  // Jobs whose end is now (within rounding of the subtraction above).
  void finish_due() {
    for (auto it = live_.begin(); it != live_.end();) {
      if (it->second.remain > 1e-9 * it->second.job->work) {
        ++it;
        continue;
      }
      cluster_.finish(it->first, now_);
      JobResult& r = results_[it->first];
      r.end_s = now_;
      dirty_.insert(r.gpu);
      it = live_.erase(it);
    }
  }

  void place() {
    for (const Placement& p : sched_->schedule(now_, waiting_, cluster_)) {
      const MigJob* j = *std::find_if(waiting_.begin(), waiting_.end(), [&](const MigJob* w) { return w->id == p.job; });
      waiting_.erase(std::find(waiting_.begin(), waiting_.end(), j));
      live_[j->id] = Live{j, j->work, 0};
      const int slices = cluster_.gpu(p.gpu).instances.at(static_cast<std::size_t>(p.instance)).slices;
      results_[j->id] = JobResult{j->id, j->arrival_s, now_, 0, p.gpu, slices};
      dirty_.insert(p.gpu);
    }
  }

  // A GPU's link shared max-min among its PCIe-bound jobs, each capped at its demand; only
  // the GPUs where a job started or ended change (links of different GPUs are independent).
  void rates() {
    for (const int g : dirty_) {
      std::vector<flow::FlowSpec> flows;
      std::vector<Live*> bound;
      for (const int id : cluster_.jobs_on(g)) {
        Live& l = live_.at(id);
        l.rate = l.job->base_throughput;
        if (!l.job->pcie_bound()) continue;
        flows.push_back({{{0, 1.0, false}}, l.job->pcie_demand_GBps});
        bound.push_back(&l);
      }
      if (flows.empty()) continue;
      const std::vector<double> share = flow::max_min_rates({cfg_.pcie_max_GBps}, flows);
      for (std::size_t k = 0; k < bound.size(); ++k)
        bound[k]->rate = bound[k]->job->base_throughput * std::min(1.0, share[k] / bound[k]->job->pcie_demand_GBps);
    }
    dirty_.clear();
  }

  JobSimConfig cfg_;
  std::vector<MigJob> jobs_;
  MigCluster cluster_;
  std::unique_ptr<MigScheduler> sched_;
  std::size_t next_ = 0;
  double now_ = 0;
  std::vector<const MigJob*> waiting_;
  std::map<int, Live> live_;
  std::map<int, JobResult> results_;
  std::set<int> dirty_;  // GPUs whose jobs' rates must be recomputed
};

}  // namespace

std::vector<JobResult> simulate_jobs(const JobSimConfig& cfg, std::vector<MigJob> jobs) {
  return Run(cfg, std::move(jobs)).go();
}

}  // namespace arbsim::jobs
