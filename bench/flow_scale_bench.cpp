// Flow-mode cost against platform size (issue 12's speed benchmark; not a test): forests of
// root complexes, 16 GPUs under each (two switches of eight, Gen4 x16), every GPU copying
// 256 KiB-2 MiB blocks to and from its host memory without pause (two copies queued per
// direction), so copies start and end continuously. For each size the pcie-arbsim binary
// runs the scenario in the flow mode (and, up to `packet_max` GPUs, the packet mode) and
// prints the simulation run's CPU time per simulated ms (run.json cpu_seconds: robust to a
// busy machine), the events (copy starts and ends) per second and per-event cost.
// docs/performance.md records the figures. A stream's next copy, of a random size of 256 TLPs
// or more, has its predecessor's spec (flow_network.h, pool_overheads()), so it takes the
// ended one's rates (flow_scheduler.h, replacements) or they are looked up (rate_memo.h);
// with --fixed every copy is 64 KiB, so more of them end.
//   usage: flow_scale_bench [--fixed] [packet_max = 64] [sizes... = 16 64 256 1024]
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>
#include "bench/forest.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The flow mode runs 2 ms at every size: long enough that each root complex's first
// computations (its copies' first specs, never seen before: rate_memo.h) weigh little
// against the steady state. The packet mode's cost per simulated ms is steady from the
// start, so a shorter run keeps its bigger platforms within seconds.
double sim_ns(int gpus, const std::string& fidelity) {
  if (fidelity == "flow") return 2e6;
  return gpus <= 64 ? 2e6 : gpus <= 256 ? 5e5 : 2e5;
}

bool g_fixed = false;  // --fixed: 64 KiB copies

std::string scenario(int gpus, const std::string& fidelity) {
  const std::string size = g_fixed ? "{fixed: 64KiB}" : "{min: 256KiB, max: 2MiB}";
  std::string nodes, links, apps;
  arbsim::bench::forest(gpus, nodes, links);
  for (int g = 0; g < gpus; ++g)
    for (const char* dir : {"h2d", "d2h"})
      apps += "  - {name: " + std::string(dir) + std::to_string(g) + ", type: stream, gpu: gpu" + std::to_string(g) +
              ", direction: " + dir + ", size: " + size + ", count: 1000000, depth: 2, start_ns: " +
              std::to_string((g * 997) % 5000) + "}\n";
  return "platform:\n  name: forest" + std::to_string(gpus) + "\n  defaults: {link: {gen: 4, width: 16}}\n  nodes:\n" +
         nodes + "  links:\n" + links + "sim: {time_ns: " + std::to_string(static_cast<long>(sim_ns(gpus, fidelity))) +
         "}\napps:\n" + apps;
}

struct Run {
  double wall_s = 0;  // the simulation run's CPU time (run.json), without start-up and elaboration
  double events = 0;  // copy starts and ends
};

Run run(const fs::path& dir, int gpus, const std::string& fidelity) {
  const fs::path cfg = dir / ("forest" + std::to_string(gpus) + fidelity + ".yaml"),
                 out = dir / (fidelity + std::to_string(gpus));
  std::ofstream(cfg) << scenario(gpus, fidelity);
  const std::string cmd = std::string("'") + ARBSIM_BIN + "' run '" + cfg.string() + "' --out '" + out.string() +
                          "' --fidelity " + fidelity + " --log-level error >/dev/null";
  const int status = std::system(cmd.c_str());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "flow_scale_bench: %s run at %d GPUs failed\n", fidelity.c_str(), gpus);
    std::exit(1);
  }
  std::ifstream r(out / "results.json"), i(out / "run.json");
  const json results = json::parse(r), info = json::parse(i);
  const double done = results["transfers_completed"], open = results["transfers_open"];
  return {info["cpu_seconds"].get<double>(), 2 * done + open};
}

}  // namespace

int main(int argc, char** argv) {
  int first = 1;
  if (argc > 1 && std::string(argv[1]) == "--fixed") g_fixed = true, first = 2;
  const int packet_max = argc > first ? std::atoi(argv[first]) : 64;
  std::vector<int> sizes;
  for (int a = first + 1; a < argc; ++a) sizes.push_back(std::atoi(argv[a]));
  if (sizes.empty()) sizes = {16, 64, 256, 1024};
  const fs::path dir = fs::temp_directory_path() / ("flow_scale_bench_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::printf("flow_scale_bench: forests of 16-GPU root complexes, every GPU copying H2D and D2H continuously (%s)\n",
              g_fixed ? "64 KiB copies" : "copies of 256 KiB-2 MiB, random bytes");
  std::printf("%6s %8s %16s %12s %14s %9s %18s\n", "GPUs", "sim ms", "flow s / sim ms", "events/s", "us per event",
              "sim ms", "packet s / sim ms");
  for (const int g : sizes) {
    const double ms = sim_ns(g, "flow") / 1e6;
    const Run f = run(dir, g, "flow");
    std::printf("%6d %8.1f %16.4f %12.0f %14.2f", g, ms, f.wall_s / ms, f.events / f.wall_s, 1e6 * f.wall_s / f.events);
    if (g <= packet_max) {
      const double packet_ms = sim_ns(g, "packet") / 1e6;
      const Run p = run(dir, g, "packet");
      std::printf(" %9.1f %18.3f (flow %.0fx faster)", packet_ms, p.wall_s / packet_ms,
                  (p.wall_s / packet_ms) / (f.wall_s / ms));
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  fs::remove_all(dir);
  return 0;
}
