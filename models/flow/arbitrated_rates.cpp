#include "models/flow/arbitrated_rates.h"
#include "models/flow/division_tree.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <tuple>

namespace arbsim::flow {

namespace {

// Shares settle within this relative change, or the iteration gives up after kMaxRounds; a
// share within kSatisfied of what its flow asked counts as all it asked.
constexpr double kSettled = 1e-9;
constexpr double kSatisfied = 1e-12;
constexpr int kMaxRounds = 64;

double relative_change(double o, double n) {
  if (o == n) return 0;
  if (o == kUnbounded || n == kUnbounded) return 1;
  return std::abs(n - o) / std::max(std::abs(n), std::abs(o));
}

}  // namespace

void check_flow(const FlowSpec& f, std::size_t edges) {
  if (!(f.cap > 0)) throw std::invalid_argument("arbitrated_rates: a flow's cap must be > 0");
  if (f.tc < 0 || f.tc > 7) throw std::invalid_argument("arbitrated_rates: TC out of range");
  for (const Hop& h : f.path) {
    if (h.edge < 0 || static_cast<std::size_t>(h.edge) >= edges)
      throw std::invalid_argument("arbitrated_rates: unknown edge " + std::to_string(h.edge));
    if (!(h.weight >= 0)) throw std::invalid_argument("arbitrated_rates: hop weight must be >= 0");
  }
}

class ArbitratedSolver::Impl {
 public:
  Impl(const std::vector<double>& capacity, const std::vector<EdgeArbitration>& arb)
      : cap_(capacity), arb_(arb), local_(capacity.size(), -1), trees_(arb) {}

  const ArbitratedRates& solve(const std::vector<const FlowSpec*>& flows, const std::vector<char>* binds) {
    flows_ = &flows;
    binds_ = binds;
    index();
    start();
    iterate();
    if (!result_.converged) fall_back();
    for (int e : edges_) local_[e] = -1;
    return result_;
  }

 private:
  // A flow's hop on a local edge (its VC and requester slot there: the sort keys).
  struct Entry {
    int edge, vc, slot, flow, hop;
    double weight, tlp;
  };

  const FlowSpec& flow(int f) const { return *(*flows_)[f]; }
  bool binds(int edge) const { return !binds_ || (*binds_)[edge]; }

  int local(int e) {
    int& l = local_[e];
    if (l < 0) {
      l = static_cast<int>(edges_.size());
      edges_.push_back(e);
    }
    return l;
  }

