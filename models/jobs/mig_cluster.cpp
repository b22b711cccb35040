#include "models/jobs/mig_cluster.h"
#include <algorithm>
#include <stdexcept>

namespace arbsim::jobs {

bool valid_partition(const std::vector<int>& partition, int slices) {
  int used = 0;
  for (const int s : partition) {
    if (!mig_size_offered(s, slices)) return false;
    used += s;
  }
  return used <= slices;
}

MigCluster::MigCluster(int gpus, const std::vector<int>& partition, double pcie_max_GBps, int slices)
    : slices_(slices), pcie_max_(pcie_max_GBps) {
  if (gpus < 1 || !(pcie_max_GBps > 0) || !valid_partition(partition, slices))
    throw std::invalid_argument("MigCluster: needs a GPU, a positive PCIe_max and a valid partition");
  MigGpu g;
  for (const int s : partition) g.instances.push_back({s, -1});
  gpus_.assign(static_cast<std::size_t>(gpus), g);
  pcie_count_.assign(static_cast<std::size_t>(gpus), 0);
  jobs_on_.resize(static_cast<std::size_t>(gpus));
  for (const MigGpu& each : gpus_) count_free(each, +1);
}

void MigCluster::count_free(const MigGpu& g, int sign) {
  for (const MigInstance& i : g.instances) {
    if (i.job < 0) free_by_size_[i.slices] += sign;
    all_by_size_[i.slices] += sign;
  }
}

int MigCluster::instance_count_at_least(int slices, bool exact) const {
  int n = 0;
  for (auto it = all_by_size_.lower_bound(slices); it != all_by_size_.end() && (!exact || it->first == slices); ++it)
    n += it->second;
  return n;
}

int MigCluster::free_count(int slices) const {
  const auto it = free_by_size_.find(slices);
  return it == free_by_size_.end() ? 0 : it->second;
}

int MigCluster::free_count_at_least(int slices) const {
  int n = 0;
  for (auto it = free_by_size_.lower_bound(slices); it != free_by_size_.end(); ++it) n += it->second;
  return n;
}

bool MigCluster::idle(int g) const { return jobs_on_.at(static_cast<std::size_t>(g)).empty(); }

int MigCluster::free_instance(int g, int slices) const {
  const auto& in = gpu(g).instances;
  for (std::size_t i = 0; i < in.size(); ++i)
    if (in[i].job < 0 && in[i].slices == slices) return static_cast<int>(i);
  return -1;
}

int MigCluster::best_fit_instance(int g, int slices) const {
  const auto& in = gpu(g).instances;
  int best = -1;
  for (std::size_t i = 0; i < in.size(); ++i)
    if (in[i].job < 0 && in[i].slices >= slices && (best < 0 || in[i].slices < in[static_cast<std::size_t>(best)].slices))
      best = static_cast<int>(i);
  return best;
}

int MigCluster::free_slices(int g) const {
  int n = 0;
  for (const MigInstance& i : gpu(g).instances) n += i.job < 0 ? i.slices : 0;
  return n;
}

int MigCluster::pcie_jobs(int g) const { return pcie_count_.at(static_cast<std::size_t>(g)); }

double MigCluster::slowdown_on(const MigJob& j, int g) const {
  return slowdown(j.alpha, j.pcie_demand_GBps, pcie_max_, pcie_jobs(g) + (j.pcie_bound() ? 1 : 0));
}

double MigCluster::predicted_end(const MigJob& j, int g, double now) const {
  return now + exec_time(j.work, j.base_throughput, slowdown_on(j, g));
}

double MigCluster::rate(const Running& r) const {
  return r.job.base_throughput / slowdown(r.job.alpha, r.job.pcie_demand_GBps, pcie_max_, pcie_jobs(r.gpu));
}

double MigCluster::gpu_end(int g, double now) const {
  double end = std::max(now, gpu(g).ready_s);
  for (const int id : jobs_on_.at(static_cast<std::size_t>(g))) {
    const Running& r = running_.at(id);
    end = std::max(end, now + remain_at(r, now) / rate(r));
  }
  return end;
}

// A job's rate changes only when its GPU's PCIe-bound count does, so records are kept per
// GPU: brought up to date when a job starts or ends there (the rates of the interval just
// ended), read with remain_at() in between.
void MigCluster::update_gpu(int g, double now) {
  for (const int id : jobs_on_.at(static_cast<std::size_t>(g))) {
    Running& r = running_.at(id);
    r.remain = std::max(0.0, remain_at(r, now));
    r.since = now;
  }
}

void MigCluster::update(double now) {
  for (int g = 0; g < gpu_count(); ++g) update_gpu(g, now);
}

void MigCluster::start(const MigJob& j, const Placement& p, double now) {
  MigInstance& in = gpus_.at(static_cast<std::size_t>(p.gpu)).instances.at(static_cast<std::size_t>(p.instance));
  if (in.job >= 0 || !ready(p.gpu, now)) throw std::logic_error("MigCluster: instance busy or GPU reconfiguring");
  update_gpu(p.gpu, now);  // the new job changes its GPU's PCIe-bound count: close the interval first
  in.job = j.id;
  --free_by_size_[in.slices];
  running_[j.id] = Running{j, p.gpu, p.instance, j.work, now};
  jobs_on_.at(static_cast<std::size_t>(p.gpu)).push_back(j.id);
  pcie_count_.at(static_cast<std::size_t>(p.gpu)) += j.pcie_bound();
}

void MigCluster::finish(int job, double now) {
  const Running& r = running_.at(job);
  update_gpu(r.gpu, now);  // the others' rates change with it gone
  MigInstance& in = gpus_.at(static_cast<std::size_t>(r.gpu)).instances.at(static_cast<std::size_t>(r.instance));
  in.job = -1;
  ++free_by_size_[in.slices];
  std::vector<int>& on = jobs_on_.at(static_cast<std::size_t>(r.gpu));
  on.erase(std::find(on.begin(), on.end(), job));
  pcie_count_.at(static_cast<std::size_t>(r.gpu)) -= r.job.pcie_bound();
  running_.erase(job);
}

void MigCluster::reconfigure(int g, const std::vector<int>& partition, double now, double cost_s) {
  if (!idle(g) || !valid_partition(partition, slices_))
    throw std::logic_error("MigCluster: only an idle GPU is reconfigured, into a valid partition");
  MigGpu& gpu = gpus_.at(static_cast<std::size_t>(g));
  count_free(gpu, -1);
  gpu.instances.clear();
  for (const int s : partition) gpu.instances.push_back({s, -1});
  count_free(gpu, +1);
  mark(g, false);
  gpu.ready_s = now + cost_s;
}

}  // namespace arbsim::jobs
