// Runs a simulation to its end with pauses of the kernel where something must be read or
// restarted between events: the end of the warm-up (sim.warmup_ns: every statistic starts
// again) and each period of the time series (sim.stats_period_ns). Pausing moves no event, so
// the run is the one without pauses (docs/results.md, "Warm-up" and "Time series").
#pragma once
#include <functional>
#include <string>
#include "apps/run/stats_series.h"
#include "platforms/system.h"

namespace arbsim {

// `series`: nullptr for none. `progress`: a progress line on stderr over the last stretch.
void run_phases(System& sys, StatsSeries* series, bool progress);

}  // namespace arbsim
