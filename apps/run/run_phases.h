// Runs a simulation to its end with pauses of the kernel where something must be read,
// restarted or switched between events: the end of the warm-up (sim.warmup_ns: every
// statistic starts again), each period of the time series (sim.stats_period_ns), and the
// edges of a VCD window (--vcd-window). Pausing moves no event, so the run is the one
// without pauses (docs/results.md, "Warm-up" and "Time series").
#pragma once
#include <functional>
#include <string>
#include <vector>
#include "apps/run/stats_series.h"
#include "platforms/system.h"

namespace arbsim {

struct Pause {
  double at_ns = 0;
  std::function<void()> act;
  // An unlimited run (sim.time_ns 0) that has nothing left to happen before it: true, the run
  // goes on to it (the warm-up: its window starts there, empty); false, it does not happen.
  bool extends_run = false;
};

// `pauses`: one-off pauses, any order (those at or after sim.time_ns, when set, do not
// happen). `series`: nullptr for none. `progress`: a progress line on stderr over the last
// stretch.
void run_phases(System& sys, std::vector<Pause> pauses, StatsSeries* series, bool progress);

// The warm-up's pause: restarts every statistic (and the series' period).
Pause warmup_pause(System& sys, StatsSeries* series);

}  // namespace arbsim
