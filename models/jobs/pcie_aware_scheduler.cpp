#include "models/jobs/pcie_aware_scheduler.h"
#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
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
  // Every re-split keeps the size the GPU was marked for, so its job fits the next round and
  // the rounds end. Bounded all the same: a cycle of marks and re-splits would spin for ever
  // (one did, before the marked size was kept: `jobs` hung on a 1g, a 7g and a 2g job).
  const std::size_t most_rounds = 4 * (waiting.size() + static_cast<std::size_t>(c.gpu_count())) + 4;
  std::size_t rounds = 0;
  for (bool again = true; again;) {
    if (++rounds > most_rounds)
      throw std::logic_error("pcie_aware scheduler: marks and re-splits at " + std::to_string(now) +
                             " s do not settle (a cycle of the scheduler's rules)");
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

// Stage 2: an idle marked GPU is re-split for the jobs that wait for a size (in arrival order),
// keeping the size of the first: the GPU was marked for it (§4.2). Smallest first alone left a
// 7g out of [2, 1, 1, 1, 1, 1], the next round marked the GPU for it again, and the marked
// GPU turned the 2g away (principle 2): the rounds never ended (found by a user trial).
bool PcieAwareScheduler::reconfigure_marked(double now, const std::vector<const MigJob*>& waiting, MigCluster& c) {
  std::vector<int> sizes;
  for (const MigJob* j : waiting)
    if (no_size_.count(j->id)) sizes.push_back(j->slices);
  if (sizes.empty()) return false;
  for (int g = 0; g < c.gpu_count(); ++g)
    if (c.gpu(g).marked && c.idle(g) && c.ready(g, now)) {
      c.reconfigure(g, partition_for(sizes, c.slices_per_gpu(), true), now, p_.reconfig_s);
      return true;  // one GPU per round: the next round sees what it made
    }
  return false;
}

void PcieAwareScheduler::mark_earliest(double now, MigCluster& c) const {
  if (c.marked_count() > 0) return;  // one GPU marked at a time
  int best = -1;
  double best_end = 0;
  for (int g = 0; g < c.gpu_count(); ++g) {
    // Not one being re-split: it is being split for the jobs it was marked for, and marked
    // again it was re-split for others the moment it was ready, before they could start, for
    // ever (reconfig_s > 0; found by a user trial's traces).
    if (!c.ready(g, now)) continue;
    const double end = c.gpu_end(g, now);
    if (best < 0 || end < best_end) best = g, best_end = end;
  }
  if (best >= 0) c.mark(best, true);
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
