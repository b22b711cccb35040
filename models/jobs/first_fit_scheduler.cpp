#include "models/jobs/first_fit_scheduler.h"
#include <map>

namespace arbsim::jobs {

namespace {

int first_with(const MigCluster& c, int slices, double now) {
  for (int g = 0; g < c.gpu_count(); ++g)
    if (c.ready(g, now) && c.free_instance(g, slices) >= 0) return g;
  return -1;
}

// Free instances of exactly `slices` on GPUs still being re-split: a job of that size waits
// for one instead of having another idle GPU re-split for it.
int free_while_resplit(const MigCluster& c, int slices, double now) {
  int n = 0;
  for (int g = 0; g < c.gpu_count(); ++g)
    if (!c.ready(g, now))
      for (const MigInstance& i : c.gpu(g).instances) n += i.slices == slices && i.job < 0;
  return n;
}

int first_idle(const MigCluster& c, double now) {
  for (int g = 0; g < c.gpu_count(); ++g)
    if (c.ready(g, now) && c.idle(g)) return g;
  return -1;
}

}  // namespace

std::vector<Placement> FirstFitScheduler::schedule(double now, const std::vector<const MigJob*>& waiting,
                                                   MigCluster& c) {
  std::vector<Placement> out;
  bool no_idle = false;  // known for this call until a job ends (never within it)
  std::map<int, int> awaiting;  // size -> jobs of this call waiting for a re-split's instances
  for (std::size_t k = 0; k < waiting.size(); ++k) {
    const MigJob& j = *waiting[k];
    int g = c.free_count(j.slices) > 0 ? first_with(c, j.slices, now) : -1;
    // A re-split under way already holds an instance for it: it waits (with reconfig_s > 0
    // every waiting job of a size had its own idle GPU re-split).
    if (g < 0 && awaiting[j.slices] < free_while_resplit(c, j.slices, now)) {
      ++awaiting[j.slices];
      continue;
    }
    if (g < 0) {
      const int idle = no_idle ? -1 : first_idle(c, now);
      no_idle = idle < 0;
      if (idle < 0) continue;
      std::vector<int> sizes;  // this job and those after it that wait too
      for (std::size_t i = k; i < waiting.size(); ++i) sizes.push_back(waiting[i]->slices);
      // This job's size is kept: smallest first left a 7g out, and with reconfig_s > 0 it came
      // back to re-split the GPU before the jobs the split was for could start, for ever (a
      // 14-job trace on one GPU spun at 1 s steps; found by a user trial).
      c.reconfigure(idle, partition_for(sizes, c.slices_per_gpu(), true), now, p_.reconfig_s);
      g = first_with(c, j.slices, now);
      if (g < 0) continue;  // reconfiguring: placed on a later activation
    }
    const Placement p{j.id, g, c.free_instance(g, j.slices)};
    c.start(j, p, now);
    out.push_back(p);
  }
  return out;
}

}  // namespace arbsim::jobs
