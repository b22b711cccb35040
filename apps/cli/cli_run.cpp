// `run` and `validate`: load and check the config, simulate, write the outputs atomically
// (nothing is written for bad input), print the summary.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <sys/resource.h>
#include <unistd.h>
#include "apps/cli/cli.h"
#include "apps/cli/output_dir.h"
#include "apps/run/gtkw_writer.h"
#include "apps/run/logging.h"
#include "apps/run/simulation.h"
#include "apps/run/vcd_filter.h"
#include "apps/run/version.h"
#include "platforms/config/reader.h"

namespace arbsim {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

std::vector<std::string> all_overrides(const RunArgs& a) {
  std::vector<std::string> o = a.overrides;
  // A shorthand comes after every -s, so it won whichever the user wrote last: both for one
  // key is refused (found by a user trial: --sim-time 20us -s sim.time_ns=50us ran 20 us).
  const auto once = [&](bool given, const std::string& flag, const std::string& key) {
    if (!given) return;
    for (const std::string& s : a.overrides) {
      const std::string k = s.substr(0, s.find('='));  // the key itself, or a map above it (-s 'sim={...}')
      if (k == key || key.rfind(k + ".", 0) == 0)
        throw ConfigError(flag + " and -s " + s + " both set " + key + ": give one");
    }
  };
  once(!a.sim_time.empty(), "--sim-time", "sim.time_ns");
  once(a.seed.has_value(), "--seed", "sim.seed");
  once(!a.log_level.empty(), "--log-level", "sim.log_level");
  once(!a.fidelity.empty(), "--fidelity", "sim.fidelity");
  once(!a.arbiter_impl.empty(), "--arbiter-impl", "platform.arbiter_impl");
  if (!a.sim_time.empty()) {
    double ns = 0;
    if (!parse_time_ns(a.sim_time, &ns) || !(ns > 0))
      throw ConfigError("--sim-time " + a.sim_time + ": expected a positive time such as 300us, 0.3s or 1e6 (ns)");
    std::ostringstream s;
    s << std::setprecision(17) << ns;
    o.push_back("sim.time_ns=" + s.str());
  }
  if (a.seed) {
    if (*a.seed < 0) throw ConfigError("--seed " + std::to_string(*a.seed) + ": must be >= 0");
    o.push_back("sim.seed=" + std::to_string(*a.seed));
  }
  if (!a.log_level.empty()) o.push_back("sim.log_level=" + a.log_level);
  if (!a.arbiter_impl.empty()) {
    if (a.arbiter_impl != "cpp" && a.arbiter_impl != "rtl")
      throw ConfigError("--arbiter-impl " + a.arbiter_impl + ": expected cpp or rtl");
    o.push_back("platform.arbiter_impl=" + a.arbiter_impl);
  }
  if (!a.fidelity.empty()) {
    if (a.fidelity != "packet" && a.fidelity != "flow")
      throw ConfigError("--fidelity " + a.fidelity + ": expected packet or flow");
    o.push_back("sim.fidelity=" + a.fidelity);
  }
  return o;
}

// SystemC appends ".vcd" to the name it is given (simulation.cpp strips one first).
std::string vcd_stem(const std::string& vcd) {
  std::string stem = vcd;
  if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, ".vcd") == 0) stem.resize(stem.size() - 4);
  return stem;
}
std::string vcd_file_name(const std::string& vcd) { return vcd_stem(vcd) + ".vcd"; }
// The RTL arbiters' own waveform goes beside the model's: FILE.vcd -> FILE.rtl.vcd.
std::string rtl_vcd_path(const std::string& vcd) { return vcd_stem(vcd) + ".rtl.vcd"; }
// GTKWave's save file and its GPU-state filter go beside the VCD (apps/run/gtkw_writer.h).
std::vector<fs::path> gtkw_paths(const std::string& vcd) {
  return {fs::path(vcd_stem(vcd) + ".gtkw"), fs::path(vcd_stem(vcd) + ".gpu_state.txt")};
}

