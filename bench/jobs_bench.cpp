// Seed 001's job level at scale (issue 14's speed targets): 60 GPUs and 1,400 jobs in under
// 10 s of CPU, 1,000 GPUs and 100,000 jobs in minutes. Poisson arrivals (seeded), Table 2's
// workload mix at a 60 % PCIe-bound ratio, each scheduler; prints CPU seconds, events per
// second and the mean JCT. A benchmark, not a test: it asserts nothing.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>
#include <vector>
#include "models/jobs/job_simulation.h"

using namespace arbsim::jobs;

namespace {

// Table 2: Resnet50 (no PCIe), Bloom560m (5.7 GB/s, alpha 1.25), Bloom7b1 (17.65, 1.07);
// 1g instances; 100-400 s alone. Arrivals load the cluster's 1g instances to 80 %.
std::vector<MigJob> workload(int gpus, int count, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> gap(0.8 * gpus * 7 / 250.0);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<MigJob> out;
  double t = 0;
  for (int i = 0; i < count; ++i) {
    MigJob j;
    j.id = i;
    j.arrival_s = t += gap(rng);
    j.work = 100 + 300 * u(rng);
    j.base_throughput = 1;
    if (u(rng) < 0.6) {
      const bool big = u(rng) < 0.5;
      j.pcie_demand_GBps = big ? 17.65 : 5.7;
      j.alpha = big ? 1.07 : 1.25;
    }
    out.push_back(j);
  }
  return out;
}

double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

void run(int gpus, int jobs) {
  const std::vector<MigJob> w = workload(gpus, jobs, 1);
  for (const char* name : {"first_fit", "pcie_aware"}) {
    JobSimConfig c;
    c.gpus = gpus;
    c.scheduler = name;
    const double t0 = cpu_seconds();
    const std::vector<JobResult> r = simulate_jobs(c, w);
    const double cpu = cpu_seconds() - t0;
    double jct = 0;
    for (const JobResult& x : r) jct += x.jct_s();
    std::printf("%5d GPUs %7d jobs %-10s: %8.3f s CPU, %9.0f jobs/s, mean JCT %.1f s\n", gpus, jobs, name, cpu,
                jobs / cpu, jct / jobs);
  }
}

}  // namespace

int main(int argc, char**) {
  run(60, 1400);
  run(250, 10000);
  if (argc > 1) run(1000, 100000);  // minutes: `jobs_bench full`
  return 0;
}
