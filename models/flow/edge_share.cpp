#include "models/flow/edge_share.h"
#include <algorithm>
#include <limits>
#include <numeric>

namespace arbsim::flow {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

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
  std::vector<int> order(claims.size());
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
  std::vector<int> weighted, fallback;
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
  if (policy.guard <= 0 || claims.size() < 2) return divide_unguarded(policy, claims, capacity, out);
  // The guard's floor: 1 turn in x + 1 for each child that waits, at most an even split.
  const double floor = capacity * std::min(1.0 / (policy.guard + 1), 1.0 / static_cast<double>(claims.size()));
  std::vector<Claim> rest = claims;
  double left = capacity;
  for (std::size_t i = 0; i < claims.size(); ++i) {
    out[i] = std::min(claims[i].demand, floor);
    rest[i].demand = claims[i].demand - out[i];  // an unbounded demand stays unbounded
    left -= out[i];
  }
  std::vector<double> more(claims.size(), 0.0);
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

void share_edge(const EdgeArbitration& arb, double capacity, const std::vector<EdgeUser>& users,
                std::vector<double>& out, const SlotSplit& within) {
  out.assign(users.size(), 0.0);
  std::vector<Claim> vcs, slots, flows;
  std::vector<std::size_t> vc_start, slot_start;
  std::vector<double> vc_share, slot_share, flow_share;
  group(users, 0, users.size(), [](const EdgeUser& u) { return u.vc; }, vcs, vc_start);
  divide(arb.vc, vcs, capacity, vc_share);
  for (std::size_t v = 0; v < vcs.size(); ++v) {
    group(users, vc_start[v], vc_start[v + 1], [](const EdgeUser& u) { return u.slot; }, slots, slot_start);
    divide(arb.port, slots, vc_share[v], slot_share);
    for (std::size_t s = 0; s < slots.size(); ++s) {
      const std::size_t lo = slot_start[s], hi = slot_start[s + 1];
      if (hi - lo > 1 && within) {
        within(lo, hi, slot_share[s], flow_share);
      } else {
        flows.clear();
        for (std::size_t u = lo; u < hi; ++u) flows.push_back({0, users[u].demand * users[u].cost, users[u].cost});
        divide(SharePolicy{}, flows, slot_share[s], flow_share);
      }
      for (std::size_t u = lo; u < hi; ++u) out[u] = flow_share[u - lo] / users[u].cost;
    }
  }
}

}  // namespace arbsim::flow
