// Fabric speed benchmark (not a test; issue 13): the packet model against a bare C++ event
// loop over the same work (bench/bare_fabric.h), in the same run. Two scenarios:
//  - chain: two GPUs under the last of N switches below the root complex, one writing to
//    host memory (MWr up the chain), the other reading from it (MRd up, CplD down), 1-MiB
//    copies back to back;
//  - forest: root complexes of 16 GPUs each (two switches of eight), every GPU writing and
//    reading 1-MiB copies.
// Each round runs the model (the pcie-arbsim binary: SystemC elaborates once per process)
// and the bare loop, interleaved so a drifting machine affects both alike; each figure is
// the median over the rounds of TLP hops per CPU second of the simulation run (run.json
// cpu_seconds; the bare loop's own). Prints both and their ratio (the model's over the bare
// loop's: issue 13's targets are >= 0.8 on the chain and >= 0.5 at 256 GPUs).
// docs/performance.md.
//   usage: fabric_bench [chain SWITCHES MIB | forest GPUS MIB]... [--rounds N]
//          (default: chain 4 256, forest 256 2; 3 rounds)
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>
#include "bench/bare_fabric.h"
#include "bench/forest.h"

namespace fs = std::filesystem;
using namespace arbsim;

namespace {

struct Case {
  std::string kind;  // chain | forest
  int size = 0;      // switches | GPUs
  uint64_t mib = 0;  // per GPU and direction
};

std::string stream(const std::string& name, const std::string& gpu, const char* dir, uint64_t mib) {
  return "  - {name: " + name + ", type: stream, gpu: " + gpu + ", direction: " + dir +
         ", size: {fixed: 1MiB}, count: " + std::to_string(mib) + "}\n";
}

// The scenario's YAML and the bare loop's workload (GPU ordinals in config order).
std::string yaml(const Case& c, bench::BareWorkload& w) {
  w.bytes = 1u << 20;
  w.copies = c.mib;
  std::string nodes, links, apps;
  if (c.kind == "chain") {
    nodes = "    - {name: rc0, type: root_complex}\n";
    std::string up = "rc0";
    for (int s = 0; s < c.size; ++s) {
      nodes += "    - {name: sw" + std::to_string(s) + ", type: switch}\n";
      links += "    - {up: " + up + ", down: sw" + std::to_string(s) + "}\n";
      up = "sw" + std::to_string(s);
    }
    nodes += "    - {name: gw, type: gpu}\n    - {name: gr, type: gpu}\n";
    links += "    - {up: " + up + ", down: gw}\n    - {up: " + up + ", down: gr}\n";
    apps = stream("w", "gw", "d2h", c.mib) + stream("r", "gr", "h2d", c.mib);
    w.writers = {0};
    w.readers = {1};
  } else {
    bench::forest(c.size, nodes, links);
    for (int g = 0; g < c.size; ++g) {
      apps += stream("w" + std::to_string(g), "gpu" + std::to_string(g), "d2h", c.mib) +
              stream("r" + std::to_string(g), "gpu" + std::to_string(g), "h2d", c.mib);
      w.writers.push_back(g);
      w.readers.push_back(g);
    }
  }
  return "platform:\n  name: " + c.kind + "\n  defaults: {link: {gen: 4, width: 16, latency_ns: 20}}\n  nodes:\n" +
         nodes + "  links:\n" + links + "sim: {log_level: warn}\napps:\n" + apps;
}

double cpu_now() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

struct Measured {
  double hops = 0, cpu_s = 0, end_ns = 0;
  double rate() const { return cpu_s > 0 ? hops / cpu_s : 0; }
};

Measured model(const fs::path& cfg, const fs::path& out) {
  const std::string cmd = std::string("'") + ARBSIM_BIN + "' run '" + cfg.string() + "' --out '" + out.string() +
                          "' --log-level error >/dev/null";
  const int status = std::system(cmd.c_str());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "fabric_bench: the model's run failed: %s\n", cmd.c_str());
    std::exit(1);
  }
  std::ifstream r(out / "results.json"), i(out / "run.json");
  const auto results = nlohmann::json::parse(r), info = nlohmann::json::parse(i);
  return {results["tlp_hops"].get<double>(), info["cpu_seconds"].get<double>(), results["makespan_ns"].get<double>()};
}

Measured bare(const Scenario& s, const bench::BareWorkload& w) {
  const double c0 = cpu_now();
  const bench::BareResult r = bench::run_bare(s, w);
  return {static_cast<double>(r.hops), cpu_now() - c0, r.end_ns};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void bench_case(const Case& c, int rounds, const fs::path& dir) {
  bench::BareWorkload w;
  const std::string text = yaml(c, w);
  const fs::path cfg = dir / (c.kind + ".yaml");
  std::ofstream(cfg) << text;
  const Scenario s = load_scenario_text(text);
  std::vector<double> m_rate, b_rate, ratio;
  Measured m, b;
  for (int k = 0; k < rounds; ++k) {
    m = model(cfg, dir / "out");
    b = bare(s, w);
    m_rate.push_back(m.rate());
    b_rate.push_back(b.rate());
    ratio.push_back(m.rate() / b.rate());
  }
  std::printf("%s %d, %llu MiB per GPU and direction (Gen4 x16), median of %d interleaved rounds:\n", c.kind.c_str(),
              c.size, static_cast<unsigned long long>(c.mib), rounds);
  std::printf("  model      %12.0f TLP hops, %8.3f s CPU, %6.2f M hops per CPU second; ends at %.3f us\n", m.hops,
              m.cpu_s, median(m_rate) / 1e6, m.end_ns / 1e3);
  std::printf("  bare loop  %12.0f TLP hops, %8.3f s CPU, %6.2f M hops per CPU second; ends at %.3f us\n", b.hops,
              b.cpu_s, median(b_rate) / 1e6, b.end_ns / 1e3);
  std::printf("  model / bare loop: %.3fx\n", median(ratio));
  std::fflush(stdout);
}

}  // namespace

// No SystemC runs in this process (the model runs in the pcie-arbsim binary), but the
// arbiter catalogue links libsystemc, whose shared object wants an sc_main.
extern "C" int sc_main(int, char**) { return 0; }

int main(int argc, char** argv) {
  std::vector<Case> cases;
  int rounds = 3;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--rounds" && a + 1 < argc) {
      rounds = std::max(1, std::atoi(argv[++a]));
    } else if ((arg == "chain" || arg == "forest") && a + 2 < argc) {
      cases.push_back({arg, std::atoi(argv[a + 1]), std::strtoull(argv[a + 2], nullptr, 10)});
      a += 2;
    } else {
      std::fprintf(stderr, "usage: fabric_bench [chain SWITCHES MIB | forest GPUS MIB]... [--rounds N]\n");
      return 2;
    }
  }
  if (cases.empty()) cases = {{"chain", 4, 256}, {"forest", 256, 2}};
  const fs::path dir = fs::temp_directory_path() / ("fabric_bench_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const Case& c : cases) bench_case(c, rounds, dir);
  fs::remove_all(dir);
  return 0;
}