// A figure for print, in `scale` units to three decimals, right-aligned in `width`; "-" for a
// null one (nothing to take it of: docs/results.md).
std::string cell(const ordered_json& v, double scale, int width) {
  char s[64];
  if (v.is_null()) std::snprintf(s, sizeof s, "%*s", width, "-");
  else std::snprintf(s, sizeof s, "%*.3f", width, v.get<double>() / scale);
  return s;
}

// The summary a run prints (docs/results.md, "The printed summary"): the figures of
// results.json in four tables, with the window they cover.
void print_summary(const ordered_json& r, const fs::path& out) {
  std::printf("pcie-arbsim: %s, simulated %.3f us, makespan %.3f us, %llu TLP hops%s\n",
              r["platform"].get<std::string>().c_str(), r["sim_time_ns"].get<double>() / 1e3,
              r["makespan_ns"].get<double>() / 1e3, r["tlp_hops"].get<unsigned long long>(),
              r["fidelity"] == "flow" ? " (flow-level)" : "");
  if (r.contains("statistics_window"))
    std::printf("statistics from %.3f us (the warm-up's end) to %.3f us\n",
                r["statistics_window"]["from_ns"].get<double>() / 1e3, r["statistics_window"]["to_ns"].get<double>() / 1e3);
  std::printf("\n%-16s %-8s %14s %6s %10s %12s %12s\n", "app", "gpu", "bytes", "iters", "Gb/s", "p50 us", "p99 us");
  for (const auto& a : r["apps"])
    std::printf("%-16s %-8s %14llu %6llu %s %s %s\n", a["name"].get<std::string>().c_str(),
                a["gpu"].get<std::string>().c_str(), a["bytes"].get<unsigned long long>(),
                a["iterations"].get<unsigned long long>(), cell(a["throughput_gbps"], 1, 10).c_str(),
                cell(a["p50_ns"], 1e3, 12).c_str(), cell(a["p99_ns"], 1e3, 12).c_str());
  if (r.contains("devices")) {
    std::printf("\n%-16s %-8s %14s %14s %10s %10s %12s %12s\n", "device", "type", "bytes to host", "from host",
                "ops", "Gb/s", "p50 us", "p99 us");
    for (const auto& d : r["devices"])
      std::printf("%-16s %-8s %14llu %14llu %10llu %s %s %s\n", d["name"].get<std::string>().c_str(),
                  d["type"].get<std::string>().c_str(), d["bytes_to_host"].get<unsigned long long>(),
                  d["bytes_from_host"].get<unsigned long long>(), d["operations"].get<unsigned long long>(),
                  cell(d["throughput_gbps"], 1, 10).c_str(), cell(d["p50_ns"], 1e3, 12).c_str(),
                  cell(d["p99_ns"], 1e3, 12).c_str());
  }
  std::printf("\n%-16s %12s %12s %12s %12s\n", "gpu", "copy us", "compute us", "stalled us", "idle us");
  for (const auto& g : r["gpus"])
    std::printf("%-16s %12.3f %12.3f %12.3f %12.3f\n", g["name"].get<std::string>().c_str(),
                g["copy_ns"].get<double>() / 1e3, g["compute_ns"].get<double>() / 1e3,
                g["stalled_ns"].get<double>() / 1e3, g["idle_ns"].get<double>() / 1e3);
  // Every direction that carried bytes (the flow fidelity counts no TLPs) or a TLP, or
  // stalled for credits: one carrying read requests only (no payload) can be the bottleneck
  // (it was left out: a credit stall of 99 % of a run on an upward direction did not show).
  std::printf("\n%-22s %-11s %8s %16s\n", "link", "direction", "util", "credit stall us");
  for (const auto& l : r["links"])
    if (l["bytes"].get<unsigned long long>() > 0 || l["wire_bytes"].get<unsigned long long>() > 0 ||
        l["tlps"].get<unsigned long long>() > 0 || l["credit_stall_ns"].get<double>() > 0)
      std::printf("%-22s %-11s %7.1f%% %16.3f\n", l["name"].get<std::string>().c_str(),
                  l["direction"].get<std::string>().c_str(), 100 * l["utilization"].get<double>(),
                  l["credit_stall_ns"].get<double>() / 1e3);
  std::printf("\nresults: %s\n", (out / "results.json").string().c_str());
}

