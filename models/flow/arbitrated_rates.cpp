#include "models/flow/arbitrated_rates.h"
#include "models/flow/division_tree.h"
#include <algorithm>
#include <array>
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
// Then up to kDampedRounds more, each moving a value kDamping of the way less than the
// division says (0.5 and 0.75 find the same points on the 200-seed survey).
constexpr int kDampedRounds = 192;
constexpr double kDamping = 0.5;
// Halvings of a link's capacity finding where a queue's held flows get what drains: to
// within 2^-50 of it.
constexpr int kProbes = 50;
// A queue's head waits (head_waits()) still hold it within this of the sum 1: held at the
// sum, the next round finds it again within the bisection's and the trees' rounding.
constexpr double kHeadSlack = 1e-6;

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
    settle();
    if (result_.converged && find_held_by_ones_held_before()) solve_without_those_holds(flows);
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
    result_.queued_window.assign(n, 0.0);
    share_.assign(m, kUnbounded);
    bound_.assign(m, kUnbounded);
    demand_.assign(m, kUnbounded);
    next_share_.assign(m, 0.0);
    next_bound_.assign(m, 0.0);
    dirty_.assign(edges_.size(), 1);
    queued_.assign(n, kUnbounded);
    queued_at_.assign(n, -1);
    head_held_.assign(n, 0);
    probe_demand_.assign(m, 0.0);
    probe_share_.assign(m, 0.0);
    queue_share_.assign(m, 0.0);
    class_demand_.assign(m, 0.0);
    window_.resize(m);
    for (std::size_t i = 0; i < m; ++i) window_[i] = hop_of(static_cast<int>(i)).window;
  }

  // The rates; then, where the point found has queues that three rules read otherwise, the
  // rates again from that point with those rules (`refined_`):
  // - a flow waiting behind another class in several queues has its window spread over them
  //   (spread_windows());
  // - in a FIFO backed up by a flow that a queue beyond holds, the FIFO's order, not the
  //   egress after it, decides what leaves with that flow (divided_there());
  // - a FIFO whose credits never run out divides by what each flow has waiting in it
  //   (divide_by_windows()).
  // Each changes what backs up. Applied in every round, the iteration found points the packet
  // model does not reach from empty queues (random seed 30452: a peer write backed up only
  // because the read spread behind it left it the turns, 31.7 % late; held-out seed 30351: no
  // point at all, and flat max-min's t0 38 % early). Where the second solve does not settle,
  // the first point stands.
  void settle() {
    refined_ = false;
    iterate();
    if (!result_.converged) return;
    const bool fifo = std::any_of(backs_.begin(), backs_.end(), [](const Back& b) { return b.holds && b.fifo_behind_queue; });
    if (!spread_windows() && !fifo && !windows_seen_) return;
    refined_ = true;
    iterate();
    if (result_.converged) return;
    refined_ = false;
    start();
    iterate();
  }

  void iterate() {
    double change = 1;
    int rounds = 0;
    while (rounds < kMaxRounds && change >= kSettled) {
      change = round();
      ++rounds;
    }
    const bool plain = change < kSettled;
    damping_ = kDamping;
    while (rounds < kMaxRounds + kDampedRounds && change >= kSettled) {
      change = round();
      ++rounds;
    }
    damping_ = 0;
    update_rates();  // nothing in a round reads the rates
    result_.rounds = rounds;
    result_.converged = change < kSettled && !all_stopped();
    result_.damped = result_.converged && !plain;
  }

  // One Jacobi round: demands from the last round's bounds, then each edge whose inputs
  // (its entries' demands) changed divides anew (an edge whose inputs
  // did not would divide as before: skipping it gives the same round). Returns the
  // largest relative change of a share or a bound.
  double round() {
    least_bounds();
    double change = back_ups();
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      const double d = demand(static_cast<int>(i));
      if (d != demand_[i]) {
        demand_[i] = d;
        dirty_[entries_[i].edge] = 1;
      }
    }
    for (std::size_t le = 0; le < edges_.size(); ++le)
      if (dirty_[le]) divide_edge(static_cast<int>(le));
    for (std::size_t le = 0; le < edges_.size(); ++le) {
      if (!dirty_[le]) continue;
      dirty_[le] = 0;
      for (int i = edge_start_[le]; i < edge_start_[le + 1]; ++i) {
        change = std::max(change, relative_change(share_[i], next_share_[i]));
        change = std::max(change, relative_change(bound_[i], next_bound_[i]));
        share_[i] = damped(share_[i], next_share_[i]);
        bound_[i] = damped(bound_[i], next_bound_[i]);
        // Damped, a share short of its division stays to be divided again.
        if (share_[i] != next_share_[i] || bound_[i] != next_bound_[i]) dirty_[le] = 1;
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
    const int f = entries_[i].flow;
    return std::min(queued_[f], asked(i));
  }
  // The same without the bound of the queues it waits in (what it would send into them).
  double asked(int i) const {
    const Least& l = least_[entries_[i].flow];
    return std::min(flow(entries_[i].flow).cap, l.at == i ? l.second : l.first);
  }

  // ---- Queues that back up -----------------------------------------------------------
  // An egress arbitrates without knowing what lies beyond it: a flow held back further on
  // keeps taking turns on the links before, and its TLPs wait in the receiver's queue
  // there (fidelity_watch.h). Where that queue is bounded (finite credits of the flow's
  // class: its TLPs hold them all) or shared by every egress (a FIFO ingress), the others in
  // it wait with them, and the queue takes in only as fast as it drains: each time room
  // frees, the sender's arbiter picks among those waiting, the held flow always among them.
  // So the link carries the queue's flows at the capacity C at which that arbitration gives
  // the held flow exactly what drains beyond (its rate): each other flow in the queue gets
  // no more than its share at C (docs/architecture.md, "Queues that back up"). The queue of
  // the link before then fills too where these credits are finite, and so on up the path.
  // A read's completions and requests fill a bounded queue only where its tag window holds
  // more than the queue's credits; in a FIFO its window waits ahead of the others whatever
  // the credits (the window's TLPs beyond the link before wait there: a FIFO ahead of an
  // x4 GPU holds a 4 MiB push to another GPU at the read's pace, 1557 us against the packet
  // model's 1710, where the fluid said 434 without it). (Where the credits are infinite and
  // the receiver has virtual output queues, a held write keeps its whole
  // turn on the link instead, its TLPs piling up beyond: not represented, the fidelity
  // watch names it.)
  struct Back {
    int edge, vc, cls, entry;  // the queue (cls -1: every class, a FIFO); the held flow's entry
    double drain;              // the held flow's rate beyond
    bool holds;                // the egress after it holds the flow back (not a queue further on)
    bool fifo_behind_queue;    // ... though only as a queue beyond it holds it, and this is a FIFO
    bool by_queue;             // the flow backs up here because a queue beyond holds it
  };
  // Whether the egress after back b's queue divides what leaves with its held flow: where a
  // queue beyond holds that flow and b's is a FIFO, the FIFO's order does instead (settle()).
  bool divided_there(const Back& b) const { return b.holds && !(refined_ && b.fifo_behind_queue); }

  // Each flow's bounds from the queues it waits in (queued_), from the last round's bounds;
  // returns their largest relative change.
  double back_ups() {
    backs_.clear();
    for (std::size_t f = 0; f < flows_->size(); ++f) find_backups(static_cast<int>(f));
    next_queued_.assign(flows_->size(), kUnbounded);
    next_queued_at_.assign(flows_->size(), -1);
    next_head_held_.assign(flows_->size(), 0);
    std::sort(backs_.begin(), backs_.end(), [](const Back& a, const Back& b) {
      return std::tie(a.edge, a.vc, a.cls, a.entry) < std::tie(b.edge, b.vc, b.cls, b.entry);
    });
    groups_.clear();
    windows_seen_ = false;
    for (std::size_t from = 0; from < backs_.size();) {
      std::size_t to = from + 1;
      while (to < backs_.size() && std::tie(backs_[to].edge, backs_[to].vc, backs_[to].cls) ==
                                       std::tie(backs_[from].edge, backs_[from].vc, backs_[from].cls))
        ++to;
      groups_.emplace_back(from, to);
      from = to;
    }
    for (const auto& [from, to] : groups_) bound_queue(from, to);
    double change = 0;
    for (std::size_t f = 0; f < flows_->size(); ++f) {
      change = std::max(change, relative_change(queued_[f], next_queued_[f]));
      queued_[f] = damped(queued_[f], next_queued_[f]);
      queued_at_[f] = next_queued_at_[f];
      head_held_[f] = next_head_held_[f];
    }
    return change;
  }

  // Where flow f is held back at an egress (its bound there is its rate) but not at the link
  // before it (there it could take more): its TLPs queue in that link's receiver. A flow
  // stopped (rate 0) fills the queue before the last egress that stops its data even where a
  // link before stops it too: a TLP that reaches that queue never leaves it, and the link
  // before cannot keep every one out (any turn its winner leaves passes one, and the winner's
  // own TLPs stop behind the stopped ones where the queue is shared), so the point with the
  // queue full is the one the packet model stays in. Survey seed 30162: a read's completions
  // stopped at sw0 -> gpu2 by a strict port arbiter filled sw0's FIFO from rc0, and a push
  // that came after waited behind them until the writes that stopped them ended (370 us);
  // the fluid had the read stopped at rc0 -> sw0 as well, by the push, and no queue backed up:
  // the push 43 % early (`ArbitratedRates.AStoppedFlowFillsTheQueueBeforeItsLastStop`).
  void find_backups(int f) {
    const double x = least_[f].first;
    if (queued_[f] < std::min(x, flow(f).cap) * (1 - kSatisfied)) {
      if (head_held_[f] && head_backup(f)) return;
      queued_backup(f);
      return;
    }
    if (!(x < flow(f).cap * (1 - kSatisfied))) return;
    const double held = x * (1 + kSatisfied);
    const std::vector<Hop>& path = flow(f).path;
    const int base = hop_entry_start_[f];
    std::size_t last_stop = 0;  // 0: none the loop has not backed up before
    bool data = true;           // a read's request hops follow its data hops
    for (std::size_t h = 1; h < path.size(); ++h) {
      const int i = hop_entry_[base + h], before = hop_entry_[base + h - 1];
      data = data && !path[h].starts;
      if (data && x <= 0 && i >= 0 && bound_[i] <= held) last_stop = h;
      if (path[h].starts || i < 0 || bound_[i] > held || (before >= 0 && bound_[before] <= held)) continue;
      back_up(f, h, x);
      last_stop = 0;
    }
    if (last_stop > 0) back_up(f, last_stop, x);
  }

  // Flow f held by a queue it waits in (queued_: in the receiver of edge queued_at_), not by
  // an egress: where its TLPs fill that edge's credits, they queue before it too, at its
  // rate in that queue (survey seed 30165: a GPU's peer writes stopped behind a push in a
  // switch's FIFO back up through the root complex into the switch above, where the GPU's
  // read requests wait behind them; taken at the writes' share of the edge before the queue,
  // the read ran 13x faster than in the packet model). Whether they fill it is judged by what
  // of its window waits there (spread over the queues it waits in: spread_windows()).
  void queued_backup(int f) {
    const std::vector<Hop>& path = flow(f).path;
    for (std::size_t h = 1; h < path.size(); ++h) {
      if (path[h].edge != queued_at_[f] || path[h].starts) continue;
      const int i = hop_entry_[hop_entry_start_[f] + static_cast<int>(h)];
      if (fills(path[h], i >= 0 ? window_[i] : path[h].window)) back_up(f, h, queued_[f], room(path[h]), true);
      return;
    }
  }

  // ---- One head for several egresses ------------------------------------------------
  // A FIFO of windows (divide_by_windows()) whose flows leave by different egresses has one
  // head: a TLP there waits for its egress's grant, and the next one is presented only then
  // (models/pcie/egress_port.cpp, transmit()). While the head is another egress's, the held
  // flow's egress sees nothing of it and gives its turns to the flows beside it there. So
  // the queue passes no more than sum over its flows of share / (what the flow could take at
  // its egress) = 1: its shares, by windows, fall in proportion until they meet it, and the
  // held flow is held by the queue at its share (head_held_). Survey seed 30062: rc0's
  // completions for two GPUs' reads share sw1's FIFO; gpu0's (t2) were held at sw1 -> gpu0 by
  // VC round robin against gpu1's peer writes (t5). In the packet model, while gpu1's read
  // (t4) ran, t2 took 1,847-2,048 CplDs per 400 us against t5's 3,173-3,383 MWrs (37:63), and
  // 2,614 each once t4 had ended; t2 and t4 moved 1.2 GB/s each. The fluid gave t2 and t5
  // 1.67 GB/s each, and t4 as much: t4 20.5 % early, t5 15.2 % late. Now 1.12 GB/s for t2 and
  // t4 (`ArbitratedRates.OneFifoHeadForTwoEgressesGivesTheHeldFlowsTurnsAway`).
  // Where the held flow is alone at its egress it loses nothing while the head is elsewhere:
  // the link is still sending its last TLP when the next comes to the head (random seed
  // 30711, counted: its sharer's read went from within 3 % to 22.5 % late;
  // `ArbitratedRates.OneFifoHeadCostsAHeldFlowAloneAtItsEgressNothing`).
  void head_waits(int le, std::size_t from, std::size_t to) {
    double busy = 0;
    int outlet = -1;
    bool several = false;
    for (int i = edge_start_[le]; i < edge_start_[le + 1]; ++i) {
      if (!(probe_demand_[i] > 0) || !(queue_share_[i] > 0)) continue;
      const int n = next_entry(i);
      if (n < 0) return;
      const double r = trees_.could_take(entries_[n].edge, n);
      if (!(r < kUnbounded) || !(r > 0)) return;
      several = several || (outlet >= 0 && entries_[n].edge != outlet);
      outlet = entries_[n].edge;
      busy += queue_share_[i] / r;
    }
    if (!several || busy < 1 - kHeadSlack) return;
    for (std::size_t k = from; k < to; ++k)
      if (alone_at(next_entry(backs_[k].entry))) return;
    const double scale = std::max(1.0, busy);
    for (int i = edge_start_[le]; i < edge_start_[le + 1]; ++i) queue_share_[i] /= scale;
    for (std::size_t k = from; k < to; ++k) {
      const int i = backs_[k].entry, f = entries_[i].flow;
      next_head_held_[f] = 1;
      if (queue_share_[i] < next_queued_[f]) {
        next_queued_[f] = queue_share_[i];
        next_queued_at_[f] = edges_[le];
      }
    }
  }

  // Whether entry n is the only one asking at its edge.
  bool alone_at(int n) const {
    const int le = entries_[n].edge;
    for (int j = edge_start_[le]; j < edge_start_[le + 1]; ++j)
      if (j != n && demand_[j] > 0) return false;
    return true;
  }

  // Flow f, held by the queue whose head waits held it (head_waits()), stays that queue's
  // held flow at that rate; false where it no longer waits there.
  bool head_backup(int f) {
    const std::vector<Hop>& path = flow(f).path;
    for (std::size_t j = 0; j + 1 < path.size(); ++j) {
      if (path[j].edge != queued_at_[f] || path[j + 1].starts) continue;
      const int i = hop_entry_[hop_entry_start_[f] + static_cast<int>(j)];
      if (i < 0) return false;
      backs_.push_back({entries_[i].edge, entries_[i].vc, -1, i, queued_[f], true, false, false});
      return true;
    }
    return false;
  }

  // Entry i's flow's entry on the edge it takes after i (next_edge(); -1: none, or that
  // edge is not arbitrated here).
  int next_entry(int i) const {
    return next_edge(i) < 0 ? -1 : hop_entry_[hop_entry_start_[entries_[i].flow] + entries_[i].hop + 1];
  }

  // The TLPs of hop's class its edge's receiver queue holds at most (infinite: unbounded).
  double room(const Hop& hop) const {
    return arb_[static_cast<std::size_t>(hop.edge)].buffered[static_cast<std::size_t>(hop.cls)];
  }
  // Whether `in_flight` TLPs of hop's flow can fill that queue: it can have it all waiting.
  bool fills(const Hop& hop, double in_flight) const {
    const double r = room(hop);
    return r < EdgeArbitration::kNoLimit && in_flight >= r;
  }

  // The queues flow f fills, held back at hop h of its path with rate x: the receiver's
  // before it, and up the path while the credits there are finite and its window (what it
  // can have in flight: a read's tags) has TLPs left beyond those the queues after it hold
  // (`queued`: already so many, in a queue it waits in).
  void back_up(int f, std::size_t h, double x, double queued = 0, bool by_queue = false) {
    const std::vector<Hop>& path = flow(f).path;
    for (std::size_t j = h; j-- > 0;) {
      const Hop& hop = path[j];
      const EdgeArbitration& a = arb_[static_cast<std::size_t>(hop.edge)];
      const double left = hop.window - queued;
      if (!(left > 0)) break;  // its whole window waits further on
      const bool full = fills(hop, left);
      queued += room(hop);  // (past a queue it cannot fill the loop ends)
      if (const int i = hop_entry_[hop_entry_start_[f] + static_cast<int>(j)]; i >= 0) {
        if (full || a.fifo_ingress || (j + 1 == h && fills_its_order(i)))
          backs_.push_back({entries_[i].edge, entries_[i].vc, a.fifo_ingress ? -1 : hop.cls, i, x, j + 1 == h,
                            by_queue && a.fifo_ingress, by_queue});
      }
      if (!full || hop.starts) break;
    }
  }

  // Whether another flow in entry i's virtual output queue (its VC here, its egress next) that
  // the egress carries in another VC fills the receiver's credits of its class: its TLPs then
  // wait behind i's at the queue's head, which the egress's VC arbiter does not reorder, so
  // the queue backs up though i's own TLPs could not fill it (a read's few MRds, say).
  bool fills_its_order(int i) const {
    const int le = entries_[i].edge, out = next_edge(i);
    for (int k = edge_start_[le]; k < edge_start_[le + 1]; ++k) {
      if (k == i || entries_[k].vc != entries_[i].vc || next_edge(k) != out || next_vc(k) == next_vc(i)) continue;
      if (fills(hop_of(k), hop_of(k).window)) return true;
    }
    return false;
  }

  // Whether entry i waits in the queue of backs_[from, to) (one edge, VC, class). Behind
  // virtual output queues the queue of a class that backs up is that of its flows' egress,
  // and a TLP of another class for that egress waits in it too: the queue to an egress is
  // one FIFO of every class (models/pcie/switch.cpp, queue_for()).
  bool in_queue(int i, std::size_t from, std::size_t to) const {
    const int cls = backs_[from].cls;
    if (entries_[i].vc != backs_[from].vc) return false;
    if (cls < 0 || hop_of(i).cls == cls) return true;
    for (std::size_t k = from; k < to; ++k)
      if (next_edge(backs_[k].entry) == next_edge(i)) return true;
    return false;
  }

  // A flow that waits behind held flows of another class in several queues on its way (a
  // read's MRds behind writes backed up switch after switch) has each of its TLPs pass
  // every one of them, so its window is spread over them as the time it spends in each
  // (Little's law): in proportion to the held TLPs ahead of it there over the pace they
  // drain at. Counting the whole window in each, the fluid gave a read behind one GPU's
  // peer writes, backed up through three queues, one MRd per held MWr in each, which its
  // 256 tags cannot fill (survey seed 30117: 2.92 GB/s against the packet model's 1.91).
  // Each credit class on its own: a read's data are not where its MRds wait, and spread
  // with them, a read whose MRds a link held had its data given 18 of its 256 in a FIFO
  // they pass (random seed 30798: a sharer 2.7 % late went 9.8 % early). A queue the flow
  // backs up only because a queue beyond holds it (queued_backup()) is one it waits in too,
  // and each queue counts once, whichever of its classes' groups finds it: left out, a read's
  // requests behind a GPU's peer writes backed up through a switch's FIFO, a switch's virtual
  // output queues and the root complex's FIFO had its 256 tags over two of the three (one MRd
  // per MWr), and ran 1.5x the packet model's pace (survey seed 30180; by hand, the test
  // `FlowArbitration.AReadBackedUpBehindWritesSpreadsItsWindowOverEveryQueue`). So does the
  // queue a read held at the egress after it backs up, where another class's flows wait in
  // it too: its TLPs wait there behind theirs as in the queues before (survey seed 30017: a
  // read's completions held below sw1 and a GPU's peer writes shared sw0's and sw1's FIFOs,
  // and the packet model passed them one for one, 658 CplDs to 697 MWrs per 50 us; with the
  // read's 256 tags counted in sw1's FIFO alone against the writes' 128 posted credits, the
  // fluid passed one MWr per two CplDs and ended the writes 19.3 % late, now 8.1 %;
  // `ArbitratedRates.AHeldReadsWindowIsSpreadOverItsOwnFifoAndTheOnesBefore`). Returns
  // whether any window was spread.
  bool spread_windows() {
    waits_.clear();
    time_.assign(3 * flows_->size(), 0.0);
    count_.assign(3 * flows_->size(), 0);
    for (const auto& [from, to] : groups_) {
      const int le = backs_[from].edge;
      for (int i = edge_start_[le]; i < edge_start_[le + 1]; ++i) {
        if (!behind_another_class(i, from, to)) continue;
        const double t = time_in_queue(from, to, hop_of(i).cls);
        if (!(t > 0) || !std::isfinite(t)) continue;
        if (std::any_of(waits_.begin(), waits_.end(), [&](const auto& w) { return w.first == i; })) continue;  // (counted)
        waits_.push_back({i, t});
        time_[flow_class(i)] += t;
        ++count_[flow_class(i)];
      }
    }
    bool any = false;
    for (const auto& [i, t] : waits_)
      if (count_[flow_class(i)] > 1 && std::isfinite(hop_of(i).window)) {
        window_[i] = hop_of(i).window * t / time_[flow_class(i)];
        any = true;
      }
    return any;
  }

  // Entry i's flow and credit class, as one index.
  std::size_t flow_class(int i) const {
    return 3 * static_cast<std::size_t>(entries_[i].flow) + static_cast<std::size_t>(hop_of(i).cls);
  }

  // How long a TLP of class `cls` waits in the queue of backs_[from, to) (ns): the other
  // classes' TLPs there (each class at most what its credits hold) over the pace they leave
  // at (the first solve's rates; the TLPs of its own class pass with it). In a FIFO that one
  // flow backs up, another flow's writes that wait in it leave with it and shorten the wait.
  double time_in_queue(std::size_t from, std::size_t to, int cls) const {
    std::array<double, 3> ahead{};
    double pace = 0;
    const int le = backs_[from].edge;
    for (int j = edge_start_[le]; j < edge_start_[le + 1]; ++j) {
      if (hop_of(j).cls == cls || !in_queue(j, from, to)) continue;
      ahead[static_cast<std::size_t>(hop_of(j).cls)] += hop_of(j).window;
      pace += result_.rate[static_cast<std::size_t>(entries_[j].flow)] / entries_[j].tlp;  // (TLPs per ns: Hop::tlp)
    }
    const EdgeArbitration& a = arb_[static_cast<std::size_t>(edges_[le])];
    double held = 0;
    for (std::size_t c = 0; c < 3; ++c)
      if (ahead[c] > 0) held += a.class_weight(c, ahead[c]);
    return held / pace;
  }

  // Whether entry i waits in that queue behind its held flows, none of them its own class
  // (its own back, if it has one there, aside: its window waits there too).
  bool behind_another_class(int i, std::size_t from, std::size_t to) const {
    for (std::size_t k = from; k < to; ++k)
      if (backs_[k].entry != i && hop_of(backs_[k].entry).cls == hop_of(i).cls) return false;
    return in_queue(i, from, to);
  }

  // The queue of backs_[from, to) (one edge, VC, class): the capacity C at which its held
  // flows, asking without bound, get no more than drains (found by bisection: a share grows
  // with the capacity), and each flow's share in it there.
  void bound_queue(std::size_t from, std::size_t to) {
    const int le = backs_[from].edge;
    const int b = edge_start_[le], e = edge_start_[le + 1];
    for (int i = b; i < e; ++i) probe_demand_[i] = in_queue(i, from, to) ? asked(i) : 0.0;
    for (std::size_t k = from; k < to; ++k) probe_demand_[backs_[k].entry] = kUnbounded;
    const auto with_held = [&](int i) {
      for (std::size_t k = from; k < to; ++k)
        if (divided_there(backs_[k]) && backs_[k].entry != i && next_edge(backs_[k].entry) == next_edge(i) &&
            next_vc(backs_[k].entry) == next_vc(i))
          return true;
      return false;
    };
    // Bisect only where C could bound someone: a lone held flow gets exactly what drains at
    // C, and those that leave with a held flow are not bounded here (below). (On a forest of
    // 16-GPU root complexes every queue that backs up is such: without this, 3,227 probe
    // divisions per rate computation against 141 edge divisions.)
    bool any = to - from > 1;
    for (int i = b; i < e && !any; ++i)
      any = probe_demand_[i] > 0 && i != backs_[from].entry && !with_held(i);
    if (!any) return;
    const bool by_windows = fifo_of_windows(le, from, to);
    windows_seen_ = windows_seen_ || by_windows;
    const bool guards = !guards_reset(le, from);
    const auto drains = [&](double c) {
      divide_queue(le, c, by_windows && refined_, guards);
      for (std::size_t k = from; k < to; ++k)
        if (queue_share_[backs_[k].entry] > backs_[k].drain * (1 + kSatisfied)) return false;
      return true;
    };
    double lo = 0, hi = cap_[edges_[le]];
    if (drains(hi)) return;  // the link feeds the queue no faster than it drains: no backlog
    for (int k = 0; k < kProbes; ++k) {
      const double mid = (lo + hi) / 2;
      (drains(mid) ? lo : hi) = mid;
    }
    drains(lo);
    if (by_windows && refined_) head_waits(le, from, to);
    // A held flow's ask is its rate beyond: bound only where the queue gives it less (the
    // one that sets C gets what drains, to the bisection's precision).
    // One that leaves by the egress holding a flow back, in the same VC there, is divided
    // there with it, as that egress's tree has the queue (division_tree.h): not bounded here.
    // One in another VC there is: the queue leaves in its own order, not as that egress's VC
    // arbiter divides (an MRd of a VC that loses under strict priority holds the writes of
    // the winning VC behind it; docs/architecture.md). (Where the queue waits for credits
    // further on, those leaving the same way wait with it.)
    for (std::size_t k = from; k < to; ++k) probe_demand_[backs_[k].entry] = backs_[k].drain;
    for (int i = b; i < e; ++i)
      if (probe_demand_[i] > 0 && queue_share_[i] < probe_demand_[i] * (1 - kSettled) && !with_held(i)) {
        if (queue_share_[i] < next_queued_[entries_[i].flow]) {
          next_queued_[entries_[i].flow] = queue_share_[i];
          next_queued_at_[entries_[i].flow] = edges_[le];
        }
      }
  }

  // The edge entry i's flow takes after it (-1: its path, or its requests', ends there).
  int next_edge(int i) const {
    const std::vector<Hop>& path = flow(entries_[i].flow).path;
    const std::size_t h = static_cast<std::size_t>(entries_[i].hop) + 1;
    return h < path.size() && !path[h].starts ? path[h].edge : -1;
  }

  // Entry i's flow's VC on the edge it takes after it (-1 where none).
  int next_vc(int i) const {
    const int e = next_edge(i);
    return e < 0 ? -1 : arb_[static_cast<std::size_t>(e)].tc_to_vc[flow(entries_[i].flow).tc];
  }

  const Hop& hop_of(int i) const { return flow(entries_[i].flow).path[static_cast<std::size_t>(entries_[i].hop)]; }

  // Whether the queue of backs_[from, to), asked as probe_demand_ has it, is one
  // divide_by_windows() divides: a FIFO of one credit class whose credits never run out,
  // one held flow in it, and every flow in it with a window.
  bool fifo_of_windows(int le, std::size_t from, std::size_t to) const {
    const EdgeArbitration& a = arb_[static_cast<std::size_t>(edges_[le])];
    if (to - from != 1 || !a.fifo_ingress) return false;
    int cls = -1;
    double held = 0;
    for (int i = edge_start_[le]; i < edge_start_[le + 1]; ++i) {
      if (!(probe_demand_[i] > 0)) continue;
      if (cls >= 0 && hop_of(i).cls != cls) return false;
      cls = hop_of(i).cls;
      held += window_[i];
    }
    return cls >= 0 && a.buffered[static_cast<std::size_t>(cls)] == EdgeArbitration::kNoLimit && std::isfinite(held);
  }

  // Whether the starvation guards at local edge le never fire for the queue of backs_[from]
  // (asked as probe_demand_ has it). A guard counts the consecutive arbitrations a requester
  // asks in, from 0 again at one it does not (starvation_guard.cpp); behind a queue held full
  // of credits of one class its flows ask only in the cycle a credit returns, and where the
  // link also carries flows outside the queue, one of their grants comes between any two
  // returns. So the sender's arbiter alone gives out the credits. Survey seed 30119: gpu1's
  // peer writes needed sw0's posted credits, which the root complex's pushes held full; the
  // guard of 7 at rc0 -> sw0 gave them one turn in 8 in the fluid, where the packet model,
  // with host memory's completions between, sent none for 330 us and the writes stopped the
  // read requests behind them in rc0's FIFO (the read 13.0 % early;
  // `ArbitratedRates.AGuardDoesNotReachAFlowThatAsksOnlyBetweenOtherGrants`).
  bool guards_reset(int le, std::size_t from) const {
    if (backs_[from].cls < 0 || !(room(hop_of(backs_[from].entry)) < EdgeArbitration::kNoLimit)) return false;
    for (int i = edge_start_[le]; i < edge_start_[le + 1]; ++i)
      if (!(probe_demand_[i] > 0) && share_[i] > 0) return true;
    return false;
  }

  // Divides capacity c (wire bytes per ns) of local edge le among the entries asking
  // probe_demand_ (the queue's; the rest ask 0) into queue_share_, by the windows waiting
  // in it where `by_windows` (divide_by_windows()). A queue of several credit
  // classes, backed up, takes each class in as its credits return, so it leaves with each
  // class's turns in proportion to the TLPs of it the queue holds at most (division_tree.h,
  // the same rule at the next egress); inside a class, the sender's arbitration divides
  // (without its starvation guards where `guards` is false: guards_reset()).
  void divide_queue(int le, double c, bool by_windows, bool guards = true) {
    const int b = edge_start_[le], e = edge_start_[le + 1];
    const EdgeArbitration& a = arb_[static_cast<std::size_t>(edges_[le])];
    std::array<double, 3> held{}, wire{}, cost{}, count{};
    for (int i = b; i < e; ++i)
      if (probe_demand_[i] > 0) {
        const std::size_t k = static_cast<std::size_t>(hop_of(i).cls);
        held[k] += window_[i];
        wire[k] += probe_demand_[i] * entries_[i].weight;
        cost[k] += entries_[i].weight * entries_[i].tlp;
        ++count[k];
      }
    const int classes = (count[0] > 0) + (count[1] > 0) + (count[2] > 0);
    if (classes <= 1) {
      if (by_windows)
        divide_by_windows(le, c);
      else
        trees_.divide(le, c, probe_demand_, queue_share_, guards);
      return;
    }
    class_policy_.kind = ShareKind::Weighted;
    class_policy_.weights.assign(3, 0.0);
    class_claims_.clear();
    for (std::size_t k = 0; k < 3; ++k)
      if (count[k] > 0) {
        class_policy_.weights[k] = a.class_weight(k, held[k]);
        class_claims_.push_back({static_cast<int>(k), wire[k], cost[k] / count[k]});
      }
    divide(class_policy_, class_claims_, c, class_cap_);
    for (std::size_t n = 0; n < class_claims_.size(); ++n) {
      const int k = class_claims_[n].index;
      for (int i = b; i < e; ++i) class_demand_[i] = hop_of(i).cls == k ? probe_demand_[i] : 0.0;
      trees_.divide(le, class_cap_[n], class_demand_, probe_share_, guards);
      for (int i = b; i < e; ++i)
        if (hop_of(i).cls == k) queue_share_[i] = probe_share_[i];
    }
  }

  // A FIFO whose credits never run out (completions: endpoints advertise infinite ones)
  // takes in whatever comes, so the egress before it never holds a backlog to arbitrate: its
  // flows arrive in the mix they come in, each with what it has in flight (a read's tag
  // window) waiting in it, and leave in arrival order, each at its window's part of the
  // turns (Little's law: one queue, one wait for all). Survey seed 30072: two reads' data in
  // one FIFO at a switch, one held below it; the egress before it serves the higher ingress
  // VC first, so the fluid stopped the other read for 818 us, where the packet model moved
  // it at 3 GB/s for the first 500 us of them (traced). Only with one held flow in the queue: with two, each one's drain pinned
  // the other's and both fell to 0 (survey seed 30021, a read 145 % late).
  void divide_by_windows(int le, double c) {
    const int b = edge_start_[le], e = edge_start_[le + 1];
    class_policy_.kind = ShareKind::Weighted;  // (the class division's scratch: divide_queue() is not using it)
    class_policy_.weights.clear();
    class_claims_.clear();
    window_who_.clear();
    for (int i = b; i < e; ++i) {
      queue_share_[i] = 0;
      if (!(probe_demand_[i] > 0)) continue;
      class_policy_.weights.push_back(window_[i]);
      class_claims_.push_back({static_cast<int>(window_who_.size()), probe_demand_[i] * entries_[i].weight,
                               entries_[i].weight * entries_[i].tlp});
      window_who_.push_back(i);
    }
    divide(class_policy_, class_claims_, c, class_cap_);
    for (std::size_t n = 0; n < window_who_.size(); ++n)
      queue_share_[window_who_[n]] = class_cap_[n] / entries_[window_who_[n]].weight;
  }

  // Edge le's shares (next_share_) from this round's demands, and the bounds they set on
  // their flows' other edges (next_bound_): what an entry could take there if it asked
  // without bound, where it got all it asked (its demand did not bind); its share where it
  // got less. Passing its share instead would echo its demand back and forth between two
  // edges.
  void divide_edge(int le) {
    trees_.divide(le, cap_[edges_[le]], demand_, next_share_);
    for (int i = edge_start_[le]; i < edge_start_[le + 1]; ++i) {
      // The division works in wire bytes, so it is exact to a part in 10^12 of the edge's
      // capacity, not of each entry's: an entry of next to no wire bytes (a read's MRds on a
      // memory port, kTurnOnlyWeight) is judged by that.
      const double short_by = (demand_[i] - next_share_[i]) * entries_[i].weight;
      const bool satisfied =
          next_share_[i] >= demand_[i] * (1 - kSatisfied) || short_by <= kSatisfied * cap_[edges_[le]];
      next_bound_[i] = satisfied && shares_elsewhere(i) ? trees_.could_take(le, i) : next_share_[i];
    }
  }

  // What of flow f's window the receiver's queue of edge e holds, in units of its rate: its
  // window there (spread over the queues it waits in: spread_windows()), at most the room.
  double window_in(std::size_t f, int e) const {
    const int from = hop_entry_start_[f];
    for (std::size_t k = 0; k < flow(f).path.size(); ++k) {
      const Hop& h = flow(f).path[k];
      if (h.edge != e) continue;
      const int i = hop_entry_[static_cast<std::size_t>(from) + k];
      return std::min(i >= 0 ? window_[i] : h.window, room(h)) * h.tlp;
    }
    return 0.0;
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
      double r = std::min(flow(f).cap, queued_[f]);
      for (int k = from; k < to; ++k)
        if (const int i = hop_entry_[k]; i >= 0) r = std::min(r, share_[i]);
      result_.rate[f] = r;
      result_.held_start[f] = static_cast<int>(result_.held.size());
      result_.queued_window[f] = 0;
      if (queued_[f] < flow(f).cap && r >= queued_[f] * (1 - kSatisfied)) {  // a queue holds it: there
        result_.held.push_back(queued_at_[f]);
        result_.queued_window[f] = window_in(f, queued_at_[f]);
        continue;
      }
      if (r >= flow(f).cap * (1 - kSatisfied)) continue;
      for (int k = from; k < to; ++k)  // (a flow with one entry is held there: its bound is its share)
        if (const int i = hop_entry_[k]; i >= 0 && bound_[i] <= r * (1 + kSettled))
          result_.held.push_back(flow(f).path[k - from].edge);
    }
    result_.held_start[flows_->size()] = static_cast<int>(result_.held.size());
  }

  // ---- A flow held at a link by one held before it ---------------------------------
  // Flow x is held at edge a, which serves flow y first (unguarded strict priority: a higher
  // VC, a higher slot, or behind one requester a higher ingress VC), and y is held at an
  // edge b before a on its way, which x crosses before a too without being held there. y
  // comes to a at what b lets through, and x's TLPs wait at a only if a cannot carry both;
  // but the iteration can settle where a holds x all the same, its division and b's feeding
  // each other: a point the packet model never holds (docs/architecture.md, "A flow held at
  // a link by one held before it"). Two ways, both with equally fast links (a tie):
  // - b favours x and a favours y (priorities that disagree along a way: survey seed 30157,
  //   a GPU's D2H writes above its read engine's MRds on its uplink, the MRds in a higher VC
  //   on the switch's uplink next; the fluid read at 2.89 GB/s beside the writes, leaving
  //   them 1 % of the GPU's link, where the packet model sent no MRd until they ended, and
  //   the read ended 70 % later);
  // - b shares by turns and a favours y (survey seed 30017: a GPU's read and write taking
  //   turns on its uplink, the write first at the switch's uplink by its ingress VC: any
  //   share of the read up to its turns is a point, the damped iteration settled half way,
  //   the packet model moves it at its turns; 62 % late).
  // The same where y comes to a over the edge just before it, as x does, whatever a's
  // arbitration (held_in_the_mix_before()).
  // So the rates are solved again with x's hop at a weighing nothing, and kept where a then
  // carries x's rate too (a point of the same equations, with x's hop weighed); else the
  // first point stands.
  bool strict_unguarded(const SharePolicy& p) const { return p.kind == ShareKind::Strict && p.guard == 0; }
  // Whether entry x goes ahead of entry y at their edge under strict priority: a higher VC
  // under an unguarded strict VC arbiter, in one VC a higher slot under an unguarded strict
  // port arbiter, or behind one requester in one VC a higher ingress VC.
  bool strictly_above(const Entry& x, const Entry& y) const {
    const EdgeArbitration& a = arb_[static_cast<std::size_t>(edges_[static_cast<std::size_t>(x.edge)])];
    if (x.vc != y.vc) return strict_unguarded(a.vc) && x.vc > y.vc;
    if (x.slot != y.slot) return strict_unguarded(a.port) && x.slot > y.slot;
    // Behind one requester, arrived over one link: its receiver's queues, the highest
    // ingress VC first (division_tree.h).
    const Hop* px = hop_before(x);
    const int vy = px ? ingress_vc(y, px->edge) : -1;
    return vy >= 0 && ingress_vc(x, px->edge) > vy;
  }
  // The VC entry x arrived in over edge `over`, its hop before; -1: it did not come over it.
  int ingress_vc(const Entry& x, int over) const {
    const Hop* p = hop_before(x);
    if (!p || p->edge != over) return -1;
    return arb_[static_cast<std::size_t>(over)].tc_to_vc[static_cast<std::size_t>(flow(x.flow).tc)];
  }
  // The hop before entry x's on its flow's way (nullptr at the start of a segment).
  const Hop* hop_before(const Entry& x) const {
    const std::vector<Hop>& path = flow(x.flow).path;
    if (x.hop == 0 || path[static_cast<std::size_t>(x.hop)].starts) return nullptr;
    return &path[static_cast<std::size_t>(x.hop - 1)];
  }
  // Whether entry i's edge holds its flow to its rate: as update_rates() finds it, but for
  // a flow at its cap, which that does not list (here its edge counts all the same: the
  // second solve's point is kept only where it fits).
  bool holds(int i) const { return bound_[i] <= result_.rate[entries_[i].flow] * (1 + kSettled); }
  int entry_at(int f, int hop) const { return hop_entry_[hop_entry_start_[f] + hop]; }

  bool find_held_by_ones_held_before() {
    dropped_.clear();
    for (std::size_t a = 0; a < edges_.size(); ++a) {
      const EdgeArbitration& arb = arb_[static_cast<std::size_t>(edges_[a])];
      const bool strict = strict_unguarded(arb.vc) || strict_unguarded(arb.port);
      for (int i = edge_start_[a]; i < edge_start_[a + 1]; ++i)
        if (holds(i) && ((strict && held_by_one_held_before(i)) || held_in_the_mix_before(i)))
          dropped_.emplace_back(entries_[i].flow, entries_[i].hop);
    }
    std::sort(dropped_.begin(), dropped_.end());  // (one patched spec per flow)
    return !dropped_.empty();
  }

  // Whether a moving flow y that entry x's edge serves ahead of x is held at an edge b before
  // it on its way (one segment), which x's flow crosses before too and is not held at. (Only
  // at an edge with a strict arbiter: where a higher ingress VC alone puts y ahead, as it
  // may behind round robin, solving again moved random seed 30758 t2 from 4.1 to 9.9 %
  // and no transfer in.)
  bool held_by_one_held_before(int i) const {
    const Entry& x = entries_[i];
    for (int j = edge_start_[x.edge]; j < edge_start_[x.edge + 1]; ++j) {
      const Entry& y = entries_[j];
      if (y.flow == x.flow || !(result_.rate[y.flow] > 0) || !strictly_above(y, x)) continue;
      const std::vector<Hop>& path = flow(y.flow).path;
      for (int k = y.hop - 1; k >= 0 && !path[static_cast<std::size_t>(k + 1)].starts; --k) {
        const int yb = entry_at(y.flow, k);
        if (yb < 0 || !holds(yb)) continue;
        const int xb = entry_before(x, entries_[yb].edge);
        if (xb >= 0 && !holds(xb)) return true;
      }
    }
    return false;
  }

  // Whether x's edge holds x beside a moving flow y that came over the same edge before,
  // which holds y and not x. The mix reaches x's edge as the edge before sent it, so x waits
  // here only if this edge cannot carry it, whatever this edge's arbitration (survey seed
  // 30170: a GPU's D2H writes above its read's MRds by a guarded strict port arbiter on its
  // Gen2 x4 uplink, both in one queue to the switch's Gen2 x4 uplink; the fluid held the
  // writes at the switch's uplink and let the MRds 2.4x their turns at the GPU's, the packet
  // model gives them one turn in 10: the read 20 % early, a peer write sharing its downlink
  // 59 % late. Survey seed 30178: a GPU's read and a peer write into it take equal turns at
  // the root port (VC round robin) and WRR 4:1 at the switch's port below, both links Gen3
  // x4; the fluid held the write at the switch at 1.06 GB/s and gave the read 1.98, the
  // packet model moves both at 1.52. Looked for first only in x's VC and slot and ingress
  // queue there, where the edge divides the mix itself: 30178's write and read are in two
  // VCs; taken wider, the survey went 1,137 -> 1,144 within 3 %, none out.)
  bool held_in_the_mix_before(int i) const {
    const Entry& x = entries_[i];
    const Hop* px = hop_before(x);
    if (!px) return false;
    const int xb = entry_at(x.flow, x.hop - 1);
    if (xb < 0 || holds(xb)) return false;
    for (int j = edge_start_[x.edge]; j < edge_start_[x.edge + 1]; ++j) {
      const Entry& y = entries_[j];
      if (y.flow == x.flow || !(result_.rate[y.flow] > 0) || ingress_vc(y, px->edge) < 0) continue;
      const int yb = entry_at(y.flow, y.hop - 1);
      if (yb >= 0 && holds(yb)) return true;
    }
    return false;
  }

  // The entry of x's flow at local edge e before x's hop in its segment; -1: none.
  int entry_before(const Entry& x, int e) const {
    const std::vector<Hop>& path = flow(x.flow).path;
    for (int k = x.hop - 1; k >= 0; --k) {
      const int i = entry_at(x.flow, k);
      if (i >= 0 && entries_[i].edge == e) return i;
      if (path[static_cast<std::size_t>(k)].starts) break;
    }
    return -1;
  }

  void solve_without_those_holds(const std::vector<const FlowSpec*>& flows) {
    first_ = result_;
    patched_.clear();
    patched_.reserve(dropped_.size());  // (pointers into it stay valid)
    without_.assign(flows.begin(), flows.end());
    for (const auto& [g, hop] : dropped_) {
      if (patched_.empty() || without_[static_cast<std::size_t>(g)] != &patched_.back()) {
        patched_.push_back(*flows[static_cast<std::size_t>(g)]);
        without_[static_cast<std::size_t>(g)] = &patched_.back();
      }
      patched_.back().path[static_cast<std::size_t>(hop)].weight = 0;
    }
    for (int e : edges_) local_[e] = -1;
    flows_ = &without_;
    index();
    start();
    settle();
    flows_ = &flows;
    const auto fits = [this](const std::pair<int, int>& d) {
      const int e = flow(d.first).path[static_cast<std::size_t>(d.second)].edge;
      return carried(e) <= cap_[static_cast<std::size_t>(e)] * (1 + kSettled);
    };
    if (!result_.converged || !std::all_of(dropped_.begin(), dropped_.end(), fits)) result_ = first_;
  }

  // What edge e carries at the result's rates, every hop on it weighing what its flow's
  // spec says.
  double carried(int e) const {
    double sum = 0;
    for (std::size_t f = 0; f < flows_->size(); ++f)
      for (const Hop& h : flow(static_cast<int>(f)).path)
        if (h.edge == e) sum += result_.rate[f] * h.weight;
    return sum;
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
    result_.queued_window.assign(flows_->size(), 0.0);
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
  std::vector<Back> backs_;                   // this round's queues that back up
  bool refined_ = false;                      // settle()'s second solve
  std::vector<std::pair<std::size_t, std::size_t>> groups_;  // backs_'s queues: [from, to)
  std::vector<double> window_;                // [entry] the TLPs of its window in its queue (spread_windows())
  std::vector<std::pair<int, double>> waits_; // (entry, its time there) where a flow waits behind another class
  std::vector<double> time_;                  // [flow_class()] the sum of those times
  std::vector<int> count_;                    // [flow_class()] and their number
  double damping_ = 0;
  double damped(double o, double n) const {
    if (damping_ == 0 || o == kUnbounded || n == kUnbounded) return n;
    return o + (1 - damping_) * (n - o);
  }
  std::vector<double> queued_, next_queued_;  // [flow] the bound of the queues it waits in
  std::vector<int> queued_at_, next_queued_at_;  // [flow] the (global) edge into the queue that binds, -1
  std::vector<char> head_held_, next_head_held_;  // [flow] held by a queue's head waits (head_waits())
  std::vector<double> probe_demand_, probe_share_, queue_share_, class_demand_;  // [entry] bound_queue()'s
  SharePolicy class_policy_;  // a queue's division among credit classes, or by windows (divide_by_windows())
  std::vector<Claim> class_claims_;
  bool windows_seen_ = false;  // this round: a queue settle()'s second solve divides by windows
  std::vector<int> window_who_;  // divide_by_windows()'s entries, by claim
  std::vector<double> class_cap_;
  ArbitratedRates result_;
  // A flow held at a link by one held before it: (flow x, its hop at a) to weigh nothing,
  // the specs so changed and the flows with them, and the first point found.
  std::vector<std::pair<int, int>> dropped_;
  std::vector<FlowSpec> patched_;
  std::vector<const FlowSpec*> without_;
  ArbitratedRates first_;
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
