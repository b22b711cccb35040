// The cost of observing a run (issue 16; docs/observability.md, docs/performance.md): the
// same packet-level run by the pcie-arbsim binary (a) untraced, (b) with --trace over a
// 20-us window in its middle, (c) over a 1-ms window (a whole run's trace would be GBs:
// every TLP of every hop). Rounds interleave the three (a b c a b c ...) so that a drifting
// machine affects them alike; each figure is the median CPU time of the child (getrusage)
// over the rounds. Prints the overheads of (b) and (c) over (a); the goal is (b) under 10 %.
// Not a test: ctest keeps no timings.
//   usage: trace_bench [rounds = 5]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

// Every GPU of seed 000's platform copies 1-MiB blocks both ways at once: the switches'
// uplinks arbitrate all the time (a run of about 1.5 s).
std::string scenario() {
  std::string y = "platform: " ARBSIM_SRC "/configs/platforms/seed000_fig2.yaml\nsim: {log_level: warn}\napps:\n";
  for (int g = 0; g < 4; ++g)
    for (const char* dir : {"h2d", "d2h"})
      y += "  - {name: " + std::string(dir) + std::to_string(g) + ", type: stream, gpu: gpu" + std::to_string(g) +
           ", direction: " + dir + ", size: {fixed: 1MiB}, count: 48, depth: 2}\n";
  return y;
}

double child_cpu_s() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double run(const fs::path& dir, const std::string& extra) {
  const std::string cmd = std::string("'") + ARBSIM_BIN + "' run '" + (dir / "bench.yaml").string() + "' --out '" +
                          (dir / "out").string() + "' " + extra + " >/dev/null 2>&1";
  const double t0 = child_cpu_s();
  const int status = std::system(cmd.c_str());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "trace_bench: run failed: %s\n", cmd.c_str());
    std::exit(1);
  }
  return child_cpu_s() - t0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  const fs::path dir = fs::temp_directory_path() / ("trace_bench_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "bench.yaml") << scenario();
  const std::string trace = "--trace '" + (dir / "trace.json").string() + "'";
  const std::vector<std::pair<const char*, std::string>> modes = {
      {"untraced", ""}, {"window 20 us", trace + " --trace-window 1000us:1020us"},
      {"window 1 ms", trace + " --trace-window 1000us:2000us"}};
  std::vector<std::vector<double>> cpu(modes.size());
  for (int r = 0; r < rounds; ++r)
    for (std::size_t m = 0; m < modes.size(); ++m) cpu[m].push_back(run(dir, modes[m].second));
  const double base = median(cpu[0]);
  std::printf("trace_bench: seed 000 platform, 4 GPUs x 48 MiB each way; median CPU of %d interleaved rounds\n", rounds);
  for (std::size_t m = 0; m < modes.size(); ++m) {
    const double t = median(cpu[m]);
    std::printf("  %-13s %7.3f s", modes[m].first, t);
    if (m) std::printf("   overhead %+6.1f %%", 100.0 * (t / base - 1.0));
    std::printf("\n");
  }
  std::printf("  trace of the 1-ms window: %.1f MB\n", fs::file_size(dir / "trace.json") / 1e6);
  fs::remove_all(dir);
  return 0;
}