ordered_json run_info(const RunArgs& a, const SimOutcome& o, const std::vector<std::string>& outputs) {
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  const double hops = o.results["tlp_hops"].get<double>();
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  ordered_json j;
  j["config"] = a.config;
  j["config_hash"] = o.results["config_hash"];
  j["version"] = version();
  j["build_type"] = build_type();
  j["command_line"] = a.command_line;
  j["finished_at"] = stamp;
  j["wall_seconds"] = o.wall_seconds;
  j["cpu_seconds"] = o.cpu_seconds;
  j["peak_rss_mib"] = static_cast<double>(ru.ru_maxrss) / 1024.0;
  j["tlp_hops_per_second"] = o.wall_seconds > 0 ? hops / o.wall_seconds : 0.0;
  j["sim_seconds_per_wall_second"] = o.wall_seconds > 0 ? o.end.to_seconds() / o.wall_seconds : 0.0;
  j["outputs"] = outputs;
  return j;
}

// Seed 002 §5: "during the execution of a batch operation, the interconnect must be used
// exclusively by the execution algorithm" - else the predicted schedules do not hold.
// Devices count: a NIC beside a batch ran it 85 % over its prediction with nothing said.
void warn_if_batches_share(const Config& cfg) {
  int batch = 0, other = 0, devices = 0;
  for (const AppCfg& a : cfg.apps) (std::holds_alternative<BatchParams>(a.params) ? batch : other)++;
  for (const NodeCfg& n : cfg.platform.nodes) devices += n.is(NodeKind::Endpoint);
  if (batch > 0 && other + devices > 0)
    log()->warn("batch predictions assume the interconnect is the batch run-time's alone (seed 002 §5); "
                "{} other app(s) and {} device(s) share it here, so batches may run longer than predicted",
                other, devices);
}

// An app whose start_ns is at or after the run's end issued nothing: its latencies and
// throughput are null in results.json, and the log says why.
void warn_of_apps_that_never_started(const Config& cfg, double end_ns) {
  for (const AppCfg& a : cfg.apps)
    if (a.timing.start_ns >= end_ns)
      log()->warn("app {} never started: its start_ns ({} ns) is at or after the run's end ({} ns); its figures "
                  "in results.json are null (nothing measured)",
                  a.name, log_ns(a.timing.start_ns), log_ns(end_ns));
}

int fail(int code, const std::string& msg) {
  std::cerr << "error: " << one_line(msg) << "\n";
  return code;
}

// T0:T1 with 0 <= T0 < T1, or T0: (to the end: *to_ns 0), of `flag`; throws ConfigError.
void parse_window(const std::string& flag, const std::string& text, double* from_ns, double* to_ns) {
  const std::size_t colon = text.find(':');
  const std::string from = text.substr(0, colon);
  const std::string to = colon == std::string::npos ? "" : text.substr(colon + 1);
  const bool ok = colon != std::string::npos && parse_time_ns(from, from_ns) && *from_ns >= 0 &&
                  (to.empty() || (parse_time_ns(to, to_ns) && *to_ns > *from_ns));
  if (!ok)
    throw ConfigError(flag + " " + text +
                      ": expected T0:T1 with 0 <= T0 < T1 (e.g. 100us:120us), or T0: for the rest of the run");
}

// --detect [--starvation-bound T]; throws ConfigError.
void detect_options(const RunArgs& a, ObserveOptions* o) {
  if (!a.detect) {
    if (!a.starvation_bound.empty()) throw ConfigError("--starvation-bound needs --detect");
    return;
  }
  o->detect = true;
  if (!a.starvation_bound.empty() && !(parse_time_ns(a.starvation_bound, &o->starvation_bound_ns) &&
                                       o->starvation_bound_ns > 0))
    throw ConfigError("--starvation-bound " + a.starvation_bound + ": expected a time > 0 (e.g. 5us, 2000)");
}

