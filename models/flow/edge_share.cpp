#include "models/flow/edge_share.h"
#include <algorithm>
#include <memory>
#include <numeric>

namespace arbsim::flow {

namespace {

double weight_of(const SharePolicy& p, int index) {
  if (p.kind != ShareKind::Weighted) return 1.0;
  return index >= 0 && index < static_cast<int>(p.weights.size()) ? p.weights[static_cast<std::size_t>(index)] : 0.0;
}

// Weighted max-min among claims[i] for i in `who` (their weights > 0): the level rises until
// each child is satisfied or the capacity is gone. Returns what is left.
double water_fill(const SharePolicy& p, const std::vector<Claim>& claims, std::vector<int>& who, double capacity,
                  std::vector<double>& out) {
  auto slope = [&](int i) { return weight_of(p, claims[i].index) * claims[i].cost; };
  std::sort(who.begin(), who.end(), [&](int a, int b) {
    return claims[a].demand / slope(a) < claims[b].demand / slope(b);
  });
  double rem = capacity, sk = 0;
  for (int i : who) sk += slope(i);
  std::size_t k = 0;
  for (; k < who.size(); ++k) {
    const int i = who[k];
    if (claims[i].demand * sk > rem * slope(i)) break;  // not satisfied at the current level
    out[i] = claims[i].demand;
    rem = std::max(0.0, rem - claims[i].demand);
    sk -= slope(i);
  }
  if (k == who.size()) return rem;
  const double level = sk > 0 ? rem / sk : 0.0;
  for (; k < who.size(); ++k) out[who[k]] = slope(who[k]) * level;
  return 0.0;
}

void strict(const std::vector<Claim>& claims, double capacity, std::vector<double>& out) {
  thread_local std::vector<int> order;  // not reentrant: strict() calls nothing that comes back here
  order.resize(claims.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return claims[a].index > claims[b].index; });
  double rem = capacity;
  for (int i : order) {
    out[i] = std::min(claims[i].demand, std::max(0.0, rem));
    rem -= out[i];
  }
}

void divide_unguarded(const SharePolicy& policy, const std::vector<Claim>& claims, double capacity,
                      std::vector<double>& out) {
  if (policy.kind == ShareKind::Strict) return strict(claims, capacity, out);
  thread_local std::vector<int> weighted, fallback;  // not reentrant (see strict())
  weighted.clear();
  fallback.clear();
  for (std::size_t i = 0; i < claims.size(); ++i)
    (weight_of(policy, claims[i].index) > 0 ? weighted : fallback).push_back(static_cast<int>(i));
  const double left = water_fill(policy, claims, weighted, capacity, out);
  if (fallback.empty() || !(left > 0)) return;
  const SharePolicy even;  // the fallback scan is a round robin
  water_fill(even, claims, fallback, left, out);
}

}  // namespace

void divide(const SharePolicy& policy, const std::vector<Claim>& claims, double capacity, std::vector<double>& out) {
  out.assign(claims.size(), 0.0);
  if (claims.size() == 1) {  // alone: all it asks, up to the capacity, under every arbiter
    out[0] = std::min(claims[0].demand, capacity);
    return;
  }
  if (policy.guard <= 0) return divide_unguarded(policy, claims, capacity, out);
  // The guard's floor: 1 turn in x + 1 for each child that waits, at most an even split.
  const double floor = capacity * std::min(1.0 / (policy.guard + 1), 1.0 / static_cast<double>(claims.size()));
  thread_local std::vector<Claim> rest;  // not reentrant (see strict())
  thread_local std::vector<double> more;
  rest = claims;
  double left = capacity;
  for (std::size_t i = 0; i < claims.size(); ++i) {
    out[i] = std::min(claims[i].demand, floor);
    rest[i].demand = claims[i].demand - out[i];  // an unbounded demand stays unbounded
    left -= out[i];
  }
  more.assign(claims.size(), 0.0);
  divide_unguarded(policy, rest, std::max(0.0, left), more);
  for (std::size_t i = 0; i < claims.size(); ++i) out[i] += more[i];
}

namespace {

// Users [lo, hi) grouped by `key`: one claim per group (demand summed, cost averaged).
template <class Key>
void group(const std::vector<EdgeUser>& users, std::size_t lo, std::size_t hi, Key key,
           std::vector<Claim>& claims, std::vector<std::size_t>& starts) {
  claims.clear();
  starts.clear();
  for (std::size_t u = lo; u < hi; ++u) {
    if (starts.empty() || key(users[u]) != claims.back().index) {
      starts.push_back(u);
      claims.push_back({key(users[u]), 0.0, 0.0});
    }
    Claim& c = claims.back();
    c.demand += users[u].demand * users[u].cost;
    c.cost += users[u].cost;
  }
  starts.push_back(hi);
  for (std::size_t g = 0; g < claims.size(); ++g) claims[g].cost /= static_cast<double>(starts[g + 1] - starts[g]);
}

}  // namespace

namespace {

// share_edge()'s working vectors, one set per nesting level (a SlotSplit may share another
// edge inside it), kept between calls: rates are recomputed on every event.
struct Scratch {
  std::vector<Claim> vcs, slots, flows;
  std::vector<std::size_t> vc_start, slot_start;
  std::vector<double> vc_share, slot_share, flow_share;
};

class ScratchLevel {
 public:
  ScratchLevel() {
    if (pool().size() <= depth()) pool().push_back(std::make_unique<Scratch>());
    s_ = pool()[depth()++].get();
  }
  ~ScratchLevel() { --depth(); }
  ScratchLevel(const ScratchLevel&) = delete;
  ScratchLevel& operator=(const ScratchLevel&) = delete;
  Scratch& operator*() { return *s_; }

 private:
  static std::vector<std::unique_ptr<Scratch>>& pool() {
    thread_local std::vector<std::unique_ptr<Scratch>> p;
    return p;
  }
  static std::size_t& depth() {
    thread_local std::size_t d = 0;
    return d;
  }
  Scratch* s_;
};

}  // namespace

void share_edge(const EdgeArbitration& arb, double capacity, const std::vector<EdgeUser>& users,
                std::vector<double>& out, const SlotSplit& within) {
  out.assign(users.size(), 0.0);
  if (users.size() == 1) {  // alone on the edge: all it asks, up to the capacity
    out[0] = std::min(users[0].demand * users[0].cost, capacity) / users[0].cost;
    return;
  }
  ScratchLevel level;
  Scratch& w = *level;
  group(users, 0, users.size(), [](const EdgeUser& u) { return u.vc; }, w.vcs, w.vc_start);
  divide(arb.vc, w.vcs, capacity, w.vc_share);
  for (std::size_t v = 0; v < w.vcs.size(); ++v) {
    group(users, w.vc_start[v], w.vc_start[v + 1], [](const EdgeUser& u) { return u.slot; }, w.slots, w.slot_start);
    divide(arb.port, w.slots, w.vc_share[v], w.slot_share);
    for (std::size_t s = 0; s < w.slots.size(); ++s) {
      const std::size_t lo = w.slot_start[s], hi = w.slot_start[s + 1];
      if (hi - lo > 1 && within) {
        within(lo, hi, w.slot_share[s], w.flow_share);
      } else {
        w.flows.clear();
        for (std::size_t u = lo; u < hi; ++u) w.flows.push_back({0, users[u].demand * users[u].cost, users[u].cost});
        divide(SharePolicy{}, w.flows, w.slot_share[s], w.flow_share);
      }
      for (std::size_t u = lo; u < hi; ++u) out[u] = w.flow_share[u - lo] / users[u].cost;
    }
  }
}

}  // namespace arbsim::flow
