// Fabric speed benchmark (not a test): saturating traffic through a chain of switches.
// Two GPUs hang under the last of N switches below the root complex; one writes to host
// memory (MWr up the chain), the other reads from it (MRd up, CplD down), both back to
// back. Prints TLP link traversals (hops) per wall-clock second. docs/performance.md.
//   usage: fabric_bench [switches=4] [MiB per GPU=256]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include "models/pcie/egress_port.h"
#include "models/pcie/tlp_pool.h"
#include "apps/run/simulation.h"

using namespace arbsim;

namespace {

std::string chain_config(int switches, uint64_t mib) {
  std::string y = "platform:\n  name: chain\n  defaults: {link: {gen: 4, width: 16, latency_ns: 20}}\n  nodes:\n"
                  "    - {name: rc0, type: root_complex}\n";
  for (int s = 0; s < switches; ++s) y += "    - {name: sw" + std::to_string(s) + ", type: switch}\n";
  y += "    - {name: gw, type: gpu}\n    - {name: gr, type: gpu}\n  links:\n";
  std::string up = "rc0";
  for (int s = 0; s < switches; ++s) {
    y += "    - {up: " + up + ", down: sw" + std::to_string(s) + "}\n";
    up = "sw" + std::to_string(s);
  }
  y += "    - {up: " + up + ", down: gw}\n    - {up: " + up + ", down: gr}\n";
  const std::string count = std::to_string(mib);
  y += "apps:\n"
       "  - {name: w, type: stream, gpu: gw, direction: d2h, size: {fixed: 1MiB}, count: " + count + "}\n"
       "  - {name: r, type: stream, gpu: gr, direction: h2d, size: {fixed: 1MiB}, count: " + count + "}\n";
  return y;
}

}  // namespace

extern "C" int sc_main(int argc, char** argv) {
  const int switches = argc > 1 ? std::atoi(argv[1]) : 4;
  const uint64_t mib = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 256;
  const Scenario s = load_scenario_text(chain_config(switches, mib));
  const auto t0 = std::chrono::steady_clock::now();
  SimOutcome o = simulate(s);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double hops = static_cast<double>(EgressPort::total_hops());
  std::printf("fabric_bench: %d switches, 2 x %llu MiB (Gen4 x16, write + read)\n", switches,
              static_cast<unsigned long long>(mib));
  std::printf("  simulated      %.3f ms\n", o.end.to_seconds() * 1e3);
  std::printf("  TLP hops       %.0f\n", hops);
  std::printf("  wall (elab+run) %.3f s, run %.3f s\n", wall, o.wall_seconds);
  std::printf("  TLP-hops/s     %.2f M (simulation run only)\n", hops / o.wall_seconds / 1e6);
  std::printf("  TLPs allocated %zu (pool high-water mark)\n", tlp_pool().allocated());
  return 0;
}

int main(int argc, char** argv) { return sc_core::sc_elab_and_sim(argc, argv); }
