#include "apps/run/results.h"
#include "models/pcie/tlp_pool.h"
#include "testbenches/batch_app.h"
#include "testbenches/deadline.h"
#include "testbenches/periodic_app.h"
#include "testbenches/spmd_app.h"
#include <algorithm>
#include <cmath>

namespace arbsim {

using nlohmann::ordered_json;

namespace {

// Rounded to 1 ps so the file reads well and stays deterministic.
double r3(double v) { return std::round(v * 1000.0) / 1000.0; }
double ns(const sc_core::sc_time& t) { return r3(t.to_seconds() * 1e9); }
// A figure that has no value (no latency to take a percentile of, nothing issued or done) is
// null, not 0: a 0.0 read as a latency or a time (docs/results.md).
ordered_json or_null(bool has, double v) { return has ? ordered_json(r3(v)) : ordered_json(); }
// The nearest-rank percentile q of `v`, null when it is empty.
ordered_json percentile_json(const std::vector<double>& v, double q) { return or_null(!v.empty(), percentile(v, q)); }

// The data rate of an app or device (AppStats, DeviceStats): `bytes` x 8 over its first issue
// -> last completion. After a warm-up that ended with copies of it open, over the window's
// start -> last completion, those copies' bytes inside the window counted too
// (models/common/open_copies.h). null when `has` is false and no copy was open.
template <class Stats>
ordered_json data_rate_gbps(const Stats& s, bool has, uint64_t bytes) {
  const bool straddled = s.carried.open_at_start;
  const sc_core::sc_time from = straddled ? s.carried.from : s.first_issue;
  const sc_core::sc_time to = std::max(s.last_done, s.carried.until);
  const double active_ns = (s.issued_any || straddled) && to > from ? (to - from).to_seconds() * 1e9 : 0;
  return or_null(has || straddled, active_ns > 0 ? static_cast<double>(bytes + s.carried.bytes) * 8.0 / active_ns : 0.0);
}

// A batch app's first batch: each stream's predicted and measured copy and stream end
// (seed 002 Table 2 compares these), relative to the batch start; and its program's first
// run, predicted (the sum of its batches' predictions) and measured.
ordered_json batch_json(const BatchApp& b, const BatchParams& p) {
  ordered_json j;
  j["method"] = to_string(p.method);
  // The run-time predicts a batch as it runs it: before the first batch (or run) ended, its
  // figures are unknown (null; they read 0, or a part of the sum, at a cut-off).
  j["predicted_ns"] = or_null(b.first_batch_ended(), b.predicted_ns());
  j["program_batches"] = b.program_batches();
  j["program_predicted_ns"] = or_null(b.first_run_ended(), b.program_predicted_ns());
  j["program_ns"] = or_null(b.first_run_ended(), b.program_ns());
  j["streams"] = ordered_json::array();
  if (!b.first_batch_ended()) return j;
  const BatchResult& r = b.first();
  const auto& cfg = p.batches[p.program.front()];
  for (std::size_t i = 0; i < r.stream_end_ns.size(); ++i) {
    const bool copies = cfg[i].bytes > 0;  // a stream of a kernel alone has no copy to time
    ordered_json s = {{"gpu", cfg[i].gpu},
                      {"copy_start_ns", or_null(copies, r.predicted.streams[i].copy_start)},
                      {"predicted_copy_end_ns", or_null(copies, r.predicted.streams[i].copy_end)},
                      {"copy_end_ns", or_null(copies, r.copy_end_ns[i])},
                      {"predicted_end_ns", r3(r.predicted.streams[i].kernel_end)},
                      {"end_ns", r3(r.stream_end_ns[i])}};
    if (!cfg[i].peer.empty()) s["peer"] = cfg[i].peer;
    if (r.stage_gap_ns[i] != 0) s["stage_gap_ns"] = r3(r.stage_gap_ns[i]);
    j["streams"].push_back(s);
  }
  return j;
}

// seed 004's figures of an SPMD app: the total and each process's turnaround.
ordered_json spmd_json(const SpmdApp& m) {
  const SpmdParams& p = m.params();
  ordered_json j;
  j["processes"] = p.processes;
  j["sharing"] = p.streams ? "streams" : "none";
  if (p.streams) {
    j["order"] = p.ps1 ? "ps1" : "ps2";
    j["queues"] = p.per_stream_queues ? "per_stream" : "single";
  }
  // A process cut off by the run's end has no turnaround (it read 0.0: a trial's three
  // processes of 1.2 ms showed [1200000, 0.0, 0.0] and a total of 0.0 at a 2-ms cut-off).
  const auto known = [](double v) { return v < 0 ? ordered_json(nullptr) : ordered_json(r3(v)); };
  j["total_ns"] = known(m.total_ns());
  ordered_json t = ordered_json::array();
  int unfinished = 0;
  for (const double v : m.turnaround_ns()) {
    t.push_back(known(v));
    unfinished += v < 0;
  }
  j["turnaround_ns"] = t;
  j["processes_unfinished"] = unfinished;
  return j;
}

// A periodic task's jobs (seed 003 §5.3): deadlines, response times and, job by job, the
// series of Figs. 6-7 (the first kMaxSeries jobs).
// A job released and not ended by the run's end (a time-limited run's cut-off) whose deadline
// has passed by then has missed it: counted so (it counted nowhere, a task starved to the
// cut-off showing no miss), and listed as unfinished; its response is not known, so the
// percentiles are of the ended jobs.
ordered_json periodic_json(const PeriodicApp& t, double end_ns) {
  constexpr std::size_t kMaxSeries = 100000;
  const PeriodicParams& p = t.params();
  std::vector<double> response;
  uint64_t met = 0;  // of every job: this section is whole-run, its app's counts windowed
  ordered_json series = ordered_json::array();
  for (const JobRecord& j : t.jobs()) {
    response.push_back(j.response_ns);
    met += meets_deadline(j.response_ns, p.deadline_ns);
    if (series.size() < kMaxSeries) series.push_back({r3(j.release_ns), r3(j.response_ns), r3(j.share_pct)});
  }
  ordered_json j;
  j["priority"] = p.priority;
  j["period_ns"] = r3(p.period_ns);
  j["deadline_ns"] = r3(p.deadline_ns);
  const std::vector<double> open = t.unfinished_releases_ns();
  const auto late = static_cast<uint64_t>(
      std::count_if(open.begin(), open.end(), [&](double release) { return past_deadline_at(release, p.deadline_ns, end_ns); }));
  j["jobs"] = t.jobs().size();
  j["jobs_unfinished"] = open.size();
  j["deadlines_met"] = met;
  j["deadlines_missed"] = t.jobs().size() - met + late;
  j["response_p50_ns"] = percentile_json(response, 0.50);
  j["response_p99_ns"] = percentile_json(response, 0.99);
  j["share_pct"] = r3(t.share_pct());
  j["series_truncated"] = t.jobs().size() > kMaxSeries;
  j["series"] = series;  // [release_ns, response_ns, share_pct] per job
  ordered_json changes = ordered_json::array();
  for (const auto& [at, pct] : t.share_changes())
    if (changes.size() < kMaxSeries) changes.push_back({r3(at), r3(pct)});
  j["share_changes"] = changes;  // [time_ns, share_pct] per change
  return j;
}

// Only the bins that hold something, low to high: [from_ns, to_ns, count] each.
ordered_json histogram_json(const LatencyHistogram& h) {
  ordered_json bins = ordered_json::array();
  for (const auto& [k, n] : h.bins())
    bins.push_back({r3(LatencyHistogram::lower(k)), r3(LatencyHistogram::lower(k + 1)), n});
  return bins;
}

LatencyHistogram histogram_of(const std::vector<double>& latencies_ns) {
  LatencyHistogram h;
  for (const double v : latencies_ns) h.add(v);
  return h;
}

// The copies of every app by the TC they were carried with (the VC a TC uses can differ from
// link to link: the TC is what a transfer keeps end to end).
ordered_json per_tc_json(const System& p) {
  ordered_json a = ordered_json::array();
  for (int tc = 0; tc < kNumTcs; ++tc) {
    LatencyHistogram h;
    for (const auto& app : p.apps()) h.add(app->stats().copy_latency_by_tc[tc]);
    if (h.count() == 0) continue;
    a.push_back({{"tc", tc}, {"copies", h.count()}, {"bins", histogram_json(h)}});
  }
  return a;
}

ordered_json app_json(const App& a, const AppCfg& c, double end_ns) {
  const AppStats& s = a.stats();
  ordered_json j;
  j["name"] = c.name;
  j["type"] = c.kind();
  j["gpu"] = c.gpu();
  j["bytes"] = s.bytes;
  j["transfers"] = s.transfers;
  j["iterations"] = s.iterations;
  // A throughput of data: null for an app that issued no copy (none yet, or kernels only).
  j["throughput_gbps"] = data_rate_gbps(s, s.copied_any, s.bytes);
  j["p50_ns"] = percentile_json(s.latencies_ns, 0.50);
  j["p99_ns"] = percentile_json(s.latencies_ns, 0.99);
  j["max_ns"] = percentile_json(s.latencies_ns, 1.0);
  j["latency_histogram"] = histogram_json(histogram_of(s.latencies_ns));
  if (c.timing.deadline_ns > 0) {
    j["deadline_ns"] = r3(c.timing.deadline_ns);
    j["deadlines_met"] = s.deadlines_met;
    j["deadlines_missed"] = s.deadlines_missed + a.open_past_deadline(end_ns);  // open ones past theirs too
  }
  if (const auto* b = dynamic_cast<const BatchApp*>(&a)) j["batch"] = batch_json(*b, std::get<BatchParams>(c.params));
  if (const auto* m = dynamic_cast<const SpmdApp*>(&a)) j["spmd"] = spmd_json(*m);
  if (const auto* t = dynamic_cast<const PeriodicApp*>(&a)) j["periodic"] = periodic_json(*t, end_ns);
  j["first_issue_ns"] = or_null(s.issued_any, s.first_issue.to_seconds() * 1e9);
  j["last_done_ns"] = or_null(s.last_done > sc_core::SC_ZERO_TIME, s.last_done.to_seconds() * 1e9);
  return j;
}

ordered_json vc_array(int vcs, const std::array<uint64_t, kMaxVcs>& v) {
  ordered_json a = ordered_json::array();
  for (int i = 0; i < vcs; ++i) a.push_back(v[i]);
  return a;
}

// A link direction from its egress port, or in the flow-level mode from its flow edge
// (no TLPs and no credit stalls there: docs/results.md).
ordered_json link_json(const Fabric& f, const LinkDir& l, int dir, double end_ps) {
  const EgressStats& s = f.link_stats(dir);
  ordered_json j;
  j["name"] = l.link;
  j["direction"] = l.direction;
  j["from"] = l.from;
  j["to"] = l.to;
  j["tlps"] = s.tlps;
  j["bytes"] = s.payload_bytes;
  j["wire_bytes"] = s.wire_bytes;
  // An empty statistics window (a warm-up that outlasts the traffic) has no utilization: 0/0.
  j["utilization"] = end_ps > 0 ? ordered_json(r3(s.busy_ps / end_ps)) : ordered_json(nullptr);
  j["vc_bytes"] = vc_array(f.link_vcs(dir), s.vc_bytes);
  j["credit_stall_ns"] = r3(s.credit_stall_ps / 1000.0);
  return j;
}

ordered_json arbiter_json(const Fabric& f, const LinkDir& l, int dir, const std::string& vc_arbiter) {
  const EgressStats& s = f.link_stats(dir);
  const int vcs = f.link_vcs(dir);
  ordered_json j;
  j["name"] = l.arrow_name();
  j["vc_arbiter"] = vc_arbiter;
  j["grants"] = vc_array(vcs, s.vc_grants);
  ordered_json waits = ordered_json::array();
  double max_wait = 0;
  for (int v = 0; v < vcs; ++v) {
    waits.push_back(r3(s.vc_max_head_wait_ps[v] / 1000.0));
    max_wait = std::max(max_wait, s.vc_max_head_wait_ps[v]);
  }
  j["max_head_wait_ns"] = r3(max_wait / 1000.0);
  j["vc_max_head_wait_ns"] = waits;
  j["never_granted"] = ordered_json::array();
  for (const NeverGranted& n : s.never_granted)
    j["never_granted"].push_back({{"requester", n.requester}, {"vc", n.vc}, {"waiting_ns", r3(n.waiting_ps / 1000.0)}});
  // Only with --trace, for the watched link directions, inside its window.
  if (const auto why = f.why_not_granted(dir)) {
    j["why_not_granted"] = ordered_json::array();
    for (const WaitTotal& w : *why)
      j["why_not_granted"].push_back({{"requester", w.requester}, {"vc", w.vc}, {"reason", w.reason},
                                      {"arbitrations", w.arbitrations}, {"waited_ns", r3(w.waited_ps / 1000.0)}});
  }
  return j;
}

// The liveness check: the oldest TLP of the run, delivered or still in flight at the end,
// against sim.tlp_age_limit_ns. (Conservation, ordering and credit bounds stop the run when
// they fail, so a results.json exists only when they held.) The flow mode has no TLPs: the
// check is not made there, and says so (null), rather than pass on nothing.
ordered_json run_checks_json(const System& p, const sc_core::sc_time& end) {
  const double limit = p.config().sim.tlp_age_limit_ns;
  if (!p.fabric().moves_tlps())
    return {{"conservation", "held"}, {"tlp_age_limit_ns", limit}, {"oldest_tlp_ns", nullptr},
            {"oldest_tlp_in_flight_ns", nullptr}, {"tlp_age_exceeded", nullptr}};
  bool none = true;
  const sc_core::sc_time oldest_waiting = tlp_pool().oldest_in_use(&none);
  const double waiting_ns = none ? 0.0 : ns(end - oldest_waiting);
  const double oldest = std::max(waiting_ns, r3(static_cast<double>(p.tracker().oldest_consumed_tlp_ps()) / 1000.0));
  // No TLP at all (kernels only, or a cut before the first): no oldest (it read 0.0).
  return {{"conservation", "held"}, {"tlp_age_limit_ns", limit}, {"oldest_tlp_ns", or_null(oldest > 0, oldest)},
          {"oldest_tlp_in_flight_ns", waiting_ns}, {"tlp_age_exceeded", oldest > limit}};
}

// A device's figures: bytes each way, operations and their latencies (docs/results.md).
// A GPU's state times; a MIG instance (seed 001 §3.1) also names its profile and SMs.
ordered_json gpu_json(const GpuCompute& g, const GpuUnit& u) {
  ordered_json j = {{"name", g.label()}};
  if (u.instance >= 0) {
    j["mig_profile"] = std::to_string(u.slices) + "g";
    j["sms"] = u.sm.sms;
  }
  j["copy_ns"] = r3(g.state_ns(GpuState::Copy));
  j["compute_ns"] = r3(g.state_ns(GpuState::Compute));
  j["stalled_ns"] = r3(g.state_ns(GpuState::Stalled));
  j["idle_ns"] = r3(g.state_ns(GpuState::Idle));
  j["copy_any_ns"] = r3(g.copy_any_ns());
  j["kernels"] = g.kernels_run();
  return j;
}

ordered_json device_json(const Device& d, const NodeCfg& n) {
  const DeviceStats& s = d.stats();
  const uint64_t bytes = s.bytes_to_host + s.bytes_from_host;
  return {{"name", n.name},
          {"type", n.type_name()},
          {"bytes_to_host", s.bytes_to_host},
          {"bytes_from_host", s.bytes_from_host},
          {"operations", s.operations},
          {"dropped", s.dropped},
          {"throughput_gbps", data_rate_gbps(s, s.issued_any, bytes)},
          {"p50_ns", percentile_json(s.latencies_ns, 0.50)},
          {"p99_ns", percentile_json(s.latencies_ns, 0.99)},
          {"finished", d.finished()}};
}

// The app or device whose copies carry flow id `flow` (System: apps first, then devices).
std::string owner_of(const System& p, uint32_t flow) {
  const std::size_t apps = p.apps().size();
  if (flow >= 1 && flow <= apps) return p.config().apps[flow - 1].name;
  const std::size_t dev = flow - apps - 1;
  if (flow > apps && dev < p.devices().size()) return p.config().platform.nodes[p.device_nodes()[dev]].name;
  return "";
}

ordered_json party_json(const System& p, const DetectedTlp& t) {
  return {{"app", owner_of(p, t.flow)}, {"transfer", t.transfer}, {"tc", t.tc}, {"requester", t.requester}};
}

// --detect: per kind, the episodes' count and time, and the first kMaxListed of them.
ordered_json detectors_json(const System& p, const std::vector<Detection>& found) {
  constexpr std::size_t kMaxListed = 1000;
  ordered_json j;
  j["starvation_bound_ns"] = r3(p.fabric_observe().starvation_bound_ns);
  for (const char* kind : {"head_of_line_blocking", "priority_inversion", "starvation"}) {
    ordered_json k = {{"episodes", 0}, {"total_ns", 0.0}, {"listed", ordered_json::array()}};
    uint64_t n = 0;
    double total_ps = 0;
    for (const Detection& d : found) {
      if (d.kind != kind) continue;
      ++n;
      total_ps += static_cast<double>(d.to_ps - d.from_ps);
      if (k["listed"].size() >= kMaxListed) continue;
      ordered_json e = {{"from_ns", r3(d.from_ps / 1000.0)}, {"to_ns", r3(d.to_ps / 1000.0)},
                        {"ns", r3((d.to_ps - d.from_ps) / 1000.0)}, {"to_end", d.to_end}, {"where", d.where},
                        {"waiting", party_json(p, d.waiting)}};
      if (d.kind != "starvation") e["cause"] = party_json(p, d.cause);
      e["detail"] = d.detail;
      k["listed"].push_back(e);
    }
    k["episodes"] = n;
    k["total_ns"] = r3(total_ps / 1000.0);
    j[kind] = k;
  }
  return j;
}

}  // namespace

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
}

