#include "models/flow/arbitrated_rates.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <tuple>

namespace arbsim::flow {

namespace {

// Shares settle within this relative change, or the iteration gives up after kMaxRounds; a
// share within kSatisfied of what its flow asked counts as all it asked.
constexpr double kSettled = 1e-12;
constexpr double kSatisfied = 1e-12;
constexpr int kMaxRounds = 64;

void check(const std::vector<double>& capacity, const std::vector<EdgeArbitration>& arb,
           const std::vector<FlowSpec>& flows) {
  if (arb.size() != capacity.size())
    throw std::invalid_argument("arbitrated_rates: one arbitration per edge needed");
  for (double c : capacity)
    if (!(c > 0)) throw std::invalid_argument("arbitrated_rates: edge capacity must be > 0");
  for (const FlowSpec& f : flows) {
    if (!(f.cap > 0)) throw std::invalid_argument("arbitrated_rates: a flow's cap must be > 0");
    if (f.tc < 0 || f.tc > 7) throw std::invalid_argument("arbitrated_rates: TC out of range");
    for (const Hop& h : f.path) {
      if (h.edge < 0 || h.edge >= static_cast<int>(capacity.size()))
        throw std::invalid_argument("arbitrated_rates: unknown edge " + std::to_string(h.edge));
      if (!(h.weight >= 0)) throw std::invalid_argument("arbitrated_rates: hop weight must be >= 0");
    }
  }
}

struct Entry {  // a flow's fair hop
  int flow, hop;
};
struct Place {  // where an entry sits: at_edge_[edge][k]
  int edge, k;
};
struct Member {  // a flow behind one requester: its hop there, its demand (payload) and cost
  int flow, hop;
  double demand, cost;
};

class Solver {
 public:
  Solver(const std::vector<double>& capacity, const std::vector<EdgeArbitration>& arb,
         const std::vector<FlowSpec>& flows)
      : cap_(capacity), arb_(arb), flows_(flows), at_edge_(capacity.size()), share_of_(flows.size()) {
    index_entries();
  }

  ArbitratedRates solve() {
    ArbitratedRates r;
    rate_.assign(flows_.size(), kUnbounded);
    double change = 1;
    for (r.rounds = 1; r.rounds <= kMaxRounds && change >= kSettled; ++r.rounds) {
      change = round();
      update_rates();
    }
    r.rounds = std::min(r.rounds - 1, kMaxRounds);
    r.converged = change < kSettled && !all_stopped();
    r.rate = rate_;
    r.bottleneck = bottleneck_;
    return r;
  }

 private:
  // Each edge's fair entries, sorted by (VC, slot, flow); each flow's entries.
  void index_entries() {
    for (std::size_t f = 0; f < flows_.size(); ++f)
      for (std::size_t h = 0; h < flows_[f].path.size(); ++h) {
        const Hop& hop = flows_[f].path[h];
        if (hop.ahead || !(hop.weight > 0)) continue;
        at_edge_[static_cast<std::size_t>(hop.edge)].push_back({static_cast<int>(f), static_cast<int>(h)});
      }
    for (std::size_t e = 0; e < at_edge_.size(); ++e) {
      auto key = [&](const Entry& x) {
        const FlowSpec& f = flows_[static_cast<std::size_t>(x.flow)];
        return std::make_tuple(vc(e, f), f.path[static_cast<std::size_t>(x.hop)].slot, x.flow);
      };
      std::sort(at_edge_[e].begin(), at_edge_[e].end(), [&](const Entry& a, const Entry& b) { return key(a) < key(b); });
      for (std::size_t k = 0; k < at_edge_[e].size(); ++k)
        share_of_[static_cast<std::size_t>(at_edge_[e][k].flow)].push_back({static_cast<int>(e), static_cast<int>(k)});
    }
    for (auto* v : {&share_, &bound_, &demand_}) {
      v->resize(at_edge_.size());
      for (std::size_t e = 0; e < at_edge_.size(); ++e) (*v)[e].assign(at_edge_[e].size(), kUnbounded);
    }
  }

