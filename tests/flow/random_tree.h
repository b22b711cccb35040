// Random PCIe trees and concurrent transfers on which the packet model's arbitration
// equals max-min fair sharing, for the flow-vs-packet agreement test.
//
// The packet model's egress ports round-robin over ingress ports (and a switch's ingress
// is one FIFO per VC unless it has virtual output queues), not over flows
// (docs/architecture.md, "Flow-level mode"). The two agree when, at every crossbar a
// transfer passes, no other transfer arrives on the same ingress port and leaves by the
// same egress port, and - behind a FIFO ingress - no other transfer arrives on the same
// port at all (it could block behind the other's head). (A transfer forwarded from a slower
// link onto a faster one used to be excluded too, when the packet model held the faster
// link until the TLP's tail arrived; it now starts the TLP only when the tail can keep up,
// so the link carries just its wire bytes: docs/architecture.md, "Timing of one TLP".)
// And posted writes have finite credits per
// link: a write held back further down fills the buffer its upstream link feeds and
// blocks whatever else uses that link, where max-min would hand the rest of the link to
// the others. So a write may share links only from the first link it shares on, and
// there only if nothing after it is shared or slower (it cannot be held back further
// down). The generator keeps only transfers that meet these rules, counting a read's MRd
// requests as a transfer of their own.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace flowtest {

struct TreeNode {
  std::string name, type;  // root_complex | switch | gpu | memory (the root complex's)
  int parent = -1;
  bool voq = false, store_and_forward = false;
  int gen = 3, width = 16;  // the link to the parent
  double link_GBps = 0;     // its raw rate (the memory port's bandwidth for the memory)
};

// What the generator draws: `Filtered` keeps the rules above; `Mixed` keeps every
// transfer it draws (up to six) and adds arbitration: per link direction a VC arbiter (rr,
// strict, wrr by random weights, strict with a starvation guard), 1, 2, 4 or 8 VCs, a port
// arbiter (rr, strict, wrr by random weights), and per app a random TC. Its cases are not
// made to agree: the agreement test measures how many do, and names why the others do not.
enum class Draw { Filtered, Mixed };

class RandomCase {
 public:
  // A tree on which fewer than two transfers fit is drawn again (from the same stream).
  explicit RandomCase(uint64_t seed, Draw draw = Draw::Filtered) : rng_(seed) {
    do {
      *this = RandomCase(rng_, draw);
    } while (transfers_ < 2);
  }
  std::string yaml() const { return platform_ + apps_; }
  int transfers() const { return transfers_; }

 private:
  using Path = std::vector<int>;  // node sequence

  RandomCase(std::mt19937_64& rng, Draw draw) : rng_(rng), mixed_(draw == Draw::Mixed) {
    make_tree();
    make_transfers();
    platform_ = platform_yaml();
    rng = rng_;
  }

  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  bool chance(int percent) { return pick(100) < percent; }
  std::string num(int64_t v) const { return std::to_string(v); }

  int add(const std::string& name, const std::string& type, int parent) {
    static const int gens[] = {2, 3, 4}, widths[] = {4, 8, 16};
    static const double lane_GBps[] = {0, 0.25, 0.5, 8.0 * 128 / 130 / 8, 16.0 * 128 / 130 / 8};
    TreeNode n{name, type, parent};
    n.voq = type == "switch" && chance(50);
    n.store_and_forward = type == "switch" && chance(20);
    n.gen = gens[pick(3)];
    n.width = widths[pick(3)];
    n.link_GBps = type == "memory" ? 16 << pick(3) : lane_GBps[n.gen] * n.width;
    nodes_.push_back(n);
    return static_cast<int>(nodes_.size()) - 1;
  }

  void make_tree() {
    add("rc0", "root_complex", -1);
    memory_ = add("mem", "memory", 0);
    std::vector<int> crossbars = {0};
    const int switches = 1 + pick(4), gpus = 2 + pick(5);
    for (int s = 0; s < switches; ++s)
      crossbars.push_back(add("sw" + num(s), "switch", crossbars[pick(static_cast<int>(crossbars.size()))]));
    for (int g = 0; g < gpus; ++g)
      gpus_.push_back(add("gpu" + num(g), "gpu", crossbars[pick(static_cast<int>(crossbars.size()))]));
  }