namespace {

// With sim.warmup_ns: the window the statistics cover, and what still covers the whole run
// (docs/results.md, "Warm-up").
ordered_json window_json(double warmup_ns, const sc_core::sc_time& end) {
  const double from = std::min(warmup_ns, ns(end));
  return {{"from_ns", r3(from)},
          {"to_ns", ns(end)},
          {"whole_run", {"makespan_ns", "tlp_hops", "bytes_injected", "bytes_delivered", "duplicate_bytes",
                         "ordering_violations", "transfers_completed",
                         "transfers_open", "run_checks", "fidelity_notes", "apps[].batch", "apps[].spmd",
                         "apps[].periodic", "arbiters[].why_not_granted (its --trace-window)",
                         "detectors (its --trace-window)"}}};
}

ordered_json collect_results_unwindowed(const System& p, const sc_core::sc_time& end, double window_ps) {
  sc_core::sc_time makespan;
  for (const auto& a : p.apps()) makespan = std::max(makespan, a->last_done_whole_run());
  for (const auto& g : p.gpus()) makespan = std::max(makespan, g->last_activity());
  for (const auto& d : p.devices()) makespan = std::max(makespan, d->last_done_whole_run());
  ordered_json j;
  j["schema"] = "pcie-arbsim.results/2";
  j["config_hash"] = config_hash(p.config());
  j["platform"] = p.config().platform.name;
  j["seed"] = p.config().sim.seed;
  j["policy"] = to_string(p.config().driver.policy);
  j["fidelity"] = to_string(p.config().sim.fidelity);
  j["fidelity_notes"] = ordered_json::array();
  std::vector<FidelityNote> notes = p.model_notes();
  notes.insert(notes.end(), p.fabric().fidelity_notes().begin(), p.fabric().fidelity_notes().end());
  const std::vector<FidelityNote> cutoff = p.cutoff_notes(ns(end));
  notes.insert(notes.end(), cutoff.begin(), cutoff.end());
  const std::vector<FidelityNote> ties = p.tie_notes();
  notes.insert(notes.end(), ties.begin(), ties.end());
  for (const FidelityNote& n : notes) {
    ordered_json who = ordered_json::array();
    for (uint32_t f : n.flows) who.push_back(owner_of(p, f));
    j["fidelity_notes"].push_back({{"where", n.where}, {"setting", n.setting}, {"effect", n.effect}, {"apps", who}});
  }
  j["sim_time_ns"] = ns(end);
  j["makespan_ns"] = ns(makespan);
  j["tlp_hops"] = p.fabric().tlp_hops();
  const TransferTracker& t = p.tracker();
  j["bytes_injected"] = t.injected_bytes();
  j["bytes_delivered"] = t.delivered_bytes();
  j["duplicate_bytes"] = t.duplicate_bytes();
  j["ordering_violations"] = t.order_violations();
  j["transfers_completed"] = t.completed_transfers();
  j["transfers_open"] = t.open_transfers();
  j["run_checks"] = run_checks_json(p, end);
  j["apps"] = ordered_json::array();
  for (std::size_t k = 0; k < p.apps().size(); ++k)
    j["apps"].push_back(app_json(*p.apps()[k], p.config().apps[k], end.to_seconds() * 1e9));
  j["latency_histograms"] = {{"bins_per_decade", LatencyHistogram::kBinsPerDecade}, {"per_tc", per_tc_json(p)}};
  j["gpus"] = ordered_json::array();
  for (std::size_t k = 0; k < p.gpus().size(); ++k) j["gpus"].push_back(gpu_json(*p.gpus()[k], p.scenario().units[k]));
  if (!p.devices().empty()) {  // only platforms with devices have the key
    j["devices"] = ordered_json::array();
    for (std::size_t k = 0; k < p.devices().size(); ++k)
      j["devices"].push_back(device_json(*p.devices()[k], p.config().platform.nodes[p.device_nodes()[k]]));
  }
  j["links"] = ordered_json::array();
  j["arbiters"] = ordered_json::array();
  const Fabric& f = p.fabric();
  const std::vector<LinkDir>& walk = p.scenario().walk;
  for (std::size_t d = 0; d < walk.size(); ++d) {
    const int dir = static_cast<int>(d);
    j["links"].push_back(link_json(f, walk[d], dir, window_ps));
    if (const auto vc = f.vc_arbiter(dir)) j["arbiters"].push_back(arbiter_json(f, walk[d], dir, *vc));
  }
  if (const auto* found = f.detections()) j["detectors"] = detectors_json(p, *found);
  return j;
}

}  // namespace

ordered_json collect_results(const System& p, const sc_core::sc_time& end) {
  const double warmup_ps = std::min(p.config().sim.warmup_ns * 1000.0, end.to_seconds() * 1e12);
  ordered_json j = collect_results_unwindowed(p, end, end.to_seconds() * 1e12 - warmup_ps);
  if (p.config().sim.warmup_ns <= 0) return j;
  // After sim_time_ns, where a reader looks for the run's span.
  ordered_json out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    out[it.key()] = std::move(it.value());
    if (it.key() == "sim_time_ns") out["statistics_window"] = window_json(p.config().sim.warmup_ns, end);
  }
  return out;
}

}  // namespace arbsim
