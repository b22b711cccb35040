#include "apps/run/simulation.h"
#include <chrono>
#include <ctime>
#include <cstdio>
#include <functional>
#include "models/pcie/tlp_pool.h"
#include "apps/run/logging.h"
#include "apps/run/results.h"
#include "apps/run/run_phases.h"
#include "models/common/sim_time.h"

namespace arbsim {

namespace {

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

sc_core::sc_time ns_time(double ns) { return sc_core::sc_time::from_value(static_cast<uint64_t>(std::llround(ns * 1000.0))); }

void warn_fidelity_notes(const System& sys) {
  const auto& notes = sys.fabric().fidelity_notes();
  if (notes.empty()) return;
  log()->warn("the flow-level mode cannot represent {} thing(s) this run asked or did, or only in their steady "
              "state; its results leave out the rest (results.json fidelity_notes). First: {}: {} ({})",
              notes.size(), notes.front().where, notes.front().setting, notes.front().effect);
}

}  // namespace

namespace {

std::string sim_time_text(double ns) {
  char b[32];
  if (ns >= 1e6) std::snprintf(b, sizeof b, "%.3f ms", ns / 1e6);
  else std::snprintf(b, sizeof b, "%.3f us", ns / 1e3);
  return b;
}

// Runs to `end` in steps, printing a progress line after each: a step lasts about half a
// second of wall time (it doubles or halves towards that). Pausing the kernel between steps
// changes no event's time or order, so the results are those of one sc_start.
void start_with_progress(const sc_core::sc_time& end, bool limited) {
  const auto t0 = std::chrono::steady_clock::now();
  sc_core::sc_time step(1, sc_core::SC_US);
  for (bool first = true; sc_core::sc_time_stamp() < end; first = false) {
    // Nothing left before the end (known once elaborated): run_until takes it from here.
    if (!first) {
      if (!sc_core::sc_pending_activity()) break;
      const sc_core::sc_time next = sc_core::sc_time_to_pending_activity();
      if (sc_core::sc_time_stamp() + next >= end) break;
      if (next >= step) step = next + sc_core::sc_time(1, sc_core::SC_PS);  // a step that reaches it
    }
    const auto s0 = std::chrono::steady_clock::now();
    const sc_core::sc_time left = end - sc_core::sc_time_stamp();
    start_unless_starved(step < left ? step : left);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double step_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
    const double now_ns = sim_now_ns();
    std::string line = "[progress] simulated " + sim_time_text(now_ns);
    if (limited) {
      const double frac = now_ns / (end.to_seconds() * 1e9);
      char b[96];
      std::snprintf(b, sizeof b, " of %s (%.0f %%), elapsed %.1f s, ETA %.1f s",
                    sim_time_text(end.to_seconds() * 1e9).c_str(), 100 * frac, wall,
                    frac > 0 ? wall * (1 - frac) / frac : 0.0);
      line += b;
    } else {
      line += ", elapsed " + std::to_string(static_cast<int>(wall)) + " s";
    }
    std::fprintf(stderr, "\r%s   ", line.c_str());
    step = step_wall < 0.25 ? step * 2 : step_wall > 1.0 ? step / 2 : step;
  }
  std::fprintf(stderr, "\n");
}

// The run drives the kernel in stretches (pauses, samples of a time series), and a stretch
// with no event in it is expected: the kernel's warning "no activity or clock movement for
// sc_start() invocation" says nothing wrong then, and a short sim.stats_period_ns would print
// it once per empty period. Silenced for the one call only.
void start_quietly(const sc_core::sc_time& duration, sc_core::sc_starvation_policy policy) {
  using sc_core::sc_report_handler;
  const sc_core::sc_actions was =
      sc_report_handler::set_actions(sc_core::SC_ID_NO_SC_START_ACTIVITY_, sc_core::SC_WARNING, sc_core::SC_DO_NOTHING);
  sc_core::sc_start(duration, policy);
  sc_report_handler::set_actions(sc_core::SC_ID_NO_SC_START_ACTIVITY_, sc_core::SC_WARNING, was);
}

}  // namespace

// A paused kernel with nothing left to happen stays where it is (an unlimited run's last
// stretch, or a pause after its end).
void start_unless_starved(const sc_core::sc_time& duration) {
  if (sc_core::sc_get_status() == sc_core::SC_PAUSED && !sc_core::sc_pending_activity()) return;
  start_quietly(duration, sc_core::SC_EXIT_ON_STARVATION);
}

void move_time_to(const sc_core::sc_time& at) {
  if (at > sc_core::sc_time_stamp()) start_quietly(at - sc_core::sc_time_stamp(), sc_core::SC_RUN_TO_TIME);
}

void run_until(double time_ns, const std::function<std::string()>& stuck_report, bool progress) {
  const bool limited = time_ns > 0;
  const sc_core::sc_time end = limited ? ns_time(time_ns) : sc_core::sc_max_time();
  // Returns at `end`, or earlier at the last event before it when no event is left before
  // it (the next one, if any, lies beyond the end).
  // `end` is a time; sc_start takes a duration from now (not 0 after a warm-up).
  if (progress) start_with_progress(end, limited);
  else start_unless_starved(end - sc_core::sc_time_stamp());
  if (sc_core::sc_time_stamp() >= end) return;
  if (!sc_core::sc_pending_activity()) {
    const std::string stuck = stuck_report();
    if (!stuck.empty()) {
      const std::string msg = "no progress possible at " + sc_core::sc_time_stamp().to_string() +
                              " with work unfinished (a deadlock): " + stuck;
      SC_REPORT_ERROR("arbsim/deadlock", msg.c_str());
    }
  }
  if (limited) move_time_to(end);  // nothing left before the cut-off
}

namespace {

// Always-on checks of what the model must conserve (docs/results.md, "Run checks"): a
// failure is a model fault, reported as an error rather than results that look fine.
void check_conservation(const System& sys) {
  const TransferTracker& t = sys.tracker();
  std::string fault;
  if (t.duplicate_bytes() > 0) fault = std::to_string(t.duplicate_bytes()) + " bytes delivered twice";
  else if (t.order_violations() > 0)
    fault = std::to_string(t.order_violations()) + " posted writes of a transfer arrived out of order";
  else if (t.injected_bytes() != t.delivered_bytes() + t.open_bytes_left())
    fault = "bytes injected (" + std::to_string(t.injected_bytes()) + ") != delivered (" +
            std::to_string(t.delivered_bytes()) + ") + still in flight (" + std::to_string(t.open_bytes_left()) + ")";
  if (!fault.empty()) SC_REPORT_ERROR("arbsim/run-check", ("a run check failed: " + fault).c_str());
}

// --detect: one line per kind that found something, with its first episode.
void log_detections(const nlohmann::ordered_json& results) {
  if (!results.contains("detectors")) return;
  for (const auto& [kind, k] : results["detectors"].items()) {
    if (!k.is_object() || k["episodes"].get<uint64_t>() == 0) continue;
    const auto& first = k["listed"][0];
    log()->warn("detected {}: {} episode(s), {} ns in all; the first at {} from {} ns to {} ns: {} (results.json "
                "detectors)",
                kind, k["episodes"].get<uint64_t>(), log_ns(k["total_ns"].get<double>()), first["where"].get<std::string>(),
                log_ns(first["from_ns"].get<double>()), log_ns(first["to_ns"].get<double>()), first["detail"].get<std::string>());
  }
}

// A policy that sets the VC arbiters overrides the configured ones everywhere: said once.
// Every policy but static chooses each command's TC (seed 000 Eq. 1, docs/host-policies.md),
// so an app's own `tc` is not used: said as a warning, naming them (a sweep over apps.N.tc
// under rr gave identical points and nothing said why).
void say_policy_arbiter(const System& sys) {
  const Config& c = sys.config();
  if (const auto& a = sys.policy_vc_arbiter())
    log()->info("driver policy '{}' sets every VC arbiter to {} (configured VC arbiters are not used)",
                to_string(c.driver.policy), describe_spec(*a));
  if (c.driver.policy == PolicyKind::Static) return;
  std::string apps;
  for (const AppCfg& app : c.apps)
    if (app.timing.tc != 0) apps += (apps.empty() ? "" : ", ") + app.name + " tc " + std::to_string(app.timing.tc);
  if (!apps.empty())
    log()->warn("driver policy '{}' chooses each command's TC (seed 000 Eq. 1): the apps' own tc are not used ({}); "
                "policy static keeps them (docs/host-policies.md)",
                to_string(c.driver.policy), apps);
}

// A VCD trace file at `path` with every signal of `sys` (sc_create_vcd_trace_file appends
// ".vcd" itself).
sc_core::sc_trace_file* open_vcd_file(const std::string& path, System& sys) {
  std::string stem = path;
  if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, ".vcd") == 0) stem.resize(stem.size() - 4);
  sc_core::sc_trace_file* tf = sc_core::sc_create_vcd_trace_file(stem.c_str());
  tf->set_time_unit(1, sc_core::SC_PS);  // the kernel resolution: every event lands on a tick
  sys.trace(tf);
  return tf;
}

}  // namespace

