#include "models/flow/max_min.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace arbsim::flow {

namespace {

// An edge counts as full, and a flow as at its cap, within this relative tolerance: the
// increments that fill them carry a few ulps of rounding.
constexpr double kFullTolerance = 1e-9;
// Ahead hops weigh a few percent (an MRd's 24 B per MRRS of data), so each round of the
// fixed point shrinks the error by that factor: ten rounds are far below 1 ps per copy.
constexpr int kMaxAheadRounds = 10;
constexpr double kAheadConverged = 1e-12;

void check(const std::vector<double>& capacity, const std::vector<FlowSpec>& flows) {
  for (double c : capacity)
    if (!(c > 0)) throw std::invalid_argument("max_min_rates: edge capacity must be > 0");
  for (const FlowSpec& f : flows) {
    if (!(f.cap > 0)) throw std::invalid_argument("max_min_rates: a flow's cap must be > 0");
    for (const Hop& h : f.path) {
      if (h.edge < 0 || h.edge >= static_cast<int>(capacity.size()))
        throw std::invalid_argument("max_min_rates: unknown edge " + std::to_string(h.edge));
      if (!(h.weight >= 0)) throw std::invalid_argument("max_min_rates: hop weight must be >= 0");
    }
  }
}

struct Filling {
  const std::vector<double>& capacity;
  const std::vector<FlowSpec>& flows;
  std::vector<double> rate, used;
  std::vector<char> frozen;
  std::size_t left;

  Filling(const std::vector<double>& c, const std::vector<FlowSpec>& f)
      : capacity(c), flows(f), rate(f.size(), 0.0), used(c.size(), 0.0), frozen(f.size(), 0), left(f.size()) {}

  // Per edge, the weight of the flows still rising.
  std::vector<double> rising_weight() const {
    std::vector<double> w(capacity.size(), 0.0);
    for (std::size_t f = 0; f < flows.size(); ++f)
      if (!frozen[f])
        for (const Hop& h : flows[f].path) w[h.edge] += h.weight;
    return w;
  }

  // How far every rising flow can go before an edge fills or a flow meets its cap.
  double step(const std::vector<double>& w) const {
    double s = kUnbounded;
    for (std::size_t e = 0; e < capacity.size(); ++e)
      if (w[e] > 0) s = std::min(s, std::max(0.0, capacity[e] - used[e]) / w[e]);
    for (std::size_t f = 0; f < flows.size(); ++f)
      if (!frozen[f]) s = std::min(s, flows[f].cap - rate[f]);
    return s;
  }

  void raise(double s) {
    for (std::size_t f = 0; f < flows.size(); ++f) {
      if (frozen[f]) continue;
      rate[f] += s;
      for (const Hop& h : flows[f].path) used[h.edge] += s * h.weight;
    }
  }

  bool crosses_full_edge(std::size_t f, const std::vector<double>& w) const {
    for (const Hop& h : flows[f].path)
      if (w[h.edge] > 0 && h.weight > 0 && capacity[h.edge] - used[h.edge] <= kFullTolerance * capacity[h.edge])
        return true;
    return false;
  }

  void freeze(const std::vector<double>& w) {
    for (std::size_t f = 0; f < flows.size(); ++f) {
      if (frozen[f]) continue;
      const bool at_cap = rate[f] >= flows[f].cap * (1 - kFullTolerance);
      if (at_cap || crosses_full_edge(f, w)) {
        frozen[f] = 1;
        --left;
      }
    }
  }

  void unbound_rest() {
    for (std::size_t f = 0; f < flows.size(); ++f)
      if (!frozen[f]) rate[f] = kUnbounded;
    left = 0;
  }
};

// Each round freezes at least the flows on the edge (or at the cap) that set the step,
// so there are at most flows.size() rounds.
std::vector<double> progressive_filling(const std::vector<double>& capacity, const std::vector<FlowSpec>& flows) {
  Filling fill(capacity, flows);
  while (fill.left > 0) {
    const std::vector<double> w = fill.rising_weight();
    const double s = fill.step(w);
    if (s == kUnbounded) {
      fill.unbound_rest();
      break;
    }
    fill.raise(s);
    fill.freeze(w);
  }
  return fill.rate;
}

// The flows with their fair hops only.
std::vector<FlowSpec> fair_part(const std::vector<FlowSpec>& flows, bool* any_ahead) {
  std::vector<FlowSpec> fair = flows;
  for (FlowSpec& f : fair) {
    const auto ahead = std::remove_if(f.path.begin(), f.path.end(), [](const Hop& h) { return h.ahead; });
    *any_ahead = *any_ahead || ahead != f.path.end();
    f.path.erase(ahead, f.path.end());
  }
  return fair;
}

// The capacity left to share once the ahead hops have taken theirs at `rate`; never
// below a millionth of the edge, so a (never seen) overload cannot stall every flow.
std::vector<double> left_after_ahead(const std::vector<double>& capacity, const std::vector<FlowSpec>& flows,
                                     const std::vector<double>& rate) {
  std::vector<double> left = capacity;
  for (std::size_t f = 0; f < flows.size(); ++f)
    for (const Hop& h : flows[f].path)
      if (h.ahead && rate[f] != kUnbounded) left[h.edge] -= rate[f] * h.weight;
  for (std::size_t e = 0; e < left.size(); ++e) left[e] = std::max(left[e], capacity[e] * 1e-6);
  return left;
}

double largest_change(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) d = std::max(d, std::abs(a[i] - b[i]) / std::max(std::abs(a[i]), std::abs(b[i])));
  return d;
}

}  // namespace

std::vector<double> max_min_rates(const std::vector<double>& capacity, const std::vector<FlowSpec>& flows) {
  check(capacity, flows);
  bool any_ahead = false;
  const std::vector<FlowSpec> fair = fair_part(flows, &any_ahead);
  std::vector<double> rate = progressive_filling(capacity, fair);
  for (int round = 0; any_ahead && round < kMaxAheadRounds; ++round) {
    const std::vector<double> next = progressive_filling(left_after_ahead(capacity, flows, rate), fair);
    const double change = largest_change(rate, next);
    rate = next;
    if (change < kAheadConverged) break;
  }
  return rate;
}

std::vector<double> max_min_rates(const std::vector<double>& capacity, const std::vector<const FlowSpec*>& flows,
                                  const std::vector<char>* binds) {
  std::vector<FlowSpec> flat;
  flat.reserve(flows.size());
  for (const FlowSpec* f : flows) {
    flat.push_back(*f);
    if (binds)
      for (Hop& h : flat.back().path)
        if (!(*binds)[static_cast<std::size_t>(h.edge)]) h.weight = 0;
  }
  return max_min_rates(capacity, flat);
}

}  // namespace arbsim::flow
