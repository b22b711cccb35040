#include "apps/run/run_phases.h"
#include <algorithm>
#include "apps/run/logging.h"
#include "apps/run/simulation.h"

namespace arbsim {

Pause warmup_pause(System& sys, StatsSeries* series) {
  const double warmup_ns = sys.config().sim.warmup_ns;
  return {warmup_ns, [&sys, series, warmup_ns] {
            sys.restart_stats();
            if (series) series->rebase();
            if (!sc_core::sc_pending_activity())
              log()->warn("nothing is left to happen after the warm-up (sim.warmup_ns = {} ns): every statistic "
                          "of results.json covers an empty window",
                          warmup_ns);
          },
          true};
}

void run_phases(System& sys, std::vector<Pause> pauses, StatsSeries* series, bool progress) {
  const double end = sys.config().sim.time_ns, period = series ? series->period_ns() : 0;
  const auto stuck = [&] { return sys.stuck_report(); };
  std::stable_sort(pauses.begin(), pauses.end(), [](const Pause& a, const Pause& b) { return a.at_ns < b.at_ns; });
  if (end > 0)
    pauses.erase(std::remove_if(pauses.begin(), pauses.end(), [&](const Pause& p) { return p.at_ns >= end; }),
                 pauses.end());
  std::size_t next_pause = 0;
  bool sampling = series != nullptr;
  // In time order: the one-off pauses, and the series' k x period among them. An unlimited
  // run stops sampling once nothing is left to happen (its one-off pauses still happen).
  for (int64_t k = 1, steps = 0;; ++steps) {
    const bool idle = end <= 0 && steps > 0 && !sc_core::sc_pending_activity();
    if (idle) sampling = false;
    while (idle && next_pause < pauses.size() && !pauses[next_pause].extends_run) ++next_pause;
    if (sampling && series->samples() >= static_cast<std::size_t>(kMaxSeriesSamples)) {
      log()->warn("the time series stops after {} samples (sim.stats_period_ns = {} ns)", kMaxSeriesSamples, period);
      sampling = false;
    }
    const double sample_at = static_cast<double>(k) * period;
    if (sampling && end > 0 && sample_at >= end) sampling = false;
    const bool one_off = next_pause < pauses.size();
    if (!sampling && !one_off) break;
    const double next = !one_off ? sample_at : !sampling ? pauses[next_pause].at_ns
                                                         : std::min(sample_at, pauses[next_pause].at_ns);
    run_until(next, stuck, false);
    for (; next_pause < pauses.size() && pauses[next_pause].at_ns == next; ++next_pause) pauses[next_pause].act();
    if (sampling && next == sample_at) {
      series->sample();
      ++k;
    }
  }
  run_until(end, stuck, progress && !series);
  if (series && series->samples() < static_cast<std::size_t>(kMaxSeriesSamples)) series->sample();  // the last stretch
}

}  // namespace arbsim