SimOutcome simulate(const Scenario& s, const std::string& vcd_path, const ObserveOptions& observe, bool progress,
                    const VcdWindow& vcd) {
  SimOutcome o;
  const double age_limit_ns = s.config.sim.tlp_age_limit_ns;
  o.system = std::make_unique<System>(s, observe);
  warn_unknown_log_modules();
  say_policy_arbiter(*o.system);
  for (const FidelityNote& n : o.system->model_notes())
    log()->warn("the model does not represent {}: {}: {} (results.json fidelity_notes)", n.where, n.setting, n.effect);
  std::unique_ptr<StatsSeries> series;
  if (s.config.sim.stats_period_ns > 0) series = std::make_unique<StatsSeries>(*o.system, s.config.sim.stats_period_ns);
  std::vector<Pause> pauses;
  if (s.config.sim.warmup_ns > 0) pauses.push_back(warmup_pause(*o.system, series.get()));
  // The VCD from the window's start (a trace file may be opened and traced into at a pause,
  // before its first value is written) to its end.
  sc_core::sc_trace_file* tf = nullptr;
  const auto open_vcd = [&] { tf = open_vcd_file(vcd_path, *o.system); };
  const auto close_vcd = [&] {
    if (tf) sc_core::sc_close_vcd_trace_file(tf);
    tf = nullptr;
  };
  bool vcd_closed = false;
  if (!vcd_path.empty()) {
    if (vcd.from_ns > 0) pauses.push_back({vcd.from_ns, open_vcd});
    else open_vcd();
    if (vcd.to_ns > 0) pauses.push_back({vcd.to_ns, [&] { close_vcd(); vcd_closed = true; }});
  }
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = process_cpu_seconds();
  run_phases(*o.system, pauses, series.get(), progress);
  if (!vcd_path.empty() && !tf && !vcd_closed)  // an unlimited run that ended before the window
    log()->warn("the run ended at {} ns, before --vcd-window's start ({} ns): no VCD is written",
                log_ns(sim_now_ns()), log_ns(vcd.from_ns));
  if (observe.any() && observe.from_ns > 0 &&
      sim_now_ns() <= observe.from_ns)  // an unlimited run, over before the window
    log()->warn("the run ended at {} ns, before --trace-window's start ({} ns): nothing is traced or detected",
                log_ns(sim_now_ns()), log_ns(observe.from_ns));
  o.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  o.cpu_seconds = process_cpu_seconds() - cpu0;
  o.end = sc_core::sc_time_stamp();
  o.system->finish();
  warn_fidelity_notes(*o.system);  // the flow fabric's are complete only now
  for (const FidelityNote& n : o.system->tie_notes())
    log()->warn("{}: {}: {} (results.json fidelity_notes)", n.where, n.setting, n.effect);
  check_conservation(*o.system);
  o.results = collect_results(*o.system, o.end);
  o.trace_json = o.system->fabric().trace_json();
  if (series) {
    o.series_csv = series->csv();
    o.results["series"] = {{"file", "series.csv"}, {"period_ns", series->period_ns()}, {"samples", series->samples()},
                           {"kinds", series->kinds()}};
    if (series->stopped_at_ns() >= 0) o.results["series"]["stopped_at_ns"] = series->stopped_at_ns();
  }
  log_detections(o.results);
  if (o.results["run_checks"]["tlp_age_exceeded"] == true)
    log()->warn("a TLP was {} ns old, beyond sim.tlp_age_limit_ns ({} ns): starvation (see arbiters[].never_granted "
                "and max_head_wait_ns), a stalled port, or a path whose configured latencies (latency_ns, "
                "read_latency_ns) add up to that much (then raise the limit)",
                log_ns(o.results["run_checks"]["oldest_tlp_ns"].get<double>()), log_ns(age_limit_ns));
  if (tf) sc_core::sc_close_vcd_trace_file(tf);
  return o;
}

}  // namespace arbsim
