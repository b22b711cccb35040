// One simulation: elaborate the system from a scenario, optionally trace a VCD, run, and
// collect results. SystemC elaborates once per process, so call this once per process.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <nlohmann/json.hpp>
#include "platforms/system.h"

namespace arbsim {

struct SimOutcome {
  std::unique_ptr<System> system;       // kept for inspection after the run
  nlohmann::ordered_json results;
  sc_core::sc_time end;
  double wall_seconds = 0;
  double cpu_seconds = 0;  // the simulation run's CPU time (this process), elaboration excluded
  std::string trace_json;  // with `observe` on: the transaction trace (docs/observability.md)
  std::string series_csv;  // with sim.stats_period_ns: the time series (docs/results.md)
};

// `progress`: a progress line on stderr (simulated time, share of sim.time_ns, ETA) while it
// runs; the results are the same with it or without.
// --vcd-window: the VCD holds [from_ns, to_ns) only (0: from the start / to the end).
struct VcdWindow {
  double from_ns = 0, to_ns = 0;
};

SimOutcome simulate(const Scenario& s, const std::string& vcd_path = "", const ObserveOptions& observe = {},
                    bool progress = false, const VcdWindow& vcd = {});

// sc_start(duration, SC_EXIT_ON_STARVATION), skipped when a paused kernel has nothing left to do.
void start_unless_starved(const sc_core::sc_time& duration);
// Moves the kernel's time on to `at` when no event lies before it (sc_start to that time).
void move_time_to(const sc_core::sc_time& at);

// Runs the kernel until `time_ns` (0: until nothing is left to happen). Activity that stops
// while work is unfinished can never resume: when `stuck_report` then names what waits (not
// ""), that is a deadlock (credits, or a model fault), reported as an SC_ERROR naming it
// instead of a run that ends quietly with transfers open, or never ends.
void run_until(double time_ns, const std::function<std::string()>& stuck_report, bool progress = false);

}  // namespace arbsim
