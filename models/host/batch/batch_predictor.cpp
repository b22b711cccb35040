#include "models/host/batch/batch_predictor.h"
#include <algorithm>
#include <limits>
#include <numeric>

namespace arbsim {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The fluid event loop shared by Algorithm 1 and time division: transfers in `active`
// progress at the model's rates until one finishes or `until` is reached.
class FluidClock {
 public:
  FluidClock(const std::vector<BatchStream>& s, const RateModel& r) : streams_(s), rates_(r) {
    for (const BatchStream& b : s) left_.push_back(b.bytes);
  }
  // Advances from t towards `until`; returns the new time and appends finished streams.
  double step(double t, double until, std::vector<int>& active, std::vector<int>& finished) {
    if (active.empty()) return until;
    const std::vector<double> r = rates_(active);
    double dt = until - t;
    for (std::size_t k = 0; k < active.size(); ++k) dt = std::min(dt, left_[active[k]] / r[k]);
    for (std::size_t k = 0; k < active.size(); ++k) left_[active[k]] -= r[k] * dt;
    std::vector<int> still;
    for (int i : active) (left_[i] <= 1e-9 * std::max(1.0, streams_[i].bytes) ? finished : still).push_back(i);
    active.swap(still);
    return t + dt;
  }

 private:
  const std::vector<BatchStream>& streams_;
  const RateModel& rates_;
  std::vector<double> left_;
};

}  // namespace

const char* to_string(BatchMethod m) {
  switch (m) {
    case BatchMethod::Batch: return "batch";
    case BatchMethod::BandwidthAllocation: return "bandwidth_allocation";
    case BatchMethod::TimeDivision: return "time_division";
  }
  return "?";
}

bool parse_batch_method(const std::string& s, BatchMethod* out) {
  for (BatchMethod m : {BatchMethod::Batch, BatchMethod::BandwidthAllocation, BatchMethod::TimeDivision})
    if (s == to_string(m)) {
      *out = m;
      return true;
    }
  return false;
}

// Algorithm 1 (seed 002 appendix): on the reversed timeline every kernel starts at 0 and
// each transfer starts when its kernel ends; the loop runs the transfers fluidly, adding
// each at its start time; reversing gives forward start times that align all completions.
BatchTimeline predict_batch(const std::vector<BatchStream>& streams, const RateModel& rates, double setup_ns) {
  const int n = static_cast<int>(streams.size());
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  // On the reversed timeline a transfer's data phase begins once its kernel and its fixed
  // delivery latency have passed.
  auto rev_start = [&](int i) { return streams[i].kernel_ns + (streams[i].bytes > 0 ? streams[i].latency_ns : 0); };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return rev_start(a) < rev_start(b); });
  std::vector<double> rev_copy_end(n, 0);
  for (int i = 0; i < n; ++i) rev_copy_end[i] = streams[i].kernel_ns;  // no transfer: ends with its kernel
  FluidClock clock(streams, rates);
  std::vector<int> active, finished;
  double t = 0;
  auto drain_until = [&](double until) {
    while (t < until && !active.empty()) {
      finished.clear();
      t = clock.step(t, until, active, finished);
      for (int i : finished) rev_copy_end[i] = t;
    }
    t = std::max(t, until);
  };
  for (int i : order) {
    if (streams[i].bytes <= 0) continue;
    drain_until(rev_start(i));
    active.push_back(i);
  }
  drain_until(kInf);
  double last = 0;
  for (int i = 0; i < n; ++i) last = std::max(last, rev_copy_end[i]);
  BatchTimeline out;
  out.makespan_ns = last + setup_ns;
  for (int i = 0; i < n; ++i) {
    StreamTimes s;
    s.kernel_end = out.makespan_ns;
    s.kernel_start = out.makespan_ns - streams[i].kernel_ns;
    s.copy_end = s.kernel_start;
    s.copy_start = out.makespan_ns - rev_copy_end[i];
    out.streams.push_back(s);
  }
  return out;
}

BatchTimeline predict_bandwidth_allocation(const std::vector<BatchStream>& streams,
                                           const std::vector<double>& capacity) {
  std::vector<int> users(capacity.size(), 0);
  for (const BatchStream& s : streams)
    if (s.bytes > 0)
      for (int e : s.path) ++users[e];
  BatchTimeline out;
  for (const BatchStream& s : streams) {
    double rate = kInf;
    for (std::size_t k = 0; k < s.path.size(); ++k) {
      const double w = s.weights.empty() ? 1.0 : s.weights[k];
      rate = std::min(rate, capacity[s.path[k]] / (users[s.path[k]] * w));
    }
    StreamTimes t;
    t.copy_end = s.bytes > 0 ? s.bytes / rate + s.latency_ns : 0;
    t.kernel_start = t.copy_end;
    t.kernel_end = t.kernel_start + s.kernel_ns;
    out.makespan_ns = std::max(out.makespan_ns, t.kernel_end);
    out.streams.push_back(t);
  }
  return out;
}

BatchTimeline predict_time_division(const std::vector<BatchStream>& streams, const RateModel& rates) {
  const int n = static_cast<int>(streams.size());
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return streams[a].kernel_ns > streams[b].kernel_ns; });
  BatchTimeline out;
  out.streams.resize(n);
  FluidClock clock(streams, rates);
  double t = 0;
  for (int i : order) {
    StreamTimes& s = out.streams[i];
    s.copy_start = t;
    std::vector<int> active, finished;
    if (streams[i].bytes > 0) active.push_back(i);
    while (!active.empty()) t = clock.step(t, kInf, active, finished);
    // The next transfer may start once this one's data has left; it lands latency later.
    s.copy_end = t + (streams[i].bytes > 0 ? streams[i].latency_ns : 0);
    s.kernel_start = s.copy_end;
    s.kernel_end = s.copy_end + streams[i].kernel_ns;
    out.makespan_ns = std::max(out.makespan_ns, s.kernel_end);
  }
  return out;
}

BatchTimeline predict(BatchMethod m, const std::vector<BatchStream>& streams, const std::vector<double>& capacity,
                      const RateModel& rates) {
  switch (m) {
    case BatchMethod::Batch: return predict_batch(streams, rates);
    case BatchMethod::BandwidthAllocation: return predict_bandwidth_allocation(streams, capacity);
    case BatchMethod::TimeDivision: return predict_time_division(streams, rates);
  }
  return {};
}

std::vector<BatchStream> merge_shared_engines(const std::vector<BatchStream>& streams, std::vector<int>* merged_into) {
  std::vector<BatchStream> out;
  merged_into->assign(streams.size(), -1);
  for (std::size_t i = 0; i < streams.size(); ++i) {
    const BatchStream& s = streams[i];
    int target = -1;
    for (std::size_t k = 0; k < out.size() && s.dma_engine >= 0; ++k)
      if (out[k].dma_engine == s.dma_engine) target = static_cast<int>(k);
    if (target < 0) {
      out.push_back(s);
      (*merged_into)[i] = static_cast<int>(out.size()) - 1;
      continue;
    }
    out[target].bytes += s.bytes;  // joined transfers and kernels (§3.2, special case 1)
    out[target].kernel_ns += s.kernel_ns;
    (*merged_into)[i] = target;
  }
  return out;
}

}  // namespace arbsim
