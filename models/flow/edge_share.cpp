#include "models/flow/edge_share.h"
#include <algorithm>
#include <initializer_list>
#include <limits>
#include <numeric>

namespace arbsim::flow {

namespace {

double weight_of(const SharePolicy& p, int index) {
  if (p.kind != ShareKind::Weighted) return 1.0;
  return index >= 0 && index < static_cast<int>(p.weights.size()) ? p.weights[static_cast<std::size_t>(index)] : 0.0;
}

// A division's scratch (not reentrant: nothing a division calls comes back here): per claim,
// its slope (weight x cost: wire bytes per unit of the water level) and its demand in
// levels, each computed once per division rather than in every comparison of the sort.
struct Levels {
  std::vector<double> slope, key;
};
thread_local Levels levels;

// `out` as n zeros, without vector::assign's general path (a division runs per node per round).
void zeroed(std::vector<double>& out, std::size_t n) {
  out.resize(n);
  std::fill(out.begin(), out.end(), 0.0);
}

// Weighted max-min among claims[i] for i in `who` (their weights > 0): the level rises until
// each child is satisfied or the capacity is gone. Returns what is left.
double water_fill(const SharePolicy& p, const std::vector<Claim>& claims, std::vector<int>& who, double capacity,
                  std::vector<double>& out) {
  std::vector<double>& slope = levels.slope;
  std::vector<double>& key = levels.key;
  slope.resize(claims.size());
  key.resize(claims.size());
  for (int i : who) {
    slope[i] = weight_of(p, claims[i].index) * claims[i].cost;
    key[i] = claims[i].demand / slope[i];
  }
  std::sort(who.begin(), who.end(), [&](int a, int b) { return key[a] < key[b]; });
  double rem = capacity, sk = 0;
  for (int i : who) sk += slope[i];
  std::size_t k = 0;
  for (; k < who.size(); ++k) {
    const int i = who[k];
    if (claims[i].demand * sk > rem * slope[i]) break;  // not satisfied at the current level
    out[i] = claims[i].demand;
    rem = std::max(0.0, rem - claims[i].demand);
    sk -= slope[i];
  }
  if (k == who.size()) return rem;
  const double level = sk > 0 ? rem / sk : 0.0;
  for (; k < who.size(); ++k) out[who[k]] = slope[who[k]] * level;
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

namespace {

// A starvation guard with threshold x around an arbiter: a child that requested x turns
// without a grant is granted next (models/pcie/arbiters/starvation_guard.h). In the steady
// state every child the arbiter would starve gets one turn in x + 1 (strict priority over
// H > M > L with x = 3 cycles H, H, M, L: each of M and L waits three turns, then is
// forced; docs/architecture.md), so each child the arbiter would give fewer turns is
// floored at phi and the arbiter divides what the floors leave among the others, phi being
// the largest floor with (x + 1) phi <= G(phi), G the egress's turns per ns (with more
// children starved than x + 1 turns can serve, the floors take it all: x = 1 over three
// cycles M, L). A child the arbiter serves often enough never waits x turns: it keeps its
// share. Turns are a
// claim's units (demand / cost): TLPs for the arbitrated rates, so a child of small TLPs
// (MRds) gets as many turns as one of large TLPs, not as many bytes. Found by bisection.
void divide_guarded(const SharePolicy& policy, const std::vector<Claim>& claims, double capacity,
                    std::vector<double>& out) {
  thread_local std::vector<Claim> rest;  // not reentrant (see strict())
  thread_local std::vector<double> more;
  thread_local std::vector<char> floored;
  const std::size_t n = claims.size();
  const auto turns = [&](std::size_t i, double wire) { return wire / claims[i].cost; };
  // At floor phi: the children the arbiter would give fewer than min(demand, phi) turns are
  // held at that floor and the arbiter divides the rest among the others (until no other
  // falls below); each child's share (in capacity units) into `result`, their turns summed
  // into G. -1 when the floors alone need more than the capacity.
  const auto turns_at = [&](double phi, std::vector<double>& result) {
    floored.assign(n, 0);
    for (bool changed = true; changed;) {
      changed = false;
      rest = claims;
      double left = capacity;
      for (std::size_t i = 0; i < n; ++i)
        if (floored[i]) {
          const double floor = std::min(claims[i].demand / claims[i].cost, phi) * claims[i].cost;
          left -= floor;
          rest[i].demand = 0;
        }
      if (left < -capacity * 1e-12) return -1.0;
      more.assign(n, 0.0);
      divide_unguarded(policy, rest, std::max(0.0, left), more);
      for (std::size_t i = 0; i < n; ++i)
        if (!floored[i] && turns(i, more[i]) < std::min(claims[i].demand / claims[i].cost, phi) * (1 - 1e-12))
          floored[i] = 1, changed = true;
    }
    result.assign(n, 0.0);
    double g = 0;
    for (std::size_t i = 0; i < n; ++i) {
      result[i] = floored[i] ? std::min(claims[i].demand / claims[i].cost, phi) * claims[i].cost : more[i];
      g += turns(i, result[i]);
    }
    return g;
  };
  double least_cost = std::numeric_limits<double>::infinity();
  for (const Claim& c : claims) least_cost = std::min(least_cost, c.cost);
  double lo = 0, hi = capacity / least_cost;
  thread_local std::vector<double> trial;
  for (int k = 0; k < 80 && hi - lo > hi * 1e-16; ++k) {
    const double mid = (lo + hi) / 2;
    const double g = turns_at(mid, trial);
    if (g >= 0 && (policy.guard + 1) * mid <= g) lo = mid;
    else hi = mid;
  }
  turns_at(lo, out);
}

}  // namespace

namespace {

// Two children of positive weight (a link's two requesters under round robin, a queue's two
// credit classes): the very operations water_fill() makes for them, in its order, without
// its scratch, so the shares are the same to the last bit. Why a copy rather than a cheaper
// water_fill(): one on stack scratch with an inline insertion sort, measured on the 16-GPU
// forest (callgrind), cost 404 K instructions per event against 374 K with this path.
void weighted_pair(const SharePolicy& p, const std::vector<Claim>& claims, double capacity, std::vector<double>& out) {
  const double slope[2] = {weight_of(p, claims[0].index) * claims[0].cost, weight_of(p, claims[1].index) * claims[1].cost};
  const int first = claims[1].demand / slope[1] < claims[0].demand / slope[0] ? 1 : 0, second = 1 - first;
  double rem = capacity, sk = slope[first] + slope[second];
  const auto fill_level = [&](std::initializer_list<int> who) {
    const double level = sk > 0 ? rem / sk : 0.0;
    for (int i : who) out[i] = slope[i] * level;
  };
  if (claims[first].demand * sk > rem * slope[first]) return fill_level({first, second});
  out[first] = claims[first].demand;
  rem = std::max(0.0, rem - claims[first].demand);
  sk -= slope[first];
  if (claims[second].demand * sk > rem * slope[second]) return fill_level({second});
  out[second] = claims[second].demand;
}

}  // namespace

void divide(const SharePolicy& policy, const std::vector<Claim>& claims, double capacity, std::vector<double>& out,
            bool guards) {
  zeroed(out, claims.size());
  if (claims.size() == 1) {  // alone: all it asks, up to the capacity, under every arbiter
    out[0] = std::min(claims[0].demand, capacity);
    return;
  }
  const bool unguarded = policy.guard <= 0 || !guards;
  if (unguarded && policy.kind != ShareKind::Strict && claims.size() == 2 &&
      weight_of(policy, claims[0].index) > 0 && weight_of(policy, claims[1].index) > 0)
    return weighted_pair(policy, claims, capacity, out);
  if (unguarded) return divide_unguarded(policy, claims, capacity, out);
  divide_guarded(policy, claims, capacity, out);
}

namespace {

// Round robin (no weights, no guard): child c unbounded raises the water level's demand;
// the new level L solves sum_{j != c} min(u_j, L) c_j + L c_c = capacity (u: demands in
// turns, c: costs). Over the children sorted by u, with prefix sums, each child's L is a
// binary search and a linear solve.
void each_unbounded_round_robin(const std::vector<Claim>& claims, double capacity, std::vector<double>& out) {
  thread_local std::vector<int> order;
  thread_local std::vector<double> demand, u, before, after;  // before[k]: wire of sorted[0, k) satisfied; after[k]: costs of [k, n)
  const std::size_t n = claims.size();
  order.resize(n);
  std::iota(order.begin(), order.end(), 0);
  // A demand of twice the capacity is never met, as an unbounded one: capped so, the sums
  // stay finite.
  demand.resize(n);
  u.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    demand[i] = std::min(claims[i].demand, 2 * capacity);
    u[i] = demand[i] / claims[i].cost;
  }
  std::sort(order.begin(), order.end(), [&](int a, int b) { return u[a] < u[b]; });
  before.assign(n + 1, 0.0);
  after.assign(n + 1, 0.0);
  for (std::size_t k = 0; k < n; ++k) before[k + 1] = before[k] + demand[order[k]];
  for (std::size_t k = n; k-- > 0;) after[k] = after[k + 1] + claims[order[k]].cost;
  for (std::size_t pc = 0; pc < n; ++pc) {
    const int c = order[pc];
    const double cost = claims[c].cost;
    // At level u of sorted position k: the others below k satisfied, the rest (and c) at u.
    const auto wire_at = [&](std::size_t k) {
      const double a = before[k] - (pc < k ? demand[c] : 0.0);
      const double b = after[k] + (pc < k ? cost : 0.0);
      return std::make_pair(a, b);
    };
    std::size_t lo = 0, hi = n;  // the first k whose level fills the capacity
    while (lo < hi) {
      const std::size_t mid = (lo + hi) / 2;
      const auto [a, b] = wire_at(mid);
      if (a + u[order[mid]] * b >= capacity) hi = mid;
      else lo = mid + 1;
    }
    if (lo == n) {  // the others all satisfied: c takes the rest
      out[c] = std::max(0.0, capacity - (before[n] - demand[c]));
      continue;
    }
    const auto [a, b] = wire_at(lo);
    out[c] = std::max(0.0, (capacity - a) / b) * cost;
  }
}

// Strict priority: child c unbounded takes what the higher indices leave.
void each_unbounded_strict(const std::vector<Claim>& claims, double capacity, std::vector<double>& out) {
  thread_local std::vector<int> order;
  order.resize(claims.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return claims[a].index > claims[b].index; });
  double taken = 0;
  for (int i : order) {
    out[i] = std::max(0.0, capacity - taken);
    taken += claims[i].demand;
  }
}

}  // namespace

void divide_each_unbounded(const SharePolicy& policy, const std::vector<Claim>& claims, double capacity,
                           std::vector<double>& out) {
  zeroed(out, claims.size());
  if (claims.size() == 1) {
    out[0] = capacity;
    return;
  }
  if (policy.guard <= 0 && policy.kind == ShareKind::RoundRobin) return each_unbounded_round_robin(claims, capacity, out);
  if (policy.guard <= 0 && policy.kind == ShareKind::Strict) return each_unbounded_strict(claims, capacity, out);
  thread_local std::vector<Claim> one;  // weights and guards: each child's division made again
  thread_local std::vector<double> shares;
  one = claims;
  for (std::size_t i = 0; i < claims.size(); ++i) {
    one[i].demand = std::numeric_limits<double>::infinity();
    divide(policy, one, capacity, shares);
    out[i] = shares[i];
    one[i].demand = claims[i].demand;
  }
}

}  // namespace arbsim::flow