  // Each local edge's entries, sorted by (VC, slot, flow), and its division tree; each
  // flow's entry per hop. Every hop is arbitrated, a read's MRds too: in the packet model
  // they are TLPs that win or lose turns like any other (`ahead` is flat max-min's).
  void index() {
    const int n = static_cast<int>(flows_->size());
    edges_.clear();
    entries_.clear();
    for (int f = 0; f < n; ++f)
      for (std::size_t h = 0; h < flow(f).path.size(); ++h) {
        const Hop& hop = flow(f).path[h];
        if (!(hop.weight > 0) || !binds(hop.edge)) continue;
        const int vc = arb_[hop.edge].tc_to_vc[flow(f).tc];
        entries_.push_back({local(hop.edge), vc, hop.slot, f, static_cast<int>(h), hop.weight, hop.tlp});
      }
    std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
      return std::tie(a.edge, a.vc, a.slot, a.flow) < std::tie(b.edge, b.vc, b.slot, b.flow);
    });
    leaves_.clear();
    for (const Entry& x : entries_) leaves_.push_back({x.flow, x.hop, x.weight, x.tlp});
    trees_.clear(*flows_);
    edge_start_.assign(edges_.size() + 1, static_cast<int>(entries_.size()));
    for (std::size_t i = entries_.size(); i-- > 0;) edge_start_[entries_[i].edge] = static_cast<int>(i);
    for (std::size_t le = 0; le < edges_.size(); ++le)  // tree le is local edge le's
      trees_.add(edges_[le], leaves_, edge_start_[le], edge_start_[le + 1] - edge_start_[le]);
    hop_entry_start_.assign(n + 1, 0);
    for (int f = 0; f < n; ++f) hop_entry_start_[f + 1] = hop_entry_start_[f] + static_cast<int>(flow(f).path.size());
    hop_entry_.assign(hop_entry_start_.back(), -1);
    entries_of_.assign(n, 0);
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      hop_entry_[hop_entry_start_[entries_[i].flow] + entries_[i].hop] = static_cast<int>(i);
      ++entries_of_[entries_[i].flow];
    }
  }

  // The starting point: unbounded demands, every edge to divide.
  void start() {
    const std::size_t n = flows_->size(), m = entries_.size();
    result_.rate.assign(n, kUnbounded);
    result_.held_start.assign(n + 1, 0);
    result_.held.clear();
    share_.assign(m, kUnbounded);
    bound_.assign(m, kUnbounded);
    demand_.assign(m, kUnbounded);
    next_share_.assign(m, 0.0);
    next_bound_.assign(m, 0.0);
    dirty_.assign(edges_.size(), 1);
  }

  void iterate() {
    double change = 1;
    int rounds = 0;
    while (rounds < kMaxRounds && change >= kSettled) {
      change = round();
      ++rounds;
    }
    update_rates();  // nothing in a round reads the rates
    result_.rounds = rounds;
    result_.converged = change < kSettled && !all_stopped();
  }

  // One Jacobi round: demands from the last round's bounds, then each edge whose inputs
  // (its entries' demands) changed divides anew (an edge whose inputs
  // did not would divide as before: skipping it gives the same round). Returns the
  // largest relative change of a share or a bound.
  double round() {
    least_bounds();
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      const double d = demand(static_cast<int>(i));
      if (d != demand_[i]) {
        demand_[i] = d;
        dirty_[entries_[i].edge] = 1;
      }
    }
    for (std::size_t le = 0; le < edges_.size(); ++le)
      if (dirty_[le]) divide_edge(static_cast<int>(le));
    double change = 0;
    for (std::size_t le = 0; le < edges_.size(); ++le) {
      if (!dirty_[le]) continue;
      dirty_[le] = 0;
      for (int i = edge_start_[le]; i < edge_start_[le + 1]; ++i) {
        change = std::max(change, relative_change(share_[i], next_share_[i]));
        change = std::max(change, relative_change(bound_[i], next_bound_[i]));
        share_[i] = next_share_[i];
        bound_[i] = next_bound_[i];
      }
    }
    return change;
  }

  // Each flow's least bound (and which entry holds it) and its second least, from the last
  // round's bounds: an entry's demand is the least of the others', once per round.
  void least_bounds() {
    least_.assign(flows_->size(), {kUnbounded, kUnbounded, -1});
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      Least& l = least_[entries_[i].flow];
      if (bound_[i] < l.first) {
        l.second = l.first;
        l.first = bound_[i];
        l.at = static_cast<int>(i);
      } else {
        l.second = std::min(l.second, bound_[i]);
      }
    }
  }

  // What entry i may ask at its edge: its flow's least bound elsewhere, or its cap.
  double demand(int i) const {
    const Least& l = least_[entries_[i].flow];
    return std::min(flow(entries_[i].flow).cap, l.at == i ? l.second : l.first);
  }

  // Edge le's shares (next_share_) from this round's demands, and the bounds they set on
  // their flows' other edges (next_bound_): what an entry could take there if it asked
  // without bound, where it got all it asked (its demand did not bind); its share where it
  // got less. Passing its share instead would echo its demand back and forth between two
  // edges.
  void divide_edge(int le) {
    trees_.divide(le, cap_[edges_[le]], demand_, next_share_);
    for (int i = edge_start_[le]; i < edge_start_[le + 1]; ++i) {
      const bool satisfied = next_share_[i] >= demand_[i] * (1 - kSatisfied);
      next_bound_[i] = satisfied && shares_elsewhere(i) ? trees_.could_take(le, i) : next_share_[i];
    }
  }

  // Whether entry i's flow has another entry (only then is i's bound read).
  bool shares_elsewhere(int i) const { return entries_of_[entries_[i].flow] > 1; }

  // A flow's rate is its least share (or its cap). It is held at each edge where it would
  // get no more asking without bound: its bound there (its could-take where it got all it
  // asked, its share where it got less) is its rate; not where its share merely echoes a
  // demand from elsewhere.
  void update_rates() {
    result_.held.clear();
    for (std::size_t f = 0; f < flows_->size(); ++f) {
      const int from = hop_entry_start_[f], to = hop_entry_start_[f + 1];
      double r = flow(f).cap;
      for (int k = from; k < to; ++k)
        if (const int i = hop_entry_[k]; i >= 0) r = std::min(r, share_[i]);
      result_.rate[f] = r;
      result_.held_start[f] = static_cast<int>(result_.held.size());
      if (r >= flow(f).cap * (1 - kSatisfied)) continue;
      for (int k = from; k < to; ++k)  // (a flow with one entry is held there: its bound is its share)
        if (const int i = hop_entry_[k]; i >= 0 && bound_[i] <= r * (1 + kSatisfied))
          result_.held.push_back(flow(f).path[k - from].edge);
    }
    result_.held_start[flows_->size()] = static_cast<int>(result_.held.size());
  }

  // Every flow at rate 0: nothing would ever move (priorities that hold each other back).
  bool all_stopped() const {
    return !result_.rate.empty() &&
           std::all_of(result_.rate.begin(), result_.rate.end(), [](double r) { return r == 0; });
  }

  void fall_back() {
    result_.rate = max_min_rates(cap_, *flows_, binds_);
    result_.held_start.assign(flows_->size() + 1, 0);
    result_.held.clear();
  }

  const std::vector<double>& cap_;
  const std::vector<EdgeArbitration>& arb_;
  const std::vector<const FlowSpec*>* flows_ = nullptr;
  const std::vector<char>* binds_ = nullptr;
  std::vector<int> local_;  // [global edge] its local index in this solve, -1
  std::vector<int> edges_;  // [local edge] global edge
  std::vector<Entry> entries_;
  std::vector<DivisionTrees::Leaf> leaves_;  // [entry] as the trees take it
  DivisionTrees trees_;
  std::vector<int> edge_start_;  // [local edge] its first entry (+ an end)
  std::vector<int> hop_entry_start_, hop_entry_;  // [flow's first + hop] its entry there, -1
  std::vector<int> entries_of_;                   // [flow] how many entries it has
  struct Least {
    double first, second;
    int at;  // the entry holding `first`
  };
  std::vector<Least> least_;  // [flow] this round's least bounds
  // [entry]: share, bound (its could-take where it got all it asked), demand, and this
  // round's share and bound.
  std::vector<double> share_, bound_, demand_, next_share_, next_bound_;
  std::vector<char> dirty_;                  // [local edge] divides this round
  ArbitratedRates result_;
};

ArbitratedSolver::ArbitratedSolver(const std::vector<double>& capacity, const std::vector<EdgeArbitration>& arb)
    : impl_(std::make_unique<Impl>(capacity, arb)) {}
ArbitratedSolver::~ArbitratedSolver() = default;

const ArbitratedRates& ArbitratedSolver::solve(const std::vector<const FlowSpec*>& flows,
                                               const std::vector<char>* binds) {
  return impl_->solve(flows, binds);
}

ArbitratedRates arbitrated_rates(const std::vector<double>& capacity, const std::vector<EdgeArbitration>& arb,
                                 const std::vector<FlowSpec>& flows) {
  if (arb.size() != capacity.size()) throw std::invalid_argument("arbitrated_rates: one arbitration per edge needed");
  for (double c : capacity)
    if (!(c > 0)) throw std::invalid_argument("arbitrated_rates: edge capacity must be > 0");
  std::vector<const FlowSpec*> view;
  for (const FlowSpec& f : flows) {
    check_flow(f, capacity.size());
    view.push_back(&f);
  }
  ArbitratedSolver s(capacity, arb);
  return s.solve(view, nullptr);
}

}  // namespace arbsim::flow