  std::string link_yaml(const TreeNode& n) {
    std::string y = "    - {up: " + nodes_[n.parent].name + ", down: " + n.name + ", gen: " + num(n.gen) +
                    ", width: " + num(n.width) + ", latency_ns: " + num(10 + pick(31));
    if (mixed_) {
      const int vcs = 1 << pick(4);
      y += ", vcs: " + num(vcs) + ", arbitration_up: " + arbitration_yaml(vcs) +
           ", arbitration_down: " + arbitration_yaml(vcs);
    }
    return y + "}\n";
  }

  std::string weights(int n) {
    std::string w;
    for (int k = 0; k < n; ++k) w += (k ? ", " : "") + num(1 + pick(4));
    return "[" + w + "]";
  }

  // A VC arbiter (wrr: one weight per VC) and a port arbiter (wrr would need the exact
  // requester count of each egress: tests/sim cover it), each drawn.
  std::string arbitration_yaml(int vcs) {
    std::string vc = "{type: rr}", port = "{type: rr}";
    switch (vcs > 1 ? pick(4) : 0) {
      case 1: vc = "{type: strict}"; break;
      case 2: vc = "{type: wrr, weights: " + weights(vcs) + "}"; break;
      case 3: vc = "{type: strict, starvation_threshold: " + num(2 + pick(15)) + "}"; break;
      default: break;
    }
    switch (pick(3)) {
      case 1: port = "{type: strict}"; break;
      case 2: port = "{type: strict, starvation_threshold: " + num(2 + pick(15)) + "}"; break;
      default: break;
    }
    return "{vc_arbiter: " + vc + ", port_arbiter: " + port + "}";
  }

  std::string node_yaml(const TreeNode& n) {
    if (n.type == "root_complex")
      return "    - {name: rc0, type: root_complex, latency_ns: 50, memory: {bandwidth_GBps: " +
             num(static_cast<int64_t>(nodes_[memory_].link_GBps)) + ", read_latency_ns: " + num(300 + pick(201)) +
             "}}\n";
    if (n.type == "switch")
      return "    - {name: " + n.name + ", type: switch, latency_ns: " + num(100 + pick(51)) +
             (n.store_and_forward ? ", forwarding: store_and_forward" : "") + (n.voq ? ", voq: true" : "") + "}\n";
    return "    - {name: " + n.name + ", type: gpu" + (push_[n.name] ? ", h2d_mode: push" : "") + "}\n";
  }

  // MPS 128 or 256 and completions of MPS: MWr and CplD carry the same payload, so
  // round-robin per TLP is fair per byte as max-min is (docs/architecture.md).
  std::string platform_yaml() {
    std::string y = "platform:\n  name: random\n  mps: " + num(mps_) + "\n  mrrs: " + num(mrrs_) + "\n  nodes:\n";
    for (const TreeNode& n : nodes_)
      if (n.type != "memory") y += node_yaml(n);
    y += "  links:\n";
    for (const TreeNode& n : nodes_)
      if (n.parent >= 0 && n.type != "memory") y += link_yaml(n);
    return y;
  }

  Path up_to_root(int n) const {
    Path p;
    for (; n >= 0; n = nodes_[n].parent) p.push_back(n);
    return p;
  }

  Path tree_path(int a, int b) const {
    const Path ua = up_to_root(a), ub = up_to_root(b);
    std::size_t i = ua.size(), j = ub.size();
    while (i > 0 && j > 0 && ua[i - 1] == ub[j - 1]) --i, --j;
    Path p(ua.begin(), ua.begin() + static_cast<long>(i) + 1);  // a .. lca
    for (std::size_t k = j; k-- > 0;) p.push_back(ub[k]);
    return p;
  }

  // Behind a FIFO ingress (a switch without VOQ, a root port) any shared ingress can
  // block; the memory port into the root complex has VOQs (Platform's memory port).
  bool fifo_ingress(int node, int from) const {
    return from != memory_ && !nodes_[node].voq;
  }

  // The link between neighbours u and v (one is the other's parent).
  double speed(int u, int v) const { return nodes_[u].parent == v ? nodes_[u].link_GBps : nodes_[v].link_GBps; }

  bool uses_edge(const Path& q, int u, int v) const {
    for (std::size_t b = 0; b + 1 < q.size(); ++b)
      if (q[b] == u && q[b + 1] == v) return true;
    return false;
  }