// A window that opens at or after a time-limited run's end would hold nothing; throws
// ConfigError.
void check_window_start(const std::string& flag, const std::string& text, double from_ns, const Scenario& s) {
  const double end = s.config.sim.time_ns;
  if (end > 0 && from_ns >= end)
    throw ConfigError(flag + " " + text + ": starts at or after the run's end (sim.time_ns = " +
                      std::to_string(static_cast<int64_t>(end)) + " ns)");
}

// --trace, --trace-window T0:T1 (T0: = to the end), --trace-filter GLOB, --detect; throws
// ConfigError.
ObserveOptions observe_options(const RunArgs& a, const Scenario& s) {
  ObserveOptions o;
  detect_options(a, &o);
  if (a.trace.empty() && !a.detect) {
    if (!a.trace_window.empty() || !a.trace_filter.empty())
      throw ConfigError("--trace-window and --trace-filter need --trace FILE or --detect");
    return o;
  }
  if (const std::string why = why_not_observable(s); !why.empty())
    throw ConfigError(std::string(a.trace.empty() ? "--detect" : "--trace") + ": " + why);
  o.on = !a.trace.empty();
  if (!a.trace_filter.empty()) o.filter = a.trace_filter;
  if (!a.trace_window.empty()) {
    parse_window("--trace-window", a.trace_window, &o.from_ns, &o.to_ns);
    check_window_start("--trace-window", a.trace_window, o.from_ns, s);
  }
  return o;
}

// A --trace-filter that matches no link direction leaves a trace (and detectors) with
// nothing in them: said in the log, as for --vcd-filter and --log.
void warn_if_trace_filter_matches_nothing(const RunArgs& a, const Scenario& s) {
  if (a.trace_filter.empty()) return;
  for (const LinkDir& d : s.walk)
    if (d.matches(a.trace_filter)) return;
  log()->warn("--trace-filter {} matches no link direction: the trace and the detectors watch nothing (link "
              "directions are named as in results.json, e.g. '{}')",
              a.trace_filter, s.walk.empty() ? std::string("sw0->rc0") : s.walk.front().arrow_name());
}

// --vcd-window T0:T1 (needs --vcd; T0 inside a time-limited run); throws ConfigError.
VcdWindow vcd_window(const RunArgs& a, const Scenario& s) {
  VcdWindow w;
  if (a.vcd_window.empty()) return w;
  if (a.vcd.empty()) throw ConfigError("--vcd-window needs --vcd FILE");
  parse_window("--vcd-window", a.vcd_window, &w.from_ns, &w.to_ns);
  check_window_start("--vcd-window", a.vcd_window, w.from_ns, s);
  return w;
}

// The files a run owns in its output directory (OutputDir::clear_previous), and those a
// sweep keeps beside them (the run's captured console, the point's key: docs/sweeps.md).
const std::vector<std::string> kRunFiles = {"results.json", "run.json", "config.effective.yaml", "sim.log",
                                            "series.csv"};
const std::vector<std::string> kSweepFiles = {"log.txt", "point.json"};

// The files this run may write outside its directory's staging: the model's VCD, the RTL
// arbiters' when any is co-simulated, and the transaction trace (`existing`: only those
// written).
std::vector<fs::path> vcd_files(const RunArgs& a, bool existing) {
  std::vector<fs::path> v;
  std::error_code ec;
  if (!a.vcd.empty()) {
    std::vector<fs::path> all = {fs::path(vcd_file_name(a.vcd)), fs::path(rtl_vcd_path(a.vcd))};
    for (const fs::path& f : gtkw_paths(a.vcd)) all.push_back(f);
    for (const fs::path& f : all)
      if (!existing || fs::exists(f, ec)) v.push_back(f);
  }
  if (!a.trace.empty() && (!existing || fs::exists(a.trace, ec))) v.push_back(a.trace);
  return v;
}

