// A latency histogram with log-scaled bins (results.json apps[].latency_histogram and
// latency_histograms.per_tc; docs/results.md): ten bins per decade, bin k holding latencies in
// [10^(k/10), 10^((k+1)/10)) ns, so each bin is 26 % wider than the one before and any
// latency from 1 ns to hours lands in one of a few hundred bins; below 1 ns is bin -1, [0, 1).
// Sparse (only bins that hold something) and ordered, so its output is deterministic.
#pragma once
#include <cmath>
#include <cstdint>
#include <map>

namespace arbsim {

class LatencyHistogram {
 public:
  static constexpr int kBinsPerDecade = 10;

  void add(double ns) {
    ++bins_[bin_of(ns)];
    ++count_;
  }
  void add(const LatencyHistogram& other) {
    for (const auto& [k, n] : other.bins_) bins_[k] += n;
    count_ += other.count_;
  }
  static int bin_of(double ns) {
    if (!(ns >= 1.0)) return -1;
    return static_cast<int>(std::floor(std::log10(ns) * kBinsPerDecade));
  }
  // Bin k's lower edge in ns (0 for bin -1); its upper edge is lower(k + 1).
  static double lower(int k) { return k < 0 ? 0.0 : std::pow(10.0, static_cast<double>(k) / kBinsPerDecade); }
  const std::map<int, uint64_t>& bins() const { return bins_; }
  uint64_t count() const { return count_; }

 private:
  std::map<int, uint64_t> bins_;
  uint64_t count_ = 0;
};

}  // namespace arbsim
