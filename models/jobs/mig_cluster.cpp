#include "models/jobs/mig_cluster.h"
#include <algorithm>
#include <stdexcept>

namespace arbsim::jobs {

bool valid_partition(const std::vector<int>& partition, int slices) {
  int used = 0;
  for (const int s : partition) {
    const bool a100_size = slices != 7 || (s != 5 && s != 6);
    if (s < 1 || s > slices || !a100_size) return false;
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
}

bool MigCluster::idle(int g) const {
  const auto& in = gpu(g).instances;
  return std::all_of(in.begin(), in.end(), [](const MigInstance& i) { return i.job < 0; });
}

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

int MigCluster::pcie_jobs(int g) const {
  int n = 0;
  for (const auto& [id, r] : running_) n += r.gpu == g && r.job.pcie_bound();
  return n;
}

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
  for (const auto& [id, r] : running_)
    if (r.gpu == g) end = std::max(end, now + r.remain / rate(r));
  return end;
}

void MigCluster::update(double now) {
  std::map<int, double> rates;  // all at the rates of the interval just ended
  for (const auto& [id, r] : running_) rates[id] = rate(r);
  for (auto& [id, r] : running_) {
    r.remain = std::max(0.0, r.remain - (now - r.since) * rates[id]);
    r.since = now;
  }
}

void MigCluster::start(const MigJob& j, const Placement& p, double now) {
  MigInstance& in = gpus_.at(static_cast<std::size_t>(p.gpu)).instances.at(static_cast<std::size_t>(p.instance));
  if (in.job >= 0 || !ready(p.gpu, now)) throw std::logic_error("MigCluster: instance busy or GPU reconfiguring");
  update(now);  // the new job changes its GPU's PCIe-bound count: close the interval first
  in.job = j.id;
  running_[j.id] = Running{j, p.gpu, p.instance, j.work, now};
}

void MigCluster::finish(int job, double now) {
  update(now);  // the others' rates change with it gone
  const Running& r = running_.at(job);
  gpus_.at(static_cast<std::size_t>(r.gpu)).instances.at(static_cast<std::size_t>(r.instance)).job = -1;
  running_.erase(job);
}

void MigCluster::reconfigure(int g, const std::vector<int>& partition, double now, double cost_s) {
  if (!idle(g) || !valid_partition(partition, slices_))
    throw std::logic_error("MigCluster: only an idle GPU is reconfigured, into a valid partition");
  MigGpu& gpu = gpus_.at(static_cast<std::size_t>(g));
  gpu.instances.clear();
  for (const int s : partition) gpu.instances.push_back({s, -1});
  gpu.marked = false;
  gpu.ready_s = now + cost_s;
}

}  // namespace arbsim::jobs