// Output names as run.json lists them: relative to the directory when inside it, else
// absolute. A name relative to the working directory was read back relative to DIR when a
// later run cleared DIR (OutputDir::clear_previous), which removed a file of the user's.
std::vector<std::string> output_names(const OutputDir& dir, const std::vector<fs::path>& vcds, bool series) {
  std::vector<std::string> names = {"config.effective.yaml", "run.json", "results.json", "sim.log"};
  if (series) names.push_back("series.csv");
  const fs::path base = fs::absolute(dir.path()).lexically_normal();
  for (const fs::path& v : vcds) {  // and the trace, which vcd_files() lists too
    const fs::path full = fs::absolute(v).lexically_normal();
    const fs::path rel = full.lexically_proximate(base);
    names.push_back(rel.empty() || *rel.begin() == ".." || rel.is_absolute() ? full.string() : rel.string());
  }
  return names;
}

// Files SystemC and spdlog write themselves: checked after the run, as their writers
// report no errors of their own.
void check_unchecked_writes(const std::vector<fs::path>& vcds) {
  std::string why;
  if (!flush_logging(&why)) throw OutputError("cannot write the log sim.log: " + why);
  for (const fs::path& v : vcds)
    if (!looks_complete(v, &why)) throw OutputError("the waveform '" + v.string() + "' is incomplete: " + why);
}

// The save file is made from the VCD's own header: the signals it really holds.
void write_gtkw(const std::string& vcd) {
  std::vector<std::pair<std::string, std::string>> files;
  try {
    files = gtkw_files(vcd_file_name(vcd));
  } catch (const std::runtime_error& e) {
    throw OutputError(std::string("the GTKWave save file: ") + e.what());
  }
  for (const auto& [path, text] : files) OutputDir::write_file(path, text);
}

void remove_files(const std::vector<fs::path>& files) {
  std::error_code ec;
  for (const fs::path& f : files) fs::remove(f, ec);
}

// --vcd-filter and --vcd-window on the model's VCD (the RTL arbiters' own VCD is kept whole).
void rewrite_vcd_output(const RunArgs& a, const VcdWindow& w) {
  if (a.vcd_filter.empty() && w.from_ns <= 0) return;
  try {
    const VcdRewrite r{vcd_globs(a.vcd_filter), static_cast<uint64_t>(std::llround(w.from_ns * 1000.0))};
    if (rewrite_vcd_file(vcd_file_name(a.vcd), r) == 0)
      log()->warn("--vcd-filter {} matches no signal: the VCD holds none", a.vcd_filter);
  } catch (const std::runtime_error& e) {
    throw OutputError(e.what());
  }
}

// A file the run writes outside its directory: its directory made, and a file written and
// removed there, before the simulation (not found unwritable only after it); throws OutputError.
void prepare_file_outside(const std::string& file, const std::string& flag) {
  const fs::path p(file);
  std::error_code ec;
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  if (ec) throw OutputError("cannot create the directory of " + flag + " " + file + ": " + ec.message());
  const fs::path probe = p.string() + ".probe.tmp";
  OutputDir::write_file(probe, "");
  fs::remove(probe, ec);
}

