// Flow-level vs packet-level speed benchmark (not a test): one multi-GPU scenario, run by
// the pcie-arbsim binary once per mode (SystemC elaborates once per process). Every GPU of
// the seed 000 platform copies MiB-sized blocks in both directions at once (H2D by device
// read, D2H writes), 1 GiB in all by default. Prints both wall times (whole process, and
// the simulation run from run.json), the speed-up, and how far the flow mode's completion
// times are from the packet model's. docs/performance.md records the figures.
//   usage: flow_bench [MiB per GPU and direction = 128]
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string scenario(unsigned mib) {
  std::string y = "platform: " ARBSIM_SRC "/configs/platforms/seed000_fig2.yaml\napps:\n";
  for (int g = 0; g < 4; ++g)
    for (const char* dir : {"h2d", "d2h"})
      y += "  - {name: " + std::string(dir) + std::to_string(g) + ", type: stream, gpu: gpu" + std::to_string(g) +
           ", direction: " + dir + ", size: {fixed: 1MiB}, count: " + std::to_string(mib) + ", depth: 2}\n";
  return y;
}

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

struct Run {
  json results, info;
  double process_s = 0;
};

Run run(const fs::path& dir, const std::string& fidelity) {
  const std::string cmd = std::string("'") + ARBSIM_BIN + "' run '" + (dir / "bench.yaml").string() + "' --out '" +
                          (dir / fidelity).string() + "' --fidelity " + fidelity + " -s sim.log_level=warn >/dev/null";
  const auto t0 = std::chrono::steady_clock::now();
  const int status = std::system(cmd.c_str());
  Run r;
  r.process_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "flow_bench: %s run failed\n", fidelity.c_str());
    std::exit(1);
  }
  r.results = read_json(dir / fidelity / "results.json");
  r.info = read_json(dir / fidelity / "run.json");
  return r;
}

// Largest relative difference of the apps' median and worst transfer latencies.
double worst_error(const json& packet, const json& flow) {
  double worst = 0;
  for (std::size_t a = 0; a < packet["apps"].size(); ++a)
    for (const char* k : {"p50_ns", "max_ns", "last_done_ns"}) {
      const double p = packet["apps"][a][k], f = flow["apps"][a][k];
      worst = std::max(worst, std::abs(f - p) / p);
    }
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned mib = argc > 1 ? static_cast<unsigned>(std::strtoul(argv[1], nullptr, 10)) : 128;
  const fs::path dir = fs::temp_directory_path() / ("flow_bench_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "bench.yaml") << scenario(mib);
  const Run p = run(dir, "packet"), f = run(dir, "flow");
  const double gib = static_cast<double>(p.results["bytes_delivered"].get<uint64_t>()) / (1u << 30);
  const double ps = p.info["wall_seconds"], fs_ = f.info["wall_seconds"];
  std::printf("flow_bench: seed000-fig2, 4 GPUs x (H2D + D2H) x %u x 1 MiB = %.3f GiB\n", mib, gib);
  std::printf("  simulated          %.3f ms (packet), %.3f ms (flow)\n", p.results["sim_time_ns"].get<double>() / 1e6,
              f.results["sim_time_ns"].get<double>() / 1e6);
  std::printf("  packet             %.3f s process, %.3f s simulation run, %.0f TLP hops\n", p.process_s, ps,
              p.results["tlp_hops"].get<double>());
  std::printf("  flow               %.4f s process, %.5f s simulation run\n", f.process_s, fs_);
  std::printf("  speed-up           %.0fx (process), %.0fx (simulation run)\n", p.process_s / f.process_s, ps / fs_);
  std::printf("  worst completion-time difference %.3f %%\n", 100 * worst_error(p.results, f.results));
  fs::remove_all(dir);
  return 0;
}