  static double at(const std::vector<std::vector<double>>& v, const Place& p) {
    return v[static_cast<std::size_t>(p.edge)][static_cast<std::size_t>(p.k)];
  }
  int vc(std::size_t e, const FlowSpec& f) const { return arb_[e].tc_to_vc[static_cast<std::size_t>(f.tc)]; }

  // What edge e's entry k (of flow f) may ask there: f's least share elsewhere, or its cap.
  double demand(int f, int e, int k) const {
    double d = flows_[static_cast<std::size_t>(f)].cap;
    for (const Place& p : share_of_[static_cast<std::size_t>(f)])
      if (p.edge != e || p.k != k) d = std::min(d, at(bound_, p));
    return d;
  }

  // The capacity left once the ahead hops have taken theirs at the current rates; never
  // below a millionth of the edge (as max_min_rates()).
  void capacity_left() {
    left_ = cap_;
    for (std::size_t f = 0; f < flows_.size(); ++f)
      for (const Hop& h : flows_[f].path)
        if (h.ahead && rate_[f] != kUnbounded) left_[static_cast<std::size_t>(h.edge)] -= rate_[f] * h.weight;
    for (std::size_t e = 0; e < left_.size(); ++e) left_[e] = std::max(left_[e], cap_[e] * 1e-6);
  }

  // One Jacobi round over every edge; returns the largest relative change of a share.
  double round() {
    capacity_left();
    next_.resize(share_.size());
    for (std::size_t e = 0; e < at_edge_.size(); ++e) {
      for (std::size_t k = 0; k < at_edge_[e].size(); ++k)
        demand_[e][k] = demand(at_edge_[e][k].flow, static_cast<int>(e), static_cast<int>(k));
      rebuild_users(e);
      share_edge(arb_[e], left_[e], users_, next_[e], within(e));
    }
    double change = 0;
    for (std::size_t e = 0; e < share_.size(); ++e) {
      rebuild_users(e);
      for (std::size_t k = 0; k < share_[e].size(); ++k) {
        change = std::max(change, relative_change(share_[e][k], next_[e][k]));
        share_[e][k] = next_[e][k];
        const double b = next_[e][k] >= demand_[e][k] * (1 - kSatisfied) ? could_take(e, k) : next_[e][k];
        change = std::max(change, relative_change(bound_[e][k], b));
        bound_[e][k] = b;
      }
    }
    return change;
  }

  // Edge e's entries as share_edge() takes them, with this round's demands.
  void rebuild_users(std::size_t e) {
    users_.clear();
    for (std::size_t k = 0; k < at_edge_[e].size(); ++k) {
      const Entry& x = at_edge_[e][k];
      const FlowSpec& f = flows_[static_cast<std::size_t>(x.flow)];
      const Hop& h = f.path[static_cast<std::size_t>(x.hop)];
      users_.push_back({vc(e, f), h.slot, h.weight, demand_[e][k]});
    }
  }

  // Edge e's users (users_, in at_edge_[e] order) behind one requester split its turn as
  // the egress before them sent them (edge_share.h, SlotSplit).
  SlotSplit within(std::size_t e) {
    return [this, e](std::size_t lo, std::size_t hi, double capacity, std::vector<double>& out) {
      std::vector<Member> m;
      for (std::size_t k = lo; k < hi; ++k)
        m.push_back({at_edge_[e][k].flow, at_edge_[e][k].hop, users_[k].demand, users_[k].cost});
      split_upstream(m, capacity, out);
    };
  }

