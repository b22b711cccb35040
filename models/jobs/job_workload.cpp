#include "models/jobs/job_workload.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace arbsim::jobs {

namespace {

// splitmix64 (Steele, Lea, Flood 2014): a small generator whose output is fixed by its
// definition, unlike the standard library's distributions.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  double uniform() {  // [0, 1), 53 bits
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
  }

 private:
  uint64_t s_;
};

// A trace's arrival times and work are bounded as a generated workload's are
// (platforms/config/jobs_config.cpp: work_min/work_max, mean_gap_s up to 1e12).
constexpr double kMaxTraceValue = 1e12;
constexpr double kMinWork = 1e-9;

std::string fmt_range(double lo, double hi) {
  std::ostringstream o;
  o << "[" << lo << ", " << hi << "]";
  return o.str();
}

MigJob of_kind(const JobKind& k, int id, double arrival, int slices, double work) {
  MigJob j;
  j.id = id;
  j.arrival_s = arrival;
  j.slices = slices;
  j.work = work;
  j.base_throughput = k.base_throughput;
  j.pcie_demand_GBps = k.pcie_demand_GBps;
  j.alpha = k.alpha;
  return j;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> f;
  std::stringstream ss(line);
  for (std::string x; std::getline(ss, x, ',');) {
    const auto b = x.find_first_not_of(" \t\r"), e = x.find_last_not_of(" \t\r");
    f.push_back(b == std::string::npos ? "" : x.substr(b, e - b + 1));
  }
  return f;
}

// A decimal number in [lo, hi] (the bounds the jobs config sets for generated jobs:
// docs/config.md), or an error naming the line and field. std::stod alone would also take
// hexadecimal ("0x10" = 16) and so read a typo as a number.
double number(const std::string& s, const std::string& what, int line, double lo, double hi) {
  const std::string at = "line " + std::to_string(line) + ": " + what + " '" + s + "'";
  if (s.find_first_not_of("0123456789+-.eE") != std::string::npos) throw std::invalid_argument(at + " is not a decimal number");
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size() || !std::isfinite(v)) throw std::invalid_argument(at + " is not a finite number");
  if (v < lo || v > hi) throw std::invalid_argument(at + " is outside " + fmt_range(lo, hi));
  return v;
}

}  // namespace

std::vector<JobKind> table2_kinds() {
  return {{"resnet50", 0, 1, 1}, {"bloom560m", 5.7, 1.25, 1}, {"bloom7b1", 17.65, 1.07, 1}};
}

std::vector<MigJob> generate_jobs(const JobGenerator& g, const std::vector<JobKind>& kinds) {
  std::vector<const JobKind*> bound, other;
  for (const JobKind& k : kinds) (k.pcie_demand_GBps > 0 ? bound : other).push_back(&k);
  if (g.pcie_bound_ratio > 0 && bound.empty()) throw std::invalid_argument("a PCIe-bound ratio above 0 needs a kind with pcie_demand_GBps > 0");
  if (g.pcie_bound_ratio < 1 && other.empty()) throw std::invalid_argument("a PCIe-bound ratio below 1 needs a kind with pcie_demand_GBps 0");
  Rng rng(g.seed);
  std::vector<MigJob> out;
  double t = 0;
  for (int i = 0; i < g.count; ++i) {
    t += -g.mean_gap_s * std::log(1 - rng.uniform());
    const std::vector<const JobKind*>& pool = rng.uniform() < g.pcie_bound_ratio ? bound : other;
    const JobKind& k = *pool[static_cast<std::size_t>(rng.uniform() * static_cast<double>(pool.size()))];
    out.push_back(of_kind(k, i, t, g.slices, g.work_min + (g.work_max - g.work_min) * rng.uniform()));
  }
  return out;
}

std::vector<MigJob> read_job_trace(std::istream& in, const std::vector<JobKind>& kinds) {
  std::vector<MigJob> out;
  bool header = false;
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    // A spreadsheet's "CSV UTF-8" export starts with a byte order mark: not part of the header.
    if (n == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const std::vector<std::string> f = split(line);
    if (!header) {
      if (f != std::vector<std::string>{"arrival_s", "kind", "slices", "work"})
        throw std::invalid_argument("line " + std::to_string(n) + ": the header must be arrival_s,kind,slices,work");
      header = true;
      continue;
    }
    if (f.size() != 4) throw std::invalid_argument("line " + std::to_string(n) + ": " + std::to_string(f.size()) + " fields, expected 4");
    const double arrival = number(f[0], "arrival_s", n, 0, kMaxTraceValue);
    const double slices = number(f[2], "slices", n, 1, 64), work = number(f[3], "work", n, kMinWork, kMaxTraceValue);
    if (slices != std::floor(slices))
      throw std::invalid_argument("line " + std::to_string(n) + ": slices " + f[2] + " must be an integer in 1..64");
    const JobKind* k = nullptr;
    for (const JobKind& c : kinds) if (c.name == f[1]) k = &c;
    if (!k) throw std::invalid_argument("line " + std::to_string(n) + ": unknown kind '" + f[1] + "'");
    if (out.size() == static_cast<std::size_t>(kMaxJobs))
      throw std::invalid_argument("line " + std::to_string(n) + ": more than " + std::to_string(kMaxJobs) +
                                  " jobs, the most a simulation takes");
    out.push_back(of_kind(*k, static_cast<int>(out.size()), arrival, static_cast<int>(slices), work));
  }
  if (!header) throw std::invalid_argument("the trace is empty: no header arrival_s,kind,slices,work");
  // A generator needs count >= 1; so does a trace: with no job every figure (JCT, makespan,
  // the Eq. 2-3 error) read 0, a run of nothing that looked like a result.
  if (out.empty()) throw std::invalid_argument("the trace has no jobs: nothing after the header");
  return out;
}

}  // namespace arbsim::jobs
