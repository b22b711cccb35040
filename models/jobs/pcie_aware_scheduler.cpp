#include "models/jobs/pcie_aware_scheduler.h"
#include <algorithm>
#include <limits>
#include <tuple>

namespace arbsim::jobs {

std::vector<Placement> PcieAwareScheduler::schedule(double now, const std::vector<const MigJob*>& waiting,
                                                    MigCluster& c) {
  std::vector<Placement> out;  // stage 1's records: MigCluster keeps them per GPU
  std::set<int> placed;
  // Rounds until a round re-splits nothing: a placement only raises its GPU's slowdown and
  // takes an instance, so it never lets a job skipped earlier in the round in; a re-split
  // (a GPU marked in the round and idle) may.
  reconfigure_marked(now, waiting, c);
  for (bool again = true; again;) {
    refused_.clear();
    for (const MigJob* j : waiting) {
      Placement p;
      if (placed.count(j->id) || !try_place(now, *j, c, &p)) continue;
      placed.insert(j->id);
      no_size_.erase(j->id);
      out.push_back(p);
      refused_.clear();
    }
    again = reconfigure_marked(now, waiting, c);
  }
  return out;
}

// Stage 2: an idle marked GPU is re-split for the jobs that wait for a size (in arrival order).
bool PcieAwareScheduler::reconfigure_marked(double now, const std::vector<const MigJob*>& waiting, MigCluster& c) {
  std::vector<int> sizes;
  for (const MigJob* j : waiting)
    if (no_size_.count(j->id)) sizes.push_back(j->slices);
  if (sizes.empty()) return false;
  for (int g = 0; g < c.gpu_count(); ++g)
    if (c.gpu(g).marked && c.idle(g) && c.ready(g, now)) {
      c.reconfigure(g, partition_for(sizes, c.slices_per_gpu()), now, p_.reconfig_s);
      return true;  // one GPU per round: the next round sees what it made
    }
  return false;
}

void PcieAwareScheduler::mark_earliest(double now, MigCluster& c) const {
  if (c.marked_count() > 0) return;  // one GPU marked at a time
  int best = -1;
  double best_end = 0;
  for (int g = 0; g < c.gpu_count(); ++g) {
    const double end = c.gpu_end(g, now);
    if (best < 0 || end < best_end) best = g, best_end = end;
  }
  c.mark(best, true);
}

double PcieAwareScheduler::next_decision_s(double now, const std::vector<const MigJob*>& waiting) const {
  double t = std::numeric_limits<double>::infinity();
  for (const MigJob* j : waiting) {
    const double starves = j->arrival_s + p_.wait_time_threshold_s;
    if (starves > now) t = std::min(t, starves);
  }
  return t;
}

// Stages 3 and 4 for one job.
bool PcieAwareScheduler::try_place(double now, const MigJob& j, MigCluster& c, Placement* out) {
  const bool starving = now - j.arrival_s >= p_.wait_time_threshold_s;
  // Principle 3: only a size no GPU's configuration holds (free or busy, or being re-split
  // into) calls for a re-split; a size whose instances are all busy waits for one to free.
  if (c.instance_count_at_least(j.slices, !starving) == 0) {
    no_size_.insert(j.id);
    mark_earliest(now, c);
    return false;
  }
  // Without a marked GPU the answer depends on the job's profile only (not its work).
  const bool memo = !starving && c.marked_count() == 0;
  const auto profile = std::make_tuple(j.slices, j.pcie_demand_GBps, j.alpha);
  if (memo && refused_.count(profile)) return false;
  if (!place_now(now, j, c, starving, out)) {
    if (memo) refused_.insert(profile);
    return false;
  }
  return true;
}

bool PcieAwareScheduler::place_now(double now, const MigJob& j, MigCluster& c, bool starving, Placement* out) {
  std::vector<std::tuple<double, int, int, int>> cands;  // slowdown, free slices, GPU, instance
  const bool none = (starving ? c.free_count_at_least(j.slices) : c.free_count(j.slices)) == 0;
  for (int g = 0; g < c.gpu_count() && !none; ++g) {
    const int inst = starving ? c.best_fit_instance(g, j.slices) : c.free_instance(g, j.slices);
    if (inst < 0 || !c.ready(g, now)) continue;
    if (c.gpu(g).marked && c.predicted_end(j, g, now) > c.gpu_end(g, now)) continue;
    cands.emplace_back(c.slowdown_on(j, g), c.free_slices(g), g, inst);
  }
  if (cands.empty()) return false;
  const auto& [slow, free, g, inst] = *std::min_element(cands.begin(), cands.end());
  if (slow > p_.delay_threshold && !starving) return false;
  *out = Placement{j.id, g, inst};
  c.start(j, *out, now);
  return true;
}

}  // namespace arbsim::jobs
