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
#include "apps/cli.h"
#include "platforms/logging.h"
#include "platforms/simulation.h"

namespace arbsim {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

bool parse_duration_ns(const std::string& text, double* out) {
  std::istringstream in(text);
  double v = 0;
  if (!(in >> v) || v <= 0) return false;
  std::string unit;
  in >> unit;
  static const std::pair<const char*, double> units[] = {
      {"", 1}, {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  for (const auto& [name, scale] : units)
    if (unit == name) {
      *out = v * scale;
      return true;
    }
  return false;
}

void write_atomically(const std::string& path, const std::string& text) {
  const fs::path tmp = path + ".tmp";
  { std::ofstream(tmp) << text; }
  fs::rename(tmp, path);
}

namespace {

std::vector<std::string> all_overrides(const RunArgs& a) {
  std::vector<std::string> o = a.overrides;
  if (!a.sim_time.empty()) {
    double ns = 0;
    if (!parse_duration_ns(a.sim_time, &ns))
      throw ConfigError("--sim-time " + a.sim_time + ": expected a positive time such as 300us, 0.3s or 1e6 (ns)");
    std::ostringstream s;
    s << std::setprecision(17) << ns;
    o.push_back("sim.time_ns=" + s.str());
  }
  if (a.seed >= 0) o.push_back("sim.seed=" + std::to_string(a.seed));
  else if (a.seed != -1) throw ConfigError("--seed: must be >= 0");
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

// The RTL arbiters' own waveform goes beside the model's: FILE.vcd -> FILE.rtl.vcd.
std::string rtl_vcd_path(const std::string& vcd) {
  std::string stem = vcd;
  if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, ".vcd") == 0) stem.resize(stem.size() - 4);
  return stem + ".rtl.vcd";
}

std::string yaml_text(const YAML::Node& n) {
  YAML::Emitter e;
  e << n;
  return std::string(e.c_str()) + "\n";
}

void print_summary(const ordered_json& r, const fs::path& out) {
  std::printf("pcie-arbsim: %s, simulated %.3f us, makespan %.3f us, %llu TLP hops%s\n",
              r["platform"].get<std::string>().c_str(), r["sim_time_ns"].get<double>() / 1e3,
              r["makespan_ns"].get<double>() / 1e3, r["tlp_hops"].get<unsigned long long>(),
              r["fidelity"] == "flow" ? " (flow-level)" : "");
  std::printf("\n%-16s %-8s %14s %6s %10s %12s %12s\n", "app", "gpu", "bytes", "iters", "Gb/s", "p50 us", "p99 us");
  for (const auto& a : r["apps"])
    std::printf("%-16s %-8s %14llu %6llu %10.3f %12.3f %12.3f\n", a["name"].get<std::string>().c_str(),
                a["gpu"].get<std::string>().c_str(), a["bytes"].get<unsigned long long>(),
                a["iterations"].get<unsigned long long>(), a["throughput_gbps"].get<double>(),
                a["p50_ns"].get<double>() / 1e3, a["p99_ns"].get<double>() / 1e3);
  std::printf("\n%-16s %12s %12s %12s %12s\n", "gpu", "copy us", "compute us", "stalled us", "idle us");
  for (const auto& g : r["gpus"])
    std::printf("%-16s %12.3f %12.3f %12.3f %12.3f\n", g["name"].get<std::string>().c_str(),
                g["copy_ns"].get<double>() / 1e3, g["compute_ns"].get<double>() / 1e3,
                g["stalled_ns"].get<double>() / 1e3, g["idle_ns"].get<double>() / 1e3);
  std::printf("\n%-22s %-11s %8s %16s\n", "link", "direction", "util", "credit stall us");
  for (const auto& l : r["links"])
    if (l["bytes"].get<unsigned long long>() > 0)
      std::printf("%-22s %-11s %7.1f%% %16.3f\n", l["name"].get<std::string>().c_str(),
                  l["direction"].get<std::string>().c_str(), 100 * l["utilization"].get<double>(),
                  l["credit_stall_ns"].get<double>() / 1e3);
  std::printf("\nresults: %s\n", (out / "results.json").string().c_str());
}

ordered_json run_info(const RunArgs& a, const SimOutcome& o) {
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  const double hops = o.results["tlp_hops"].get<double>();
  ordered_json j;
  j["config"] = a.config;
  j["finished_at"] = stamp;
  j["wall_seconds"] = o.wall_seconds;
  j["tlp_hops_per_second"] = o.wall_seconds > 0 ? hops / o.wall_seconds : 0.0;
  j["sim_seconds_per_wall_second"] = o.wall_seconds > 0 ? o.end.to_seconds() / o.wall_seconds : 0.0;
  return j;
}

// Seed 002 §5: "during the execution of a batch operation, the interconnect must be used
// exclusively by the execution algorithm" - else the predicted schedules do not hold.
void warn_if_batches_share(const Config& cfg) {
  int batch = 0, other = 0;
  for (const AppCfg& a : cfg.apps) (a.type == "batch" ? batch : other)++;
  if (batch > 0 && other > 0)
    log()->warn("batch predictions assume the interconnect is the batch run-time's alone (seed 002 §5); "
                "{} other app(s) share it here, so batches may run longer than predicted", other);
}

int fail(int code, const std::string& msg) {
  std::cerr << "error: " << msg << "\n";
  return code;
}

}  // namespace

int cmd_validate(const RunArgs& a) {
  try {
    const Config c = load_config(a.config, all_overrides(a));
    std::cout << yaml_text(c.effective);
    std::cerr << a.config << ": ok\n";
    return kExitOk;
  } catch (const ConfigError& e) {
    return fail(kExitBadInput, e.what());
  }
}

int cmd_run(const RunArgs& a) {
  Config cfg;
  try {
    cfg = load_config(a.config, all_overrides(a));
  } catch (const ConfigError& e) {
    return fail(kExitBadInput, e.what());
  }
  const fs::path out = a.out_dir.empty() ? fs::path("runs") / fs::path(a.config).stem() : fs::path(a.out_dir);
  try {
    fs::create_directories(out);
    if (!a.vcd.empty() && fs::path(a.vcd).has_parent_path()) fs::create_directories(fs::path(a.vcd).parent_path());
    init_logging(cfg.sim.log_level, (out / "sim.log").string());
    log()->info("config {} -> {}", a.config, out.string());
    warn_if_batches_share(cfg);
    // Written only when some arbiter is an RTL one (docs/cosim.md).
    if (!a.vcd.empty()) request_arbiter_waveform("rtl", rtl_vcd_path(a.vcd));
    SimOutcome o = simulate(cfg, a.vcd);
    if (o.results["transfers_open"].get<unsigned long long>() > 0)
      log()->warn("{} transfers were still open when the simulation stopped",
                  o.results["transfers_open"].get<unsigned long long>());
    write_atomically((out / "results.json").string(), o.results.dump(2) + "\n");
    write_atomically((out / "run.json").string(), run_info(a, o).dump(2) + "\n");
    write_atomically((out / "config.effective.yaml").string(), yaml_text(cfg.effective));
    print_summary(o.results, out);
    return kExitOk;
  } catch (const sc_core::sc_report& r) {
    return fail(kExitModelError, std::string("model error: ") + r.what());
  } catch (const std::exception& e) {
    return fail(kExitModelError, e.what());
  }
}

}  // namespace arbsim
