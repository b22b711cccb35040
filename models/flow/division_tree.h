// How one egress divides its link among the flows crossing it (edge_share.h's levels: the
// VC arbiter among VCs, the port arbiter among requesters inside each VC, and the flows
// behind one requester in the mix the egress before them sent them, recursively while they
// arrived there together; reads' completions a level up by their tag windows instead:
// division_tree.cpp, windows_queue_at()), as a tree of divisions. The tree depends on the flows' paths,
// TCs, requester slots and the TC/VC maps, not on what they ask, so the rate computation
// (arbitrated_rates.h) builds it once and evaluates it every round: the demands summed up
// the tree, the capacity divided down it (edge_share.h's divide() at each node). What a
// flow could take if it asked without bound changes only the divisions on its way from the
// root, each made once per round for all the flows below it. Plain C++.
#pragma once
#include <deque>
#include <vector>
#include "models/flow/edge_share.h"
#include "models/flow/max_min.h"

namespace arbsim::flow {

class DivisionTrees {
 public:
  // A flow's hop on an edge: which flow (an index into the flows given to clear()), which
  // hop of its path, its weight there (wire bytes per unit of its rate, > 0) and the units
  // one TLP carries (Hop::tlp). The egress arbitrates TLPs: a division's children claim
  // TLPs per ns, each TLP costing its wire bytes (edge_share.h's Claim).
  struct Leaf {
    int flow, hop;
    double weight, tlp;
  };

  explicit DivisionTrees(const std::vector<EdgeArbitration>& arbitration) : arb_(arbitration) {}
  // Starts a computation over `flows` (kept by pointer until the next clear()).
  void clear(const std::vector<const FlowSpec*>& flows);
  // The tree of `edge` over leaves[first, first + n) (their hops are on `edge`, sorted by
  // VC, slot, then flow); returns its id. A leaf keeps its number `first + k`.
  int add(int edge, const std::vector<Leaf>& leaves, int first, int n);
  // Divides `capacity` (wire bytes per ns) among tree t's leaves, leaf i asking demand[i]
  // (units of rate per ns, may be infinite): share[i] in the same units. A division's turn
  // costs the mix of TLPs it sends (division_tree.cpp, mix()).
  // `guards` false: every starvation guard in it left out (arbitrated_rates.cpp, bound_queue()).
  void divide(int t, double capacity, const std::vector<double>& demand, std::vector<double>& share,
              bool guards = true);
  // After divide(t): what leaf i would get (payload) if it asked without bound, the others
  // asking what they asked.
  double could_take(int t, int i);

 private:
  struct Node {
    const SharePolicy* policy = nullptr;  // how it divides among its children (nullptr: a leaf)
    int index = 0;                        // its claim's index in its parent's division
    int parent = -1, first_child = 0, children = 0;
    int leaf = -1;        // the leaf's number, or -1 for a division
    double cost = 0;      // wire bytes per turn: of its TLP mix (a leaf: of its TLPs)
    double mean = 0;      // its leaves' mean cost (the mix where it gets nothing)
    int leaves = 0;       // how many leaves it has
    double used = 0, turns = 0;  // mix(): its subtree's wire and turns
    double demand = 0;    // this round: its leaves' demands, wire bytes per ns
    double capacity = 0;  // this round: what its parent's division gave it
    double unbounded = 0;  // could_take's memo: its capacity were one of its leaves unbounded (< 0: not yet)
  };
  struct Member {  // a leaf at hop `hop` of its flow's path, while building
    int leaf, hop;
  };
  int group_at(int edge, const SharePolicy& vcs, int begin, int end, int index, int parent);
  int behind_slot(int begin, int end, int index, int parent);
  int slots(const SharePolicy& port, int begin, int end, int index, int parent);
  int queue(int edge, int begin, int end, int index, int parent);
  bool windows_queue_at(int begin, int end) const;
  int by_windows(int begin, int end, int index, int parent);
  template <class Key>
  int runs(int from, int to, Key key) const;
  template <class Key>
  int run_end(int from, int to, Key key) const;
  int node(const SharePolicy* policy, int index, int parent);
  int parent_node(const SharePolicy* policy, int index, int parent, int children);
  void set_child(int parent, int k, int child);
  int merged_at(int begin, int end) const;
  const Hop& hop_of(const Member& m, int back = 0) const;
  int vc_at(int edge, const Member& m) const;
  void claims_of(const Node& n);
  double mix(int begin, int end);
  void divide_chain(int begin, int end, double capacity, const std::vector<double>& demand, std::vector<double>& share);
  void divide_down(int begin, int end, bool guards);

  const std::vector<EdgeArbitration>& arb_;
  const std::vector<const FlowSpec*>* flows_ = nullptr;
  const std::vector<Leaf>* leaves_ = nullptr;
  std::vector<Node> nodes_;
  std::vector<Member> members_;  // the leaves of the tree being built, by range
  std::deque<SharePolicy> policies_;  // the queues' divisions by credit class (node pointers stay valid)
  std::vector<int> children_;  // nodes_[n]'s children: children_[first_child, first_child + children)
  std::vector<int> tree_begin_, tree_end_, leaf_node_;  // [tree] its nodes; [leaf] its node
  std::vector<Claim> claims_;
  std::vector<double> out_;
  std::vector<int> path_;  // could_take's way from a leaf up to the root
  int tree_edge_ = -1;     // the edge of the tree add() builds
};

}  // namespace arbsim::flow