  bool conflict(const Path& p, const Path& q) const {
    for (std::size_t a = 1; a + 1 < p.size(); ++a) {
      for (std::size_t b = 1; b + 1 < q.size(); ++b)
        if (p[a] == q[b] && p[a - 1] == q[b - 1] && (fifo_ingress(p[a], p[a - 1]) || p[a + 1] == q[b + 1]))
          return true;
    }
    return false;
  }

  struct Flow {
    Path path;
    bool write = false;  // posted writes (MWr)
  };

  int users(const std::vector<Flow>& flows, int u, int v) const {
    int n = 0;
    for (const Flow& f : flows) n += uses_edge(f.path, u, v);
    return n;
  }

  // After a write's first shared link, every link is its own and no slower.
  bool write_ok(const std::vector<Flow>& flows, const Path& p) const {
    std::size_t first = 0;
    while (first + 1 < p.size() && users(flows, p[first], p[first + 1]) < 2) ++first;
    for (std::size_t a = first + 1; a + 1 < p.size(); ++a)
      if (users(flows, p[a], p[a + 1]) > 1 || speed(p[a], p[a + 1]) < 0.999 * speed(p[first], p[first + 1]))
        return false;
    return true;
  }

  bool fits(const std::vector<Flow>& add) const {
    for (const Flow& p : add)
      for (const Flow& q : taken_)
        if (conflict(p.path, q.path) || conflict(q.path, p.path)) return false;
    std::vector<Flow> all = taken_;
    all.insert(all.end(), add.begin(), add.end());
    for (const Flow& f : all)
      if (f.write && !write_ok(all, f.path)) return false;
    return true;
  }

  struct Candidate {
    int gpu, kind, peer;  // kind 0 h2d, 1 d2h, 2 p2p
  };

  std::vector<Flow> paths_of(const Candidate& c) const {
    const int g = gpus_[c.gpu];
    if (c.kind == 1) return {{tree_path(g, memory_), true}};
    if (c.kind == 2) return {{tree_path(g, gpus_[c.peer]), true}};
    if (push_.at(nodes_[g].name)) return {{tree_path(0, g), true}};  // host DMA engine in rc0
    return {{tree_path(memory_, g), false}, {tree_path(g, memory_), false}};  // CplDs, MRds
  }

  std::string app_yaml(const Candidate& c, int k) {
    const std::string size = num((1 << 20) + 4096 * pick(1792));    // 1 .. 8 MiB
    const std::string start = chance(50) ? "0" : num(pick(200001));
    std::string y = "  - {name: t" + num(k) + ", gpu: gpu" + num(c.gpu) + ", size: {fixed: " + size +
                    "}, count: 1, start_ns: " + start;
    if (mixed_) y += ", tc: " + num(pick(8));
    if (c.kind == 2) return y + ", type: peer, peer: gpu" + num(c.peer) + "}\n";
    return y + ", type: stream, direction: " + (c.kind == 0 ? "h2d" : "d2h") + "}\n";
  }

  void make_transfers() {
    mps_ = chance(50) ? 128 : 256;
    mrrs_ = 256 << pick(3);
    for (int g : gpus_) push_[nodes_[g].name] = chance(25);
    std::vector<Candidate> cands;
    const int n = static_cast<int>(gpus_.size());
    for (int g = 0; g < n; ++g)
      for (int kind = 0; kind < 3; ++kind) cands.push_back({g, kind, (g + 1 + pick(n - 1)) % n});
    std::shuffle(cands.begin(), cands.end(), rng_);
    apps_ = "apps:\n";
    for (const Candidate& c : cands) {
      const std::vector<Flow> paths = paths_of(c);
      if (transfers_ == 6 || (!mixed_ && !fits(paths))) continue;
      taken_.insert(taken_.end(), paths.begin(), paths.end());
      apps_ += app_yaml(c, transfers_++);
    }
  }

  std::mt19937_64 rng_;
  std::vector<TreeNode> nodes_;
  std::vector<int> gpus_;
  int memory_ = -1, mps_ = 256, mrrs_ = 512, transfers_ = 0;
  bool mixed_ = false;
  std::map<std::string, bool> push_;
  std::vector<Flow> taken_;
  std::string platform_, apps_;
};

}  // namespace flowtest
