#include "models/batch/batch_predictor.h"
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace arbsim {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A stream's transfers on the reversed timeline: each waits its delivery latency, then
// moves its bytes; the one before it (forward order) follows. (begin, end) per transfer.
struct Span {
  double begin = 0, end = 0;
};

// The fluid event loop of Algorithm 1, over chains: chain i is released at release[i] and
// runs streams[i]'s transfers last-to-first; transfers moving together progress at the
// model's rates, constant between events (a release, a latency elapsing, a transfer ending).
class ReversedChains {
 public:
  ReversedChains(const std::vector<BatchStream>& s, const RateModel& r) : streams_(s), rates_(r) {}

  std::vector<std::vector<Span>> run(const std::vector<double>& release) {
    const int n = static_cast<int>(streams_.size());
    spans_.assign(n, {});
    cursor_.assign(n, {});
    for (int i = 0; i < n; ++i) {
      spans_[i].resize(streams_[i].transfers.size());
      cursor_[i].item = static_cast<int>(streams_[i].transfers.size());
      advance(i, release[i]);
    }
    double t = 0;
    while (step(t)) {
    }
    return spans_;
  }

 private:
  struct Cursor {
    int item = 0;          // transfer index (counting down); < 0: chain done
    double ready = kInf;   // its data starts moving at this time
    double left = 0;       // bytes still to move once moving
    bool moving = false;
  };

  const BatchTransfer& item(int i) const { return streams_[i].transfers[cursor_[i].item]; }

  // Chain i's next transfer (reversed) starts its latency at t; zero-byte ones are skipped.
  void advance(int i, double t) {
    Cursor& c = cursor_[i];
    c.moving = false;
    while (--c.item >= 0) {
      Span& sp = spans_[i][c.item];
      sp.begin = t;
      if (item(i).bytes > 0) {
        c.ready = t + item(i).latency_ns;
        c.left = item(i).bytes;
        return;
      }
      sp.end = t;
    }
    c.ready = kInf;
  }

  bool step(double& t) {
    std::vector<int> moving;
    std::vector<const BatchTransfer*> what;
    double next = kInf;
    for (std::size_t i = 0; i < cursor_.size(); ++i) {
      if (cursor_[i].moving) {
        moving.push_back(static_cast<int>(i));
        what.push_back(&item(static_cast<int>(i)));
      } else {
        next = std::min(next, cursor_[i].ready);
      }
    }
    const std::vector<double> r = what.empty() ? std::vector<double>() : rates_(what);
    for (std::size_t k = 0; k < moving.size(); ++k) next = std::min(next, t + cursor_[moving[k]].left / r[k]);
    if (next == kInf) return false;
    // A transfer due to end by `next` ends there exactly: far from t = 0 a few bytes take
    // less than the clock's resolution (t + left/r == t), and only setting them to 0 makes
    // the loop progress (every step then ends a transfer or a latency).
    for (std::size_t k = 0; k < moving.size(); ++k) {
      Cursor& c = cursor_[moving[k]];
      c.left = std::isinf(r[k]) || t + c.left / r[k] <= next ? 0 : c.left - r[k] * (next - t);
    }
    t = next;
    for (int i : moving)
      if (cursor_[i].left <= 1e-9 * std::max(1.0, item(i).bytes)) {
        spans_[i][cursor_[i].item].end = t;
        advance(i, t);
      }
    for (Cursor& c : cursor_)
      if (!c.moving && c.ready <= t) c.moving = true;
    return true;
  }

  const std::vector<BatchStream>& streams_;
  const RateModel& rates_;
  std::vector<Cursor> cursor_;
  std::vector<std::vector<Span>> spans_;
};

// The forward times of a stream run as a chain from `start`, each transfer at `rate(k)`,
// the next starting when one is delivered (the run-time starts it on the copy's completion).
template <class Rate>
void run_chain_forward(const BatchStream& s, double start, Rate rate, StreamTimes& out) {
  double t = start;
  out.copy_start = start;
  for (std::size_t k = 0; k < s.transfers.size(); ++k) {
    const BatchTransfer& tr = s.transfers[k];
    out.part_start.push_back(t);
    if (tr.bytes > 0) t += tr.bytes / rate(k) + tr.latency_ns;
    out.part_end.push_back(t);
  }
  out.copy_end = out.kernel_start = t;
  out.kernel_end = t + s.kernel_ns;
}

double weight(const BatchTransfer& t, std::size_t k) { return t.weights.empty() ? 1.0 : t.weights[k]; }

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
// each stream's transfers start when its kernel ends; the loop runs them fluidly, and
// reversing gives forward start times that align all completions.
BatchTimeline predict_batch(const std::vector<BatchStream>& streams, const RateModel& rates, double setup_ns) {
  const int n = static_cast<int>(streams.size());
  std::vector<double> release(n);
  for (int i = 0; i < n; ++i) release[i] = streams[i].kernel_ns;
  const std::vector<std::vector<Span>> spans = ReversedChains(streams, rates).run(release);
  double last = 0;
  for (int i = 0; i < n; ++i) {
    last = std::max(last, streams[i].kernel_ns);
    for (const Span& sp : spans[i]) last = std::max(last, sp.end);
  }
  BatchTimeline out;
  out.makespan_ns = last + setup_ns;
  for (int i = 0; i < n; ++i) {
    StreamTimes s;
    s.kernel_end = out.makespan_ns;
    s.kernel_start = s.copy_end = out.makespan_ns - streams[i].kernel_ns;
    s.copy_start = s.copy_end;
    for (const Span& sp : spans[i]) {
      s.part_start.push_back(out.makespan_ns - sp.end);
      s.part_end.push_back(out.makespan_ns - sp.begin);
    }
    if (!spans[i].empty()) s.copy_start = s.part_start.front();
    out.streams.push_back(s);
  }
  return out;
}

BatchTimeline predict_bandwidth_allocation(const std::vector<BatchStream>& streams,
                                           const std::vector<double>& capacity,
                                           const std::vector<BatchTransfer>& reserved) {
  // Every reserved transfer gets the same rate on an edge: capacity / (sum of their
  // weights there), so a read's request path, which loads an edge with small TLPs, takes
  // only its own small part of it.
  std::vector<double> load(capacity.size(), 0);
  auto count = [&](const BatchTransfer& t) {
    if (t.bytes > 0)
      for (std::size_t k = 0; k < t.path.size(); ++k) load[t.path[k]] += weight(t, k);
  };
  if (reserved.empty()) {
    for (const BatchStream& s : streams)
      for (const BatchTransfer& t : s.transfers) count(t);
  } else {
    for (const BatchTransfer& t : reserved) count(t);
  }
  auto share = [&](const BatchTransfer& t) {
    double rate = t.cap;
    for (std::size_t k = 0; k < t.path.size(); ++k)
      if (weight(t, k) > 0) rate = std::min(rate, capacity[t.path[k]] / std::max(load[t.path[k]], weight(t, k)));
    return rate;
  };
  BatchTimeline out;
  for (const BatchStream& s : streams) {
    StreamTimes t;
    run_chain_forward(s, 0, [&](std::size_t k) { return share(s.transfers[k]); }, t);
    for (const BatchTransfer& tr : s.transfers) t.part_pace.push_back(share(tr));
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
  double t = 0;
  for (int i : order) {
    const BatchStream& s = streams[i];
    // A kernel-only stream holds no bandwidth and takes no turn: it starts at once, as the
    // run-time starts it (batch_runtime.cpp, start_time_division()).
    const bool copies = std::any_of(s.transfers.begin(), s.transfers.end(), [](const BatchTransfer& x) { return x.bytes > 0; });
    run_chain_forward(s, copies ? t : 0.0, [&](std::size_t k) { return rates({&s.transfers[k]})[0]; }, out.streams[i]);
    if (copies) t = out.streams[i].copy_end;  // the next transfer starts once this one is delivered
    out.makespan_ns = std::max(out.makespan_ns, out.streams[i].kernel_end);
  }
  return out;
}

std::vector<BatchStream> merge_shared_engines(const std::vector<BatchStream>& streams, std::vector<int>* merged_into,
                                              std::vector<int>* part_of) {
  const int n = static_cast<int>(streams.size());
  // Union of streams that share an engine, transitively (a staged copy holds two engines).
  std::vector<int> root(n);
  std::iota(root.begin(), root.end(), 0);
  auto find = [&](int i) {
    while (root[i] != i) i = root[i] = root[root[i]];
    return i;
  };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < i; ++j)
      for (int e : streams[i].engines)
        if (std::find(streams[j].engines.begin(), streams[j].engines.end(), e) != streams[j].engines.end())
          root[find(i)] = find(j);
  std::vector<BatchStream> out;
  std::vector<std::map<int, double>> kernels;  // [group] compute -> its members' kernel time
  std::vector<int> group_of_root(n, -1);
  merged_into->assign(n, -1);
  if (part_of) part_of->assign(n, -1);
  for (int i = 0; i < n; ++i) {
    int& g = group_of_root[find(i)];
    if (g < 0) {
      g = static_cast<int>(out.size());
      out.emplace_back();
      kernels.emplace_back();
    }
    BatchStream& m = out[g];
    if (part_of) (*part_of)[i] = streams[i].transfers.empty() ? -1 : static_cast<int>(m.transfers.size());
    m.transfers.insert(m.transfers.end(), streams[i].transfers.begin(), streams[i].transfers.end());
    // Joined kernels (§3.2, special case 1): one after another on each GPU, GPUs in parallel.
    m.kernel_ns = std::max(m.kernel_ns, kernels[g][streams[i].compute] += streams[i].kernel_ns);
    for (int e : streams[i].engines)
      if (std::find(m.engines.begin(), m.engines.end(), e) == m.engines.end()) m.engines.push_back(e);
    (*merged_into)[i] = g;
  }
  return out;
}

}  // namespace arbsim