  // Flows (at hop `hop` of their paths) that one requester's queue holds split its share
  // `capacity` (wire bytes per ns; out in wire bytes per ns, in m's order) in the mix the
  // egress before them sent them: that egress's arbitration, recursively while they still
  // arrived there together. Flows that start here (an engine's or a completer's) split it
  // round robin.
  void split_upstream(const std::vector<Member>& m, double capacity, std::vector<double>& out) {
    const auto prev = [&](const Member& x) -> const Hop& {
      return flows_[static_cast<std::size_t>(x.flow)].path[static_cast<std::size_t>(x.hop - 1)];
    };
    bool merged = true;
    for (const Member& x : m) merged = merged && x.hop > 0 && prev(x).edge == prev(m[0]).edge;
    if (!merged) {
      std::vector<Claim> c;
      for (const Member& x : m) c.push_back({0, x.demand * x.cost, x.cost});
      return divide(SharePolicy{}, c, capacity, out);
    }
    const std::size_t p = static_cast<std::size_t>(prev(m[0]).edge);
    std::vector<std::size_t> order(m.size());
    for (std::size_t i = 0; i < m.size(); ++i) order[i] = i;
    auto key = [&](std::size_t i) {
      return std::make_pair(vc(p, flows_[static_cast<std::size_t>(m[i].flow)]), prev(m[i]).slot);
    };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
    std::vector<EdgeUser> users;
    std::vector<Member> up;
    for (std::size_t i : order) {
      users.push_back({key(i).first, key(i).second, m[i].cost, m[i].demand});
      up.push_back({m[i].flow, m[i].hop - 1, m[i].demand, m[i].cost});
    }
    std::vector<double> rate;
    share_edge(arb_[p], capacity, users, rate, [&](std::size_t lo, std::size_t hi, double cap, std::vector<double>& o) {
      split_upstream(std::vector<Member>(up.begin() + static_cast<long>(lo), up.begin() + static_cast<long>(hi)), cap, o);
    });
    out.assign(m.size(), 0.0);
    for (std::size_t j = 0; j < order.size(); ++j) out[order[j]] = rate[j] * m[order[j]].cost;
  }

  // What entry k of edge e would get there if it asked without bound, the others asking
  // what they ask: the bound it sets on its flow's other edges. An entry that got less than
  // it asked gets the same (its demand did not bind); one that got all it asked may take
  // more where the others leave room. Passing its share instead would echo its demand back
  // and forth between two edges.
  double could_take(std::size_t e, std::size_t k) {
    users_[k].demand = kUnbounded;
    share_edge(arb_[e], left_[e], users_, scratch_, within(e));
    users_[k].demand = demand_[e][k];
    return scratch_[k];
  }

  static double relative_change(double o, double n) {
    if (o == n) return 0;
    if (o == kUnbounded || n == kUnbounded) return 1;
    return std::abs(n - o) / std::max(std::abs(n), std::abs(o));
  }

  // Every flow at rate 0: nothing would ever move (priorities that hold each other back).
  bool all_stopped() const {
    return !flows_.empty() && std::all_of(rate_.begin(), rate_.end(), [](double r) { return r == 0; });
  }

  // A flow's rate is its least share (or its cap); its bottleneck the edge where that share
  // held it back (it got less than it asked there), not one that merely passed it on.
  void update_rates() {
    bottleneck_.assign(flows_.size(), -1);
    for (std::size_t f = 0; f < flows_.size(); ++f) {
      double r = flows_[f].cap;
      for (const Place& p : share_of_[f]) r = std::min(r, at(share_, p));
      rate_[f] = r;
      for (const Place& p : share_of_[f])
        if (at(share_, p) <= r * (1 + kSatisfied) && at(share_, p) < at(demand_, p) * (1 - kSatisfied)) {
          bottleneck_[f] = p.edge;
          break;
        }
    }
  }

  const std::vector<double>& cap_;
  const std::vector<EdgeArbitration>& arb_;
  const std::vector<FlowSpec>& flows_;
  std::vector<std::vector<Entry>> at_edge_;   // [edge] its fair entries
  std::vector<std::vector<Place>> share_of_;  // [flow] where its entries sit
  // [edge][k]: the entry's share, what it asked, and the bound it sets on its flow's other
  // edges (its share, or unbounded where it got all it asked).
  std::vector<std::vector<double>> share_, demand_, bound_, next_;
  std::vector<double> rate_, left_;
  std::vector<int> bottleneck_;
  std::vector<EdgeUser> users_;
  std::vector<double> scratch_;
};

}  // namespace

ArbitratedRates arbitrated_rates(const std::vector<double>& capacity, const std::vector<EdgeArbitration>& arb,
                                 const std::vector<FlowSpec>& flows) {
  check(capacity, arb, flows);
  ArbitratedRates r = Solver(capacity, arb, flows).solve();
  if (!r.converged) {
    r.rate = max_min_rates(capacity, flows);
    r.bottleneck.assign(flows.size(), -1);
  }
  return r;
}

}  // namespace arbsim::flow
