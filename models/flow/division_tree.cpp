#include "models/flow/division_tree.h"
#include <algorithm>
#include <array>
#include <tuple>
#include <cmath>

namespace arbsim::flow {

namespace {
const SharePolicy kRoundRobin;  // flows behind one requester that did not arrive together
// Behind one ingress port, its queues (one per ingress VC) offer their heads at once and the
// highest ingress VC goes first (models/pcie/egress_port.cpp, collect(); docs/architecture.md).
const SharePolicy kIngressVcs{ShareKind::Strict, {}, 0};
// A mix within a billionth is settled; it settles within a few passes (a cap, should one not).
constexpr double kMixSettled = 1e-9;
constexpr int kMixPasses = 8;
}

void DivisionTrees::clear(const std::vector<const FlowSpec*>& flows) {
  flows_ = &flows;
  policies_.clear();
  nodes_.clear();
  children_.clear();
  tree_begin_.clear();
  tree_end_.clear();
}

const Hop& DivisionTrees::hop_of(const Member& m, int back) const {
  const int f = (*leaves_)[static_cast<std::size_t>(m.leaf)].flow;
  return (*flows_)[static_cast<std::size_t>(f)]->path[static_cast<std::size_t>(m.hop - back)];
}

int DivisionTrees::vc_at(int edge, const Member& m) const {
  const int f = (*leaves_)[static_cast<std::size_t>(m.leaf)].flow;
  return arb_[static_cast<std::size_t>(edge)].tc_to_vc[static_cast<std::size_t>((*flows_)[static_cast<std::size_t>(f)]->tc)];
}

int DivisionTrees::node(const SharePolicy* policy, int index, int parent) {
  Node n;
  n.policy = policy;
  n.index = index;
  n.parent = parent;
  nodes_.push_back(n);
  return static_cast<int>(nodes_.size()) - 1;
}

int DivisionTrees::add(int edge, const std::vector<Leaf>& leaves, int first, int n) {
  leaves_ = &leaves;
  if (leaf_node_.size() < leaves.size()) leaf_node_.resize(leaves.size(), -1);
  members_.clear();
  for (int k = first; k < first + n; ++k) members_.push_back({k, leaves[static_cast<std::size_t>(k)].hop});
  const int begin = static_cast<int>(nodes_.size());
  tree_edge_ = edge;
  group_at(edge, arb_[static_cast<std::size_t>(edge)].vc, 0, n, 0, -1);
  // Each division's cost: the mean of its leaves' (children come after their parent).
  for (int id = static_cast<int>(nodes_.size()) - 1; id > begin; --id) {
    Node& x = nodes_[static_cast<std::size_t>(id)];
    if (x.leaf < 0) x.mean = x.cost /= x.leaves;  // its children's sum, made a mean
    Node& p = nodes_[static_cast<std::size_t>(x.parent)];
    p.cost += x.cost * x.leaves;
    p.leaves += x.leaves;
  }
  Node& root = nodes_[static_cast<std::size_t>(begin)];
  root.mean = root.cost /= root.leaves;
  tree_begin_.push_back(begin);
  tree_end_.push_back(static_cast<int>(nodes_.size()));
  return static_cast<int>(tree_begin_.size()) - 1;
}

// The edge every member of [begin, end) arrived by (the hop before theirs), or -1 when they
// did not all arrive by one (or one starts here: an engine's, a completer's).
int DivisionTrees::merged_at(int begin, int end) const {
  int p = -1;
  for (int i = begin; i < end; ++i) {
    const Member& m = members_[static_cast<std::size_t>(i)];
    const int prev = m.hop > 0 && !hop_of(m).starts ? hop_of(m, 1).edge : -1;
    if (prev < 0 || (p >= 0 && prev != p)) return -1;
    p = prev;
  }
  return p;
}

// How many runs of equal key(i) members [from, to) make; where the run from `from` ends.
template <class Key>
int DivisionTrees::runs(int from, int to, Key key) const {
  int n = 1;
  for (int i = from + 1; i < to; ++i) n += key(i) != key(i - 1);
  return n;
}
template <class Key>
int DivisionTrees::run_end(int from, int to, Key key) const {
  int i = from + 1;
  while (i < to && key(i) == key(from)) ++i;
  return i;
}

// A node with room for `children` children, filled in by the caller.
int DivisionTrees::parent_node(const SharePolicy* policy, int index, int parent, int children) {
  const int id = node(policy, index, parent);
  nodes_[static_cast<std::size_t>(id)].first_child = static_cast<int>(children_.size());
  nodes_[static_cast<std::size_t>(id)].children = children;
  children_.resize(children_.size() + static_cast<std::size_t>(children));
  return id;
}

void DivisionTrees::set_child(int parent, int k, int child) {
  children_[static_cast<std::size_t>(nodes_[static_cast<std::size_t>(parent)].first_child + k)] = child;
}

// The division at `edge` among members [begin, end) (their hops are on it, sorted by VC
// and slot there): `vcs` among the VCs (the egress's VC arbiter; behind an ingress port,
// strict by ingress VC), the port arbiter among slots inside each, and the members behind
// one slot split as the egress before them sent them (round robin when they did not arrive
// together). Returns the node of the VC level.
int DivisionTrees::group_at(int edge, const SharePolicy& vcs, int begin, int end, int index, int parent) {
  const EdgeArbitration& a = arb_[static_cast<std::size_t>(edge)];
  const bool queues = &vcs == &kIngressVcs;  // behind one ingress port: its queues, one per VC
  const auto vc = [&](int i) { return vc_at(edge, members_[static_cast<std::size_t>(i)]); };
  const auto cls = [&](int i) { return hop_of(members_[static_cast<std::size_t>(i)]).cls; };
  const auto root = parent_node(&vcs, index, parent, runs(begin, end, vc));
  for (int v = 0, from = begin; from < end; ++v) {
    const int to = run_end(from, end, vc);
    if (queues && runs(from, to, cls) > 1) {
      set_child(root, v, queue(edge, from, to, vc(from), root));
    } else {
      set_child(root, v, slots(a.port, from, to, vc(from), root));
    }
    from = to;
  }
  return root;
}

// The port arbiter `port` among the slots of members [begin, end) (sorted by slot), each
// slot's members behind it.
int DivisionTrees::slots(const SharePolicy& port, int begin, int end, int index, int parent) {
  const auto slot = [&](int i) { return hop_of(members_[static_cast<std::size_t>(i)]).slot; };
  const int n = parent_node(&port, index, parent, runs(begin, end, slot));
  for (int s = 0, i = begin; i < end; ++s) {
    const int j = run_end(i, end, slot);
    set_child(n, s, behind_slot(i, j, slot(i), n));
    i = j;
  }
  return n;
}

// One ingress queue (members [begin, end) of one ingress VC of `edge`'s receiver, sorted by
// credit class then slot) holding TLPs of several credit classes. Backed up, it leaves in
// the order it filled, and the sender fills it class by class as credits return: so its
// turns go to each class in proportion to the TLPs of that class it holds at most (the
// receiver's credits in TLPs, or what the flows can have in flight: a read's tag window),
// then within a class as the sender's port arbiter mixed them. Not backed up, every class
// gets what it asks either way.
int DivisionTrees::queue(int edge, int begin, int end, int index, int parent) {
  const EdgeArbitration& a = arb_[static_cast<std::size_t>(edge)];
  const auto cls = [&](int i) { return hop_of(members_[static_cast<std::size_t>(i)]).cls; };
  std::array<double, 3> held{};
  for (int i = begin; i < end; ++i) held[static_cast<std::size_t>(cls(i))] += hop_of(members_[static_cast<std::size_t>(i)]).window;
  policies_.push_back(SharePolicy{ShareKind::Weighted, std::vector<double>(3, 0.0), 0});
  for (std::size_t c = 0; c < 3; ++c) policies_.back().weights[c] = a.class_weight(c, held[c]);
  const int n = parent_node(&policies_.back(), index, parent, runs(begin, end, cls));
  for (int c = 0, i = begin; i < end; ++c) {
    const int j = run_end(i, end, cls);
    set_child(n, c, slots(a.port, i, j, cls(i), n));
    i = j;
  }
  return n;
}

// Members [begin, end) behind one requester slot: a leaf when alone; else, when they all
// arrived through one ingress port, its queues by ingress VC (highest first) and inside each
// queue the mix the egress before sent them (its port arbiter among its slots, and so on
// up); else round robin.
int DivisionTrees::behind_slot(int begin, int end, int index, int parent) {
  if (end - begin == 1) {
    const int leaf = node(nullptr, index, parent);
    Node& x = nodes_[static_cast<std::size_t>(leaf)];
    x.leaf = members_[static_cast<std::size_t>(begin)].leaf;
    const Leaf& l = (*leaves_)[static_cast<std::size_t>(x.leaf)];
    x.cost = l.weight * l.tlp;
    x.leaves = 1;
    leaf_node_[static_cast<std::size_t>(x.leaf)] = leaf;
    return leaf;
  }
  const int p = merged_at(begin, end);
  if (p >= 0 && windows_queue_at(begin, end)) return by_windows(begin, end, index, parent);
  if (p >= 0) {
    const auto first = members_.begin() + begin, last = members_.begin() + end;
    for (auto it = first; it != last; ++it) --it->hop;  // now at their hops on p
    std::stable_sort(first, last, [&](const Member& x, const Member& y) {
      return std::make_tuple(vc_at(p, x), hop_of(x).cls, hop_of(x).slot) <
             std::make_tuple(vc_at(p, y), hop_of(y).cls, hop_of(y).slot);
    });
    return group_at(p, kIngressVcs, begin, end, index, parent);
  }
  const int rr = parent_node(&kRoundRobin, index, parent, end - begin);
  for (int k = 0; k < end - begin; ++k) set_child(rr, k, behind_slot(begin + k, begin + k + 1, 0, rr));
  return rr;
}

// Whether members [begin, end) of a tree's edge, arrived together and looked at a level up
// (their hops before it), are all reads' completions whose tag windows the receiver before
// the tree's edge holds at once (completion credits infinite, as endpoints advertise, or as
// many): then nothing backs up into the egresses before, whose arbitration (the completer's
// strict order by TC, say) orders them only where it is itself saturated, and there it holds
// them already. Each read keeps its window waiting in that one queue, which leaves in
// arrival order: each gets turns in proportion to the TLPs of its window (Little's law: one
// queue, one wait for all). At the tree's own edge (the egress right after the completer)
// the completer's order stands: there its queues are the egress's ingress queues.
bool DivisionTrees::windows_queue_at(int begin, int end) const {
  double windows = 0;
  for (int i = begin; i < end; ++i) {
    const Hop& h = hop_of(members_[static_cast<std::size_t>(i)]);
    if (h.edge == tree_edge_ || h.cls != 2 || !std::isfinite(h.window) || !(h.window > 0)) return false;
    windows += h.window;
  }
  // The edge into the tree's node: the same for all (they arrived together).
  const Leaf& l = (*leaves_)[static_cast<std::size_t>(members_[static_cast<std::size_t>(begin)].leaf)];
  const int into = (*flows_)[static_cast<std::size_t>(l.flow)]->path[static_cast<std::size_t>(l.hop - 1)].edge;
  return windows <= arb_[static_cast<std::size_t>(into)].buffered[2];
}

// Members [begin, end) as leaves of a division weighted by their windows (windows_queue_at()).
int DivisionTrees::by_windows(int begin, int end, int index, int parent) {
  policies_.push_back(SharePolicy{ShareKind::Weighted, {}, 0});
  for (int i = begin; i < end; ++i) policies_.back().weights.push_back(hop_of(members_[static_cast<std::size_t>(i)]).window);
  const int n = parent_node(&policies_.back(), index, parent, end - begin);
  for (int k = 0; k < end - begin; ++k) set_child(n, k, behind_slot(begin + k, begin + k + 1, k, n));
  return n;
}

void DivisionTrees::claims_of(const Node& n) {
  claims_.clear();
  for (int k = 0; k < n.children; ++k) {
    const Node& x = nodes_[static_cast<std::size_t>(children_[static_cast<std::size_t>(n.first_child + k)])];
    claims_.push_back({x.index, x.demand, x.cost});
  }
}

void DivisionTrees::divide(int t, double capacity, const std::vector<double>& demand, std::vector<double>& share,
                           bool guards) {
  const int begin = tree_begin_[static_cast<std::size_t>(t)], end = tree_end_[static_cast<std::size_t>(t)];
  if (nodes_[static_cast<std::size_t>(begin)].leaves == 1) return divide_chain(begin, end, capacity, demand, share);
  for (int id = begin; id < end; ++id) {
    Node& x = nodes_[static_cast<std::size_t>(id)];
    x.unbounded = -1;
    x.demand = x.leaf >= 0 ? demand[static_cast<std::size_t>(x.leaf)] * (*leaves_)[static_cast<std::size_t>(x.leaf)].weight : 0.0;
  }
  for (int id = end - 1; id > begin; --id) {  // children come after their parent: sums bottom-up
    const Node& x = nodes_[static_cast<std::size_t>(id)];
    nodes_[static_cast<std::size_t>(x.parent)].demand += x.demand;
  }
  nodes_[static_cast<std::size_t>(begin)].capacity = nodes_[static_cast<std::size_t>(begin)].unbounded = capacity;
  // The divisions' turn costs are their TLP mixes, which the division itself sets: divided
  // again until the mix settles (a few passes: once it knows who gets all it asks, the mix
  // follows).
  for (int pass = 0; pass < kMixPasses; ++pass) {
    divide_down(begin, end, guards);
    if (mix(begin, end) < kMixSettled) break;
  }
  for (int id = begin; id < end; ++id) {
    const Node& x = nodes_[static_cast<std::size_t>(id)];
    if (x.leaf >= 0) share[static_cast<std::size_t>(x.leaf)] = x.capacity / (*leaves_)[static_cast<std::size_t>(x.leaf)].weight;
  }
}

// A tree of one leaf (a link one flow crosses): every division passes its one child all it
// asks, up to the capacity, and so would it asking without bound: what the passes below
// would set, without them (no division reads a cost here).
void DivisionTrees::divide_chain(int begin, int end, double capacity, const std::vector<double>& demand,
                                 std::vector<double>& share) {
  const Node& leaf = nodes_[static_cast<std::size_t>(end - 1)];
  const double weight = (*leaves_)[static_cast<std::size_t>(leaf.leaf)].weight;
  const double asks = demand[static_cast<std::size_t>(leaf.leaf)] * weight, got = std::min(asks, capacity);
  for (int id = begin; id < end; ++id) {
    Node& x = nodes_[static_cast<std::size_t>(id)];
    x.demand = asks;
    x.capacity = id == begin ? capacity : got;
    x.unbounded = capacity;
  }
  share[static_cast<std::size_t>(leaf.leaf)] = got / weight;
}

// Each division gives its children their parts of its capacity, from the root down.
void DivisionTrees::divide_down(int begin, int end, bool guards) {
  for (int id = begin; id < end; ++id) {
    const Node& x = nodes_[static_cast<std::size_t>(id)];
    if (x.leaf >= 0) continue;
    if (x.children == 1) {  // alone: all it asks, up to the capacity, under every arbiter
      Node& only = nodes_[static_cast<std::size_t>(children_[static_cast<std::size_t>(x.first_child)])];
      only.capacity = std::min(only.demand, x.capacity);
      continue;
    }
    claims_of(x);
    flow::divide(*x.policy, claims_, x.capacity, out_, guards);
    for (int k = 0; k < x.children; ++k)
      nodes_[static_cast<std::size_t>(children_[static_cast<std::size_t>(x.first_child + k)])].capacity = out_[static_cast<std::size_t>(k)];
  }
}

// A division's turn costs the wire of the TLPs its subtree sends per turn: the mix this
// division gave it (its leaves' wire over their turns), not the mean of its leaves' costs,
// which a leaf that takes few turns (a read's MRds limited elsewhere, a stopped flow) would
// skew; the mean where it was given nothing. Returns the largest relative change of a cost
// some division reads.
double DivisionTrees::mix(int begin, int end) {
  for (int id = begin; id < end; ++id) {
    Node& x = nodes_[static_cast<std::size_t>(id)];
    x.used = x.turns = 0;
    if (x.leaf >= 0) x.used = x.capacity, x.turns = x.capacity / x.cost;
  }
  double change = 0;
  for (int id = end - 1; id >= begin; --id) {  // children after their parent: bottom-up
    Node& x = nodes_[static_cast<std::size_t>(id)];
    if (x.leaf < 0) {
      const double cost = x.turns > 0 ? x.used / x.turns : x.mean;
      // Only the costs a division reads (its children's, where it has several) call for
      // another pass: a lone child's cost changes nothing the next pass would divide.
      if (cost != x.cost && id > begin && nodes_[static_cast<std::size_t>(x.parent)].children > 1)
        change = std::max(change, std::abs(cost - x.cost) / std::max(cost, x.cost));
      x.cost = cost;
    }
    if (id > begin) {
      Node& p = nodes_[static_cast<std::size_t>(x.parent)];
      p.used += x.used;
      p.turns += x.turns;
    }
  }
  return change;
}

double DivisionTrees::could_take(int t, int i) {
  const int root = tree_begin_[static_cast<std::size_t>(t)];
  std::vector<int>& up = path_;
  up.clear();
  for (int n = leaf_node_[static_cast<std::size_t>(i)]; n != root; n = nodes_[static_cast<std::size_t>(n)].parent) up.push_back(n);
  for (std::size_t k = up.size(); k-- > 0;) {
    const int c = up[k];
    Node& x = nodes_[static_cast<std::size_t>(c)];
    if (x.unbounded >= 0) continue;
    const Node& p = nodes_[static_cast<std::size_t>(x.parent)];
    if (p.children == 1) {
      x.unbounded = p.unbounded;
      continue;
    }
    claims_of(p);
    divide_each_unbounded(*p.policy, claims_, p.unbounded, out_);  // for all of p's children at once
    for (int j = 0; j < p.children; ++j)
      nodes_[static_cast<std::size_t>(children_[static_cast<std::size_t>(p.first_child + j)])].unbounded = out_[static_cast<std::size_t>(j)];
  }
  return nodes_[static_cast<std::size_t>(leaf_node_[static_cast<std::size_t>(i)])].unbounded /
         (*leaves_)[static_cast<std::size_t>(i)].weight;
}

}  // namespace arbsim::flow