int simulate_into(const RunArgs& a, const Scenario& s, const ObserveOptions& observe, const VcdWindow& vcd,
                  OutputDir& dir, const std::vector<std::string>& warnings) {
  const Config& cfg = s.config;
  const std::string replaced = dir.clear_previous(kRunFiles, kSweepFiles);
  init_logging(cfg.sim.log_level, dir.file("sim.log").string(),
               a.log_modules.empty() ? std::map<std::string, std::string>{} : parse_module_levels(a.log_modules));
  if (!replaced.empty()) log()->warn("{}", replaced);
  log()->info("config {} -> {}", a.config, dir.path().string());
  for (const std::string& w : warnings) log()->warn("{}", w);
  warn_if_batches_share(cfg);
  warn_if_trace_filter_matches_nothing(a, s);
  if (!a.vcd.empty()) request_arbiter_waveform("rtl", rtl_vcd_path(a.vcd));  // written only when an arbiter is RTL (docs/cosim.md)
  try {
    remove_files(vcd_files(a, false));  // an earlier run's, which this one replaces
    SimOutcome o = simulate(s, a.vcd, observe, a.progress || isatty(2), vcd);
    if (!a.vcd.empty()) request_arbiter_waveform("rtl", "");  // the RTL's VCD, else closed only at exit
    if (observe.on) OutputDir::write_file(a.trace, o.trace_json);
    if (!a.vcd.empty() && fs::exists(vcd_file_name(a.vcd))) {  // none when the run ended before its window
      rewrite_vcd_output(a, vcd);
      write_gtkw(a.vcd);
    }
    const std::vector<fs::path> vcds = vcd_files(a, true);
    warn_of_apps_that_never_started(cfg, o.results["sim_time_ns"].get<double>());
    if (o.results["transfers_open"].get<unsigned long long>() > 0)
      log()->warn("{} transfers were still open when the simulation stopped",
                  o.results["transfers_open"].get<unsigned long long>());
    check_unchecked_writes(vcds);
    dir.stage("config.effective.yaml", effective_yaml(cfg));
    if (!o.series_csv.empty()) dir.stage("series.csv", o.series_csv);
    dir.stage("run.json", run_info(a, o, output_names(dir, vcds, !o.series_csv.empty())).dump(2) + "\n");
    dir.stage("results.json", o.results.dump(2) + "\n");  // last: a sweep counts a point done by it
    dir.commit();
    print_summary(o.results, dir.path());
    return kExitOk;
  } catch (...) {
    remove_files(vcd_files(a, false));  // no partial outputs
    throw;
  }
}

fs::path out_dir_of(const RunArgs& a) {
  return a.out_dir.empty() ? fs::path("runs") / fs::path(a.config).stem() : fs::path(a.out_dir);
}

// Two outputs on one file, or an output on the config, would lose one of them silently (a
// trace over sim.log, over the VCD or over the config itself): refused, as a trace path that
// is a directory is. Paths compared as the filesystem resolves them.
void check_output_paths(const RunArgs& a) {
  const auto resolved = [](const fs::path& p) {
    std::error_code ec;
    const fs::path c = fs::weakly_canonical(fs::absolute(p), ec);
    return ec ? fs::absolute(p).lexically_normal() : c;
  };
  std::vector<std::pair<std::string, fs::path>> files = {{"the config", a.config}, {"--out", out_dir_of(a)}};
  for (const std::string& f : kRunFiles) files.push_back({"--out's " + f, out_dir_of(a) / f});
  if (!a.vcd.empty()) {
    files.push_back({"--vcd", vcd_file_name(a.vcd)});
    files.push_back({"the RTL arbiters' VCD", rtl_vcd_path(a.vcd)});
    for (const fs::path& g : gtkw_paths(a.vcd)) files.push_back({"--vcd's " + g.extension().string() + " file", g});
  }
  if (!a.trace.empty()) files.push_back({"--trace", a.trace});
  for (std::size_t i = 0; i < files.size(); ++i)
    for (std::size_t j = i + 1; j < files.size(); ++j)
      if (resolved(files[i].second) == resolved(files[j].second))
        throw ConfigError(files[i].first + " and " + files[j].first + " are one file, " + files[j].second.string() +
                          ": one would overwrite the other");
  std::error_code ec;
  if (!a.trace.empty() && fs::is_directory(a.trace, ec))
    throw ConfigError("--trace " + a.trace + ": is a directory (expected a file name, e.g. trace.json)");
  // A path through a file (`afile/t.json`) can never be written: bad input, as the two above.
  for (const auto& [flag, path] : {std::pair<std::string, std::string>{"--trace", a.trace}, {"--vcd", a.vcd}}) {
    for (fs::path up = fs::path(path).parent_path(); !path.empty() && !up.empty(); up = up.parent_path()) {
      if (fs::exists(up, ec) && !fs::is_directory(up, ec))
        throw ConfigError(flag + " " + path + ": " + up.string() + " is a file, not a directory");
      if (up == up.root_path()) break;
    }
  }
}

