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

// A running job's progress, brought up to date only when its rate changes (its GPU's jobs
// change): remaining work as of `since`, and its end at the current rate in the event set.
struct Live {
  const MigJob* job = nullptr;
  double remain = 0, rate = 0, since = 0;
  std::set<std::pair<double, int>>::iterator end;
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
    if (!mig_size_offered(j.slices, cfg_.slices) || !(j.work > 0) || !(j.base_throughput > 0) ||
        j.pcie_demand_GBps < 0 || j.pcie_demand_GBps > cfg_.pcie_max_GBps || j.arrival_s < 0)
      throw std::invalid_argument("job " + std::to_string(j.id) + ": needs 1.." + std::to_string(cfg_.slices) +
                                  " slices of an offered size, work and throughput > 0, a demand within PCIe_max, arrival >= 0");
  }

  // The next arrival, completion or end of a reconfiguration (GPUs scanned only when a
  // re-split takes time).
  double next_event() const {
    double t = next_ < jobs_.size() ? jobs_[next_].arrival_s : kNever;
    if (!ends_.empty()) t = std::min(t, ends_.begin()->first);
    for (int g = 0; cfg_.params.reconfig_s > 0 && g < cluster_.gpu_count(); ++g)
      if (cluster_.gpu(g).ready_s > now_) t = std::min(t, cluster_.gpu(g).ready_s);
    if (!waiting_.empty()) t = std::min(t, sched_->next_decision_s(now_, waiting_));
    return t;
  }

  void step() {
    const double t = next_event();
    if (t == kNever) throw std::runtime_error("jobs wait with nothing running: the scheduler cannot place them");
    now_ = t;
    const std::size_t before = next_ + results_.size() + finished_;
    finish_due();
    while (next_ < jobs_.size() && jobs_[next_].arrival_s <= now_) waiting_.push_back(&jobs_[next_++]);
    place();
    rates();
    check_progress(before != next_ + results_.size() + finished_);  // arrivals, starts, ends
  }

  // A scheduler that re-splits without ever placing (a cycle of its rules) would step for
  // ever: a few steps per GPU and waiting job with no arrival, start or end is one.
  void check_progress(bool moved) {
    idle_steps_ = moved ? 0 : idle_steps_ + 1;
    if (idle_steps_ > 4 * (waiting_.size() + static_cast<std::size_t>(cluster_.gpu_count())) + 16)
      throw std::runtime_error("scheduler " + std::string(sched_->name()) + " makes no progress at " +
                               std::to_string(now_) + " s: " + std::to_string(waiting_.size()) +
                               " jobs wait, re-splits place none of them (a cycle of its rules)");
  }

  // Jobs whose end is now.
  void finish_due() {
    while (!ends_.empty() && ends_.begin()->first <= now_) {
      const int id = ends_.begin()->second;
      ends_.erase(ends_.begin());
      cluster_.finish(id, now_);
      JobResult& r = results_[id];
      r.end_s = now_;
      dirty_.insert(r.gpu);
      live_.erase(id);
      ++finished_;
    }
  }

  void place() {
    for (const Placement& p : sched_->schedule(now_, waiting_, cluster_)) {
      const MigJob* j = *std::find_if(waiting_.begin(), waiting_.end(), [&](const MigJob* w) { return w->id == p.job; });
      waiting_.erase(std::find(waiting_.begin(), waiting_.end(), j));
      live_[j->id] = Live{j, j->work, 0, now_, ends_.end()};
      const int slices = cluster_.gpu(p.gpu).instances.at(static_cast<std::size_t>(p.instance)).slices;
      results_[j->id] = JobResult{j->id, j->arrival_s, now_, 0, p.gpu, slices, predicted_exec(*j, p.gpu)};
      dirty_.insert(p.gpu);
    }
  }

  // Eq. 2-3 at the job's start, with the PCIe-bound jobs on its GPU then (itself included).
  double predicted_exec(const MigJob& j, int g) const {
    const double sd = j.pcie_bound() ? slowdown(j.alpha, j.pcie_demand_GBps, cfg_.pcie_max_GBps, cluster_.pcie_jobs(g)) : 1;
    return exec_time(j.work, j.base_throughput, sd);
  }

  // A GPU's link shared max-min among its PCIe-bound jobs, each capped at its demand; only
  // the GPUs where a job started or ended change (links of different GPUs are independent).
  void rates() {
    for (const int g : dirty_) {
      std::vector<flow::FlowSpec> flows;
      std::vector<Live*> bound;
      for (const int id : cluster_.jobs_on(g)) {
        Live& l = live_.at(id);
        l.remain -= (now_ - l.since) * l.rate;
        l.since = now_;
        l.rate = l.job->base_throughput;
        if (!l.job->pcie_bound()) continue;
        flows.push_back({{{0, 1.0, false}}, l.job->pcie_demand_GBps});
        bound.push_back(&l);
      }
      if (!flows.empty()) {
        const std::vector<double> share = flow::max_min_rates({cfg_.pcie_max_GBps}, flows);
        for (std::size_t k = 0; k < bound.size(); ++k)
          bound[k]->rate = bound[k]->job->base_throughput * std::min(1.0, share[k] / bound[k]->job->pcie_demand_GBps);
      }
      for (const int id : cluster_.jobs_on(g)) reschedule_end(id, live_.at(id));
    }
    dirty_.clear();
  }

  void reschedule_end(int id, Live& l) {
    if (l.end != ends_.end()) ends_.erase(l.end);
    l.end = ends_.insert({now_ + std::max(0.0, l.remain) / l.rate, id}).first;
  }

  JobSimConfig cfg_;
  std::vector<MigJob> jobs_;
  MigCluster cluster_;
  std::unique_ptr<MigScheduler> sched_;
  std::size_t next_ = 0;
  double now_ = 0;
  std::size_t finished_ = 0, idle_steps_ = 0;
  std::vector<const MigJob*> waiting_;
  std::map<int, Live> live_;
  std::set<std::pair<double, int>> ends_;  // (end at the current rates, job id)
  std::map<int, JobResult> results_;
  std::set<int> dirty_;  // GPUs whose jobs' rates must be recomputed
};

}  // namespace

std::vector<JobResult> simulate_jobs(const JobSimConfig& cfg, std::vector<MigJob> jobs) {
  return Run(cfg, std::move(jobs)).go();
}

}  // namespace arbsim::jobs
