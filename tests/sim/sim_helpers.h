// Helpers for simulation tests. Each TEST that simulates runs in its own process
// (gtest_discover_tests), because SystemC elaborates once per process.
#pragma once
#include <string>
#include <nlohmann/json.hpp>
#include "apps/run/simulation.h"
#include "models/pcie/link_timing.h"

namespace arbsim::test {

// 256 B writes' payload bytes per ns on a link (the link model: TLP_bw x 256 / wire bytes).
inline double write_bytes_per_ns(int gen, int width) {
  PcieLinkParams p;
  p.gen = gen;
  p.width = width;
  return tlp_bandwidth_gbps(p) / 8.0 * 256.0 / (256.0 + tlp_overhead_bytes(TlpType::MWr, p));
}

// Runs YAML text; fails the test on a config error.
inline SimOutcome run_yaml(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  return simulate(load_scenario_text(yaml, overrides));
}

// The entries below are references into o.results, not copies: a caller may iterate a
// member of one (`for (auto& s : app(o, "x")["batch"]["streams"])`) without the loop
// outliving a temporary (the range-for keeps only the outermost temporary alive).

// The results.json entry of a link direction.
inline const nlohmann::ordered_json& link(const SimOutcome& o, const std::string& name, const std::string& dir) {
  for (const auto& l : o.results["links"])
    if (l["name"] == name && l["direction"] == dir) return l;
  throw std::runtime_error("no link " + name + " " + dir);
}

inline const nlohmann::ordered_json& arbiter(const SimOutcome& o, const std::string& name) {
  for (const auto& a : o.results["arbiters"])
    if (a["name"] == name) return a;
  throw std::runtime_error("no arbiter " + name);
}

inline const nlohmann::ordered_json& app(const SimOutcome& o, const std::string& name) {
  for (const auto& a : o.results["apps"])
    if (a["name"] == name) return a;
  throw std::runtime_error("no app " + name);
}

// When app `name` had its last copy done (results.json apps[].last_done_ns).
inline double end_of(const SimOutcome& o, const std::string& name) { return app(o, name)["last_done_ns"].get<double>(); }

// One root complex, one switch, two GPUs: the contention point of seed 000 Fig. 2.
// `uplink` and `sw0` are extra YAML keys for the rc0-sw0 link and the switch node.
inline std::string two_gpu_platform(const std::string& uplink = "", const std::string& sw0 = "",
                                    const std::string& gpu_link = "") {
  return "platform:\n"
         "  name: two-gpus\n"
         "  defaults: {link: {gen: 3, width: 16, latency_ns: 20}}\n"
         "  nodes:\n"
         "    - {name: rc0, type: root_complex, latency_ns: 50, memory: {bandwidth_GBps: 1000, read_latency_ns: 400}}\n"
         "    - {name: sw0, type: switch, latency_ns: 110" + sw0 + "}\n"
         "    - {name: gpu0, type: gpu}\n"
         "    - {name: gpu1, type: gpu}\n"
         "  links:\n"
         "    - {up: rc0, down: sw0" + uplink + "}\n"
         "    - {up: sw0, down: gpu0" + gpu_link + "}\n"
         "    - {up: sw0, down: gpu1" + gpu_link + "}\n";
}

// T: the time one 256-byte MWr occupies a Gen3 x16 link (docs/link-model.md).
inline double mwr_ns() {
  PcieLinkParams p;
  return (256 + 24) / (tlp_bandwidth_gbps(p) / 8.0);
}

// Host memory pushes H2D data (h2d_mode: push) through rc0 -> sw0 to gpu0, behind an x4 link
// (a quarter of the others), and gpu1 (x16): both share rc0 -> sw0 and sw0's ingress from
// rc0. `sw0` and `uplink` are extra keys of the switch and the rc0-sw0 link; `apps` follow.
inline std::string slow_fast_push(const std::string& sw0, const std::string& uplink, const std::string& apps) {
  return "platform:\n"
         "  name: hol\n"
         "  h2d_mode: push\n"
         "  defaults: {link: {gen: 3, width: 16, latency_ns: 20}}\n"
         "  nodes:\n"
         "    - {name: rc0, type: root_complex, latency_ns: 50, memory: {bandwidth_GBps: 1000}}\n"
         "    - {name: sw0, type: switch, latency_ns: 110" + sw0 + "}\n"
         "    - {name: gpu0, type: gpu}\n"
         "    - {name: gpu1, type: gpu}\n"
         "  links:\n"
         "    - {up: rc0, down: sw0" + uplink + "}\n"
         "    - {up: sw0, down: gpu0, width: 4}\n"
         "    - {up: sw0, down: gpu1}\n" + apps;
}

}  // namespace arbsim::test
