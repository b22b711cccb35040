#include "platforms/simulation.h"
#include <chrono>
#include "platforms/results.h"

namespace arbsim {

SimOutcome simulate(const Config& cfg, const std::string& vcd_path) {
  SimOutcome o;
  o.platform = std::make_unique<Platform>(cfg);
  sc_core::sc_trace_file* tf = nullptr;
  if (!vcd_path.empty()) {
    // sc_create_vcd_trace_file appends ".vcd" itself.
    std::string stem = vcd_path;
    if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, ".vcd") == 0) stem.resize(stem.size() - 4);
    tf = sc_core::sc_create_vcd_trace_file(stem.c_str());
    tf->set_time_unit(1, sc_core::SC_PS);  // the kernel resolution: every event lands on a tick
    o.platform->trace(tf);
  }
  const auto t0 = std::chrono::steady_clock::now();
  if (cfg.sim.time_ns > 0) sc_core::sc_start(sc_core::sc_time(cfg.sim.time_ns * 1000.0, sc_core::SC_PS));
  else sc_core::sc_start();
  o.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  o.end = sc_core::sc_time_stamp();
  o.platform->finish();
  o.results = collect_results(*o.platform, o.end);
  if (tf) sc_core::sc_close_vcd_trace_file(tf);
  return o;
}

Config load_config_text(const std::string& yaml, const std::vector<std::string>& overrides,
                        const std::string& name) {
  return load_config_yaml(yaml, name, ".", overrides);
}

}  // namespace arbsim
