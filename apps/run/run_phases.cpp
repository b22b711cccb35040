#include "apps/run/run_phases.h"
#include <algorithm>
#include <cmath>
#include "apps/run/logging.h"
#include "apps/run/simulation.h"

namespace arbsim {

namespace {

// An unlimited run goes on to `next_ns` only while something is left to happen before it;
// false when it ran out first (then its end is where it stopped, as without the pause).
bool reach_if_busy(double next_ns) {
  const sc_core::sc_time next = sc_core::sc_time::from_value(static_cast<uint64_t>(std::llround(next_ns * 1000.0)));
  if (next > sc_core::sc_time_stamp()) start_unless_starved(next - sc_core::sc_time_stamp());
  if (sc_core::sc_time_stamp() >= next) return true;
  if (!sc_core::sc_pending_activity()) return false;
  move_time_to(next);  // stopped at its last event before `next`: no event lies between
  return true;
}

}  // namespace

Pause warmup_pause(System& sys, StatsSeries* series) {
  const double warmup_ns = sys.config().sim.warmup_ns;
  return {warmup_ns, [&sys, series, warmup_ns] {
            // A sample at the end of the warm-up closes the period before the restart (none
            // when a periodic one was just taken, or the series is full): else what moved
            // since the last sample, warm-up traffic, was in no row at all.
            if (series && !series->full() && series->stopped_at_ns() < 0) series->sample();
            sys.restart_stats();
            if (series) series->rebase();
            if (!sc_core::sc_pending_activity())
              log()->warn("nothing is left to happen after the warm-up (sim.warmup_ns = {} ns): every statistic "
                          "of results.json covers an empty window",
                          log_ns(warmup_ns));
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
  // In time order: the one-off pauses, and the series' k x period among them (a sample at the
  // time of a pause first: it closes the period before the pause acts).
  for (int64_t k = 1;;) {
    if (sampling && series->full()) {
      series->stopped_early();
      log()->warn("the time series stops at {} ns after {} (sim.stats_period_ns = {} ns): results.json "
                  "series.stopped_at_ns says so",
                  log_ns(series->stopped_at_ns()), series->why_full(), log_ns(period));
      sampling = false;
    }
    const double sample_at = static_cast<double>(k) * period;
    if (sampling && end > 0 && sample_at >= end) sampling = false;
    const bool one_off = next_pause < pauses.size();
    if (!sampling && !one_off) break;
    const double next = !one_off ? sample_at : !sampling ? pauses[next_pause].at_ns
                                                         : std::min(sample_at, pauses[next_pause].at_ns);
    // A pause that moves an unlimited run's end lies ahead: time reaches it, so the samples
    // before it are taken too, a period apart (else the one at the pause spanned them all).
    const bool extended = std::any_of(pauses.begin() + static_cast<std::ptrdiff_t>(next_pause), pauses.end(),
                                      [&](const Pause& p) { return p.extends_run && p.at_ns >= next; });
    if (end <= 0 && !extended && !reach_if_busy(next)) {
      // An unlimited run ended before it: no more samples, nor pauses that would move its end.
      sampling = false;
      while (next_pause < pauses.size() && !pauses[next_pause].extends_run) ++next_pause;
      continue;
    }
    if (end > 0 || extended) run_until(next, stuck, false);
    if (sampling && next == sample_at) {
      series->sample();
      ++k;
    }
    for (; next_pause < pauses.size() && pauses[next_pause].at_ns == next; ++next_pause) pauses[next_pause].act();
  }
  run_until(end, stuck, progress && !series);
  if (series && !series->full()) series->sample();  // the last stretch
}

}  // namespace arbsim
