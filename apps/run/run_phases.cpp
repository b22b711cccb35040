#include "apps/run/run_phases.h"
#include "apps/run/logging.h"
#include "apps/run/simulation.h"

namespace arbsim {

namespace {

void end_warmup(System& sys, StatsSeries* series, double warmup_ns) {
  sys.restart_stats();
  if (series) series->rebase();
  if (!sc_core::sc_pending_activity())
    log()->warn("nothing is left to happen after the warm-up (sim.warmup_ns = {} ns): every statistic of "
                "results.json covers an empty window",
                warmup_ns);
}

}  // namespace

void run_phases(System& sys, StatsSeries* series, bool progress) {
  const SimCfg& sim = sys.config().sim;
  const auto stuck = [&] { return sys.stuck_report(); };
  const double end = sim.time_ns, warmup = sim.warmup_ns, period = series ? series->period_ns() : 0;
  bool warm = warmup <= 0;
  // Pauses in time order: the series' k x period, and the warm-up's end among them. An
  // unlimited run stops pausing once nothing is left to happen.
  for (int64_t k = 1, steps = 0; series; ++steps) {
    const double sample_at = static_cast<double>(k) * period;
    const double next = warm ? sample_at : std::min(sample_at, warmup);
    if (end > 0 && next >= end) break;
    if (end <= 0 && steps > 0 && !sc_core::sc_pending_activity()) break;
    if (series->samples() >= static_cast<std::size_t>(kMaxSeriesSamples)) {
      log()->warn("the time series stops after {} samples (sim.stats_period_ns = {} ns)", kMaxSeriesSamples, period);
      break;
    }
    run_until(next, stuck, false);
    if (!warm && next == warmup) {
      end_warmup(sys, series, warmup);
      warm = true;
    }
    if (next == sample_at) {
      series->sample();
      ++k;
    }
  }
  if (!warm) {
    run_until(warmup, stuck, series ? false : progress);
    end_warmup(sys, series, warmup);
  }
  run_until(end, stuck, progress);
  if (series && series->samples() < static_cast<std::size_t>(kMaxSeriesSamples)) series->sample();  // the last stretch
}

}  // namespace arbsim