// The config and every option, checked as a run needs them (validate checks the same, so a
// command it calls ok runs); throws ConfigError on bad input, before anything is written.
struct CheckedRun {
  Scenario scenario;
  ObserveOptions observe;
  VcdWindow vcd;
  std::vector<std::string> warnings;  // for the log (run) or stderr (validate)
};

// An override of a `platform.defaults` key that changes nothing: every element sets that key
// itself. A resolved config (config.effective.yaml writes every key on every link) is such a
// one: -s platform.defaults.link.width=8 on it ran x16 (found by a user trial).
std::vector<std::string> defaults_that_change_nothing(const RunArgs& a, const Scenario& s) {
  std::vector<std::string> out;
  const std::vector<std::string> all = all_overrides(a);
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].rfind("platform.defaults.", 0) != 0) continue;
    std::vector<std::string> without = all;
    without.erase(without.begin() + static_cast<std::ptrdiff_t>(i));
    try {
      const Config before = load_scenario(a.config, without).config;
      // One that sets the value the defaults already have changes nothing either, but not
      // for that reason: said nothing of (it read "every element ... sets that key itself").
      if (canonical_config(before) == canonical_config(s.config)) continue;
      if (elements_yaml(before) == elements_yaml(s.config))
        out.push_back("-s " + all[i] + " changes nothing: every element it would reach sets that key itself (a "
                      "resolved config such as config.effective.yaml does); set the key on the elements");
    } catch (const ConfigError&) {  // without it the config is not valid: it does something
    }
  }
  return out;
}

CheckedRun check_run(const RunArgs& a) {
  CheckedRun c;
  c.scenario = load_scenario(a.config, all_overrides(a));
  c.observe = observe_options(a, c.scenario);
  c.vcd = vcd_window(a, c.scenario);
  if (!a.log_modules.empty()) {
    try {
      parse_module_levels(a.log_modules);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(e.what());
    }
  }
  if (!a.vcd_filter.empty() && (a.vcd.empty() || vcd_globs(a.vcd_filter).empty()))
    throw ConfigError("--vcd-filter " + a.vcd_filter + ": needs --vcd FILE and at least one glob");
  check_output_paths(a);
  c.warnings = defaults_that_change_nothing(a, c.scenario);
  return c;
}

}  // namespace

int cmd_validate(const RunArgs& a) {
  try {
    const CheckedRun c = check_run(a);
    for (const std::string& w : c.warnings) std::cerr << "warning: " << w << "\n";
    std::cout << effective_yaml(c.scenario.config);
    std::cerr << a.config << ": ok\n";
    return kExitOk;
  } catch (const ConfigError& e) {
    return fail(kExitBadInput, e.what());
  }
}

int cmd_run(const RunArgs& a) {
  Scenario scenario;
  ObserveOptions observe;
  VcdWindow vcd;
  std::vector<std::string> warnings;
  try {
    CheckedRun c = check_run(a);
    scenario = std::move(c.scenario);
    observe = c.observe;
    vcd = c.vcd;
    warnings = std::move(c.warnings);
  } catch (const ConfigError& e) {
    return fail(kExitBadInput, e.what());
  }
  // Files outside the directory first: one that cannot be written fails the run before the
  // directory is made or an earlier run's outputs in it are cleared.
  try {
    if (!a.vcd.empty()) prepare_file_outside(a.vcd, "--vcd");
    if (!a.trace.empty()) prepare_file_outside(a.trace, "--trace");
  } catch (const OutputError& e) {
    return fail(kExitIoError, e.what());
  }
  const fs::path out = out_dir_of(a);
  std::unique_ptr<OutputDir> dir;
  try {
    dir = std::make_unique<OutputDir>(out);
  } catch (const OutputError& e) {
    return fail(kExitBadInput, e.what());
  }
  try {
    return simulate_into(a, scenario, observe, vcd, *dir, warnings);
  } catch (const OutputError& e) {
    return fail(kExitIoError, e.what());
  } catch (const sc_core::sc_report& r) {
    return fail(kExitModelError, std::string("model error: ") + r.what());
  } catch (const std::exception& e) {
    return fail(kExitModelError, e.what());
  }
}

}  // namespace arbsim
