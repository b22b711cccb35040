#include "models/flow/division_tree.h"
#include <algorithm>

namespace arbsim::flow {

namespace {
const SharePolicy kRoundRobin;  // flows behind one requester that did not arrive together
// Behind one ingress port, its queues (one per ingress VC) offer their heads at once and the
// highest ingress VC goes first (models/pcie/egress_port.cpp, collect(); docs/architecture.md).
const SharePolicy kIngressVcs{ShareKind::Strict, {}, 0};
}

void DivisionTrees::clear(const std::vector<const FlowSpec*>& flows) {
  flows_ = &flows;
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
  std::vector<Member> m;
  for (int k = first; k < first + n; ++k) m.push_back({k, leaves[static_cast<std::size_t>(k)].hop});
  const int begin = static_cast<int>(nodes_.size());
  group_at(edge, arb_[static_cast<std::size_t>(edge)].vc, std::move(m), 0, -1);
  // Each division's cost: the mean of its leaves' (children come after their parent).
  std::vector<double> sum(nodes_.size() - static_cast<std::size_t>(begin), 0.0);
  std::vector<int> count(sum.size(), 0);
  for (int id = static_cast<int>(nodes_.size()) - 1; id >= begin; --id) {
    Node& x = nodes_[static_cast<std::size_t>(id)];
    const std::size_t k = static_cast<std::size_t>(id - begin);
    if (x.leaf >= 0) sum[k] = x.cost, count[k] = 1;
    x.cost = sum[k] / count[k];
    if (x.parent >= 0) {
      sum[static_cast<std::size_t>(x.parent - begin)] += sum[k];
      count[static_cast<std::size_t>(x.parent - begin)] += count[k];
    }
  }
  tree_begin_.push_back(begin);
  tree_end_.push_back(static_cast<int>(nodes_.size()));
  return static_cast<int>(tree_begin_.size()) - 1;
}

// The edge every member arrived by (the hop before theirs), or -1 when they did not all
// arrive by one (or one starts here: an engine's, a completer's).
int DivisionTrees::merged_at(const std::vector<Member>& members) const {
  int p = -1;
  for (const Member& m : members) {
    const int prev = m.hop > 0 && !hop_of(m).starts ? hop_of(m, 1).edge : -1;
    if (prev < 0 || (p >= 0 && prev != p)) return -1;
    p = prev;
  }
  return p;
}

// The division at `edge` among `members` (their hops are on it, sorted by VC and slot
// there): `vcs` among the VCs (the egress's VC arbiter; behind an ingress port, strict
// by ingress VC), the port arbiter among slots inside each, and the members behind one
// slot split as the egress before them sent them (round robin when they did not arrive
// together). Returns the node of the VC level.
int DivisionTrees::group_at(int edge, const SharePolicy& vcs_policy, std::vector<Member> m, int index, int parent) {
  const EdgeArbitration& a = arb_[static_cast<std::size_t>(edge)];
  const auto slot = [&](const Member& x) { return hop_of(x).slot; };
  const auto runs = [&](std::size_t from, std::size_t to, auto key) {
    std::vector<std::size_t> ends;
    for (std::size_t j = from + 1; j <= to; ++j)
      if (j == to || key(m[j]) != key(m[j - 1])) ends.push_back(j);
    return ends;
  };
  const int root = node(&vcs_policy, index, parent);
  const std::vector<std::size_t> vcs = runs(0, m.size(), [&](const Member& x) { return vc_at(edge, x); });
  nodes_[static_cast<std::size_t>(root)].first_child = static_cast<int>(children_.size());
  nodes_[static_cast<std::size_t>(root)].children = static_cast<int>(vcs.size());
  children_.resize(children_.size() + vcs.size());
  for (std::size_t v = 0, begin = 0; v < vcs.size(); begin = vcs[v++]) {
    const int vn = node(&a.port, vc_at(edge, m[begin]), root);
    children_[static_cast<std::size_t>(nodes_[static_cast<std::size_t>(root)].first_child) + v] = vn;
    const std::vector<std::size_t> slots = runs(begin, vcs[v], slot);
    nodes_[static_cast<std::size_t>(vn)].first_child = static_cast<int>(children_.size());
    nodes_[static_cast<std::size_t>(vn)].children = static_cast<int>(slots.size());
    children_.resize(children_.size() + slots.size());
    for (std::size_t s = 0, from = begin; s < slots.size(); from = slots[s++]) {
      const int child_at = nodes_[static_cast<std::size_t>(vn)].first_child + static_cast<int>(s);
      const std::vector<Member> behind(m.begin() + static_cast<long>(from), m.begin() + static_cast<long>(slots[s]));
      const int sn = behind_slot(behind, slot(m[from]), vn);
      children_[static_cast<std::size_t>(child_at)] = sn;
    }
  }
  return root;
}

// The members behind one requester slot: a leaf when alone; else, when they all arrived
// through one ingress port, its queues by ingress VC (highest first) and inside each queue
// the mix the egress before sent them (its port arbiter among its slots, and so on up);
// else round robin.
int DivisionTrees::behind_slot(std::vector<Member> behind, int index, int parent) {
  if (behind.size() == 1) {
    const int leaf = node(nullptr, index, parent);
    Node& x = nodes_[static_cast<std::size_t>(leaf)];
    x.leaf = behind[0].leaf;
    const Leaf& l = (*leaves_)[static_cast<std::size_t>(x.leaf)];
    x.cost = l.weight * l.tlp;
    leaf_node_[static_cast<std::size_t>(x.leaf)] = leaf;
    return leaf;
  }
  const int p = merged_at(behind);
  if (p >= 0) {
    for (Member& x : behind) --x.hop;
    std::stable_sort(behind.begin(), behind.end(), [&](const Member& x, const Member& y) {
      return std::make_pair(vc_at(p, x), hop_of(x).slot) < std::make_pair(vc_at(p, y), hop_of(y).slot);
    });
    return group_at(p, kIngressVcs, std::move(behind), index, parent);
  }
  const int rr = node(&kRoundRobin, index, parent);
  nodes_[static_cast<std::size_t>(rr)].first_child = static_cast<int>(children_.size());
  nodes_[static_cast<std::size_t>(rr)].children = static_cast<int>(behind.size());
  children_.resize(children_.size() + behind.size());
  for (std::size_t k = 0; k < behind.size(); ++k) {
    const int child = behind_slot({behind[k]}, 0, rr);
    children_[static_cast<std::size_t>(nodes_[static_cast<std::size_t>(rr)].first_child) + k] = child;
  }
  return rr;
}

void DivisionTrees::claims_of(const Node& n) {
  claims_.clear();
  for (int k = 0; k < n.children; ++k) {
    const Node& x = nodes_[static_cast<std::size_t>(children_[static_cast<std::size_t>(n.first_child + k)])];
    claims_.push_back({x.index, x.demand, x.cost});
  }
}

void DivisionTrees::divide(int t, double capacity, const std::vector<double>& demand, std::vector<double>& share) {
  const int begin = tree_begin_[static_cast<std::size_t>(t)], end = tree_end_[static_cast<std::size_t>(t)];
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
  for (int id = begin; id < end; ++id) {
    const Node& x = nodes_[static_cast<std::size_t>(id)];
    if (x.leaf >= 0) {
      share[static_cast<std::size_t>(x.leaf)] = x.capacity / (*leaves_)[static_cast<std::size_t>(x.leaf)].weight;
      continue;
    }
    if (x.children == 1) {  // alone: all it asks, up to the capacity, under every arbiter
      Node& only = nodes_[static_cast<std::size_t>(children_[static_cast<std::size_t>(x.first_child)])];
      only.capacity = std::min(only.demand, x.capacity);
      continue;
    }
    claims_of(x);
    flow::divide(*x.policy, claims_, x.capacity, out_);
    for (int k = 0; k < x.children; ++k)
      nodes_[static_cast<std::size_t>(children_[static_cast<std::size_t>(x.first_child + k)])].capacity = out_[static_cast<std::size_t>(k)];
  }
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
