#include "platforms/topology.h"
#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

namespace arbsim {

int node_index(const PlatformCfg& pf, const std::string& name) {
  for (std::size_t i = 0; i < pf.nodes.size(); ++i)
    if (pf.nodes[i].name == name) return static_cast<int>(i);
  return -1;
}

namespace {

int find_root(std::vector<int>& uf, int x) {
  while (uf[x] != x) x = uf[x] = uf[uf[x]];
  return x;
}

// A root complex (a CPU socket: seed 002 §2.1) hangs below another only through the
// processor interconnect, an inter-socket link (QPI/UPI), which carries no PCIe TLP framing.
void check_socket_link(const Reader& lr, const PlatformCfg& pf, const LinkCfg& l, int up) {
  if (pf.nodes[up].type != "root_complex")
    lr.fail("down", "root complex '" + l.down + "' can only be below another root complex (an inter-socket "
                    "link), not below " + pf.nodes[up].type + " '" + l.up + "'");
  if (!l.raw)
    lr.fail("down", "link " + l.up + " -> " + l.down + " joins two root complexes: an inter-socket link "
                    "(QPI/UPI) must be kind: raw");
}

void check_link_ends(const Reader& r, const PlatformCfg& pf, Topology& t) {
  const std::vector<Reader> links = r.list("links");
  std::vector<int> uf(pf.nodes.size());
  std::iota(uf.begin(), uf.end(), 0);
  std::map<std::string, int> names;
  for (std::size_t i = 0; i < pf.links.size(); ++i) {
    const LinkCfg& l = pf.links[i];
    const Reader& lr = links[i];
    if (!names.emplace(l.name, static_cast<int>(i)).second) lr.fail("name", "duplicate link name '" + l.name + "'");
    const int u = node_index(pf, l.up), d = node_index(pf, l.down);
    if (u < 0) lr.fail("up", "no node named '" + l.up + "'");
    if (d < 0) lr.fail("down", "no node named '" + l.down + "'");
    if (u == d) lr.fail("down", "a link cannot connect '" + l.up + "' to itself");
    if (pf.nodes[d].type == "root_complex") check_socket_link(lr, pf, l, u);
    if (pf.nodes[u].type == "gpu") lr.fail("up", "a GPU cannot be the upstream end of a link");
    if (t.parent[d] >= 0)
      lr.fail("down", "'" + l.down + "' already has an upstream link (to '" + pf.nodes[t.parent[d]].name + "')");
    if (find_root(uf, u) == find_root(uf, d))
      lr.fail("down", "link " + l.up + " -> " + l.down + " closes a cycle");
    uf[find_root(uf, u)] = find_root(uf, d);
    t.parent[d] = u;
    t.ports[u].push_back({static_cast<int>(i), false, d});
    t.ports[d].push_back({static_cast<int>(i), true, u});
  }
}

void check_nodes(const Reader& r, const PlatformCfg& pf, const Topology& t) {
  const std::vector<Reader> nodes = r.list("nodes");
  std::map<std::string, int> seen;
  for (std::size_t i = 0; i < pf.nodes.size(); ++i) {
    const NodeCfg& n = pf.nodes[i];
    if (!seen.emplace(n.name, static_cast<int>(i)).second)
      nodes[i].fail("name", "duplicate node name '" + n.name + "'");
    // A root complex's host memory is a SystemC module of its own, "<name>_memory".
    const int clash = n.type == "root_complex" ? node_index(pf, n.name + "_memory") : -1;
    if (clash >= 0)
      nodes[clash].fail("name", "name '" + n.name + "_memory' is reserved for the host memory of root complex '" +
                                    n.name + "'");
    if (n.type != "root_complex" && t.parent[i] < 0)
      nodes[i].fail("name", "'" + n.name + "' has no upstream link to a root complex");
    if (n.type == "gpu" && t.ports[i].size() != 1)
      nodes[i].fail("name", "GPU '" + n.name + "' must have exactly one link, has " +
                                std::to_string(t.ports[i].size()));
    if (static_cast<int>(t.ports[i].size()) + 1 > Arbiter::kMaxRequesters)
      nodes[i].fail("name", "more than " + std::to_string(Arbiter::kMaxRequesters - 1) + " ports on '" + n.name + "'");
  }
}

// Depth-first numbering from each tree's top root complex: a root complex's memory first,
// then each child's subtree. A socket below another (inter-socket link) is numbered inside
// its parent's subtree, so its memory is in the range its parent routes toward it.
void number_endpoints(const PlatformCfg& pf, Topology& t) {
  std::function<void(int, int, int)> visit = [&](int n, int root, int host) {
    const bool rc = pf.nodes[n].type == "root_complex";
    if (rc) host = n;
    t.root_of[n] = root;
    t.host_of[n] = host;
    t.subtree_begin[n] = t.endpoints;
    if (pf.nodes[n].type == "gpu") {
      t.endpoint_of_node[n] = t.endpoints++;
      ++t.gpus;
    }
    if (rc) t.endpoint_of_node[n] = t.endpoints++;
    for (const PortRef& p : t.ports[n])
      if (p.link >= 0 && !p.upward) visit(p.peer, root, host);
    t.subtree_end[n] = t.endpoints;
  };
  for (std::size_t i = 0; i < pf.nodes.size(); ++i)
    if (pf.nodes[i].type == "root_complex" && t.parent[i] < 0)
      visit(static_cast<int>(i), static_cast<int>(i), static_cast<int>(i));
}

// Wire bytes per payload byte of the data TLP a cap is calibrated on: downward the CplDs
// of a GPU's read of host memory (H2D by device read, the default), upward the MWr of a
// D2H copy, each full size (seed 002 §4.1 measures such copies).
double cap_wire_per_payload(const PlatformCfg& pf, const PcieLinkParams& p, bool upward) {
  const int payload = upward ? pf.mps : pf.completion_bytes;
  const TlpType t = upward ? TlpType::MWr : TlpType::CplD;
  return static_cast<double>(payload + tlp_overhead_bytes(t, p)) / payload;
}

}  // namespace

Topology build_topology(const Reader& r, const PlatformCfg& pf) {
  Topology t;
  const std::size_t n = pf.nodes.size();
  t.ports.assign(n, {});
  t.parent.assign(n, -1);
  t.endpoint_of_node.assign(n, -1);
  t.subtree_begin.assign(n, 0);
  t.subtree_end.assign(n, 0);
  t.root_of.assign(n, -1);
  t.host_of.assign(n, -1);
  check_link_ends(r, pf, t);
  check_nodes(r, pf, t);
  for (std::size_t i = 0; i < n; ++i)
    if (pf.nodes[i].type == "root_complex") t.ports[i].push_back({-1, false, -1});
  number_endpoints(pf, t);
  return t;
}

void check_topology(const Reader& r, const PlatformCfg& pf, const std::vector<Reader>& links) {
  const Topology t = build_topology(r, pf);
  if (t.gpus == 0) r.fail("nodes", "a platform needs at least one GPU");
  for (std::size_t i = 0; i < pf.links.size(); ++i) {
    const LinkCfg& l = pf.links[i];
    for (bool up : {true, false}) {
      const ArbitrationCfg a = effective_arbitration(pf, l, up);
      const int sender = node_index(pf, up ? l.down : l.up);
      const char* key = up ? "arbitration_up" : "arbitration_down";
      try {
        make_arbiter(a.vc, l.vcs);
        make_arbiter(a.port, arbitration_slots(pf, t, sender));
      } catch (const std::invalid_argument& e) {
        links[i].fail(key, std::string("bad arbiter at '") + pf.nodes[sender].name + "' egress: " + e.what() +
                               " (VC arbiter over " + std::to_string(l.vcs) + " VCs, port arbiter over " +
                               std::to_string(arbitration_slots(pf, t, sender)) + " requesters)");
      }
    }
  }
}

ArbitrationCfg effective_arbitration(const PlatformCfg& pf, const LinkCfg& link, bool upward) {
  const std::optional<ArbitrationCfg>& own = upward ? link.arb_up : link.arb_down;
  if (own) return *own;
  const NodeCfg* sender = pf.node(upward ? link.down : link.up);
  if (sender && sender->arbitration) return *sender->arbitration;
  return pf.arbitration;
}

int host_dma_engines(const PlatformCfg& pf, const Topology& topo, int rc) {
  int gpus = 0;
  for (std::size_t n = 0; n < pf.nodes.size(); ++n)
    gpus += topo.root_of[n] == topo.root_of[rc] && pf.nodes[n].type == "gpu";
  return std::max(1, gpus);
}

int host_dma_slot(const PlatformCfg& pf, const Topology& topo, int gpu) {
  int slot = 0;
  for (int n = 0; n < gpu; ++n) slot += topo.root_of[n] == topo.root_of[gpu] && pf.nodes[n].type == "gpu";
  return slot;
}

std::vector<int> root_complexes(const PlatformCfg& pf) {
  std::vector<int> rcs;
  for (std::size_t n = 0; n < pf.nodes.size(); ++n)
    if (pf.nodes[n].type == "root_complex") rcs.push_back(static_cast<int>(n));
  return rcs;
}

// Bounded by the node count, so a cycle (rejected by the checks) cannot loop forever.
int rc_ordinal(const PlatformCfg& pf, int node) {
  const std::vector<int> rcs = root_complexes(pf);
  return static_cast<int>(std::find(rcs.begin(), rcs.end(), node) - rcs.begin());
}

int tree_root(const PlatformCfg& pf, int node) {
  for (std::size_t hops = 0; hops <= pf.nodes.size(); ++hops) {
    const auto up = std::find_if(pf.links.begin(), pf.links.end(),
                                 [&](const LinkCfg& l) { return l.down == pf.nodes[node].name; });
    if (up == pf.links.end()) return node;
    node = node_index(pf, up->up);
  }
  return node;
}

// The cap lowers the TLP rate so that full-size data TLPs carry `cap` GB/s of payload:
// rate = min(TLP_bw, cap x (payload + overhead) / payload).
LinkDirection link_direction(const PlatformCfg& pf, const LinkCfg& link, bool upward) {
  if (link.raw) return LinkDirection::make_raw(upward ? link.up_GBps : link.down_GBps, link.latency_ns);
  LinkDirection d = LinkDirection::make_pcie(link.pcie, link.latency_ns);
  const double cap = upward ? link.max_up_GBps : link.max_down_GBps;
  if (cap > 0) d.gbytes_per_s = std::min(d.gbytes_per_s, cap * cap_wire_per_payload(pf, link.pcie, upward));
  return d;
}

// Switches, I/O hubs and root complexes arbitrate among their ports (a root complex's
// memory port included); a GPU among its completer and copy engines (models/pcie/endpoint.h).
int arbitration_slots(const PlatformCfg& pf, const Topology& topo, int node) {
  const std::string& type = pf.nodes[node].type;
  if (type == "gpu") return 1 + pf.nodes[node].copy_engines;
  const int ports = static_cast<int>(topo.ports[node].size());
  return type == "root_complex" ? ports + host_dma_engines(pf, topo, node) : ports;
}

std::vector<std::string> requester_names(const PlatformCfg& pf, const Topology& topo, int node) {
  const NodeCfg& n = pf.nodes[node];
  std::vector<std::string> names;
  if (n.type == "gpu") {
    names.push_back("completer");
    for (int e = 0; e < n.copy_engines; ++e) names.push_back("ce" + std::to_string(e));
    return names;
  }
  for (const PortRef& p : topo.ports[node]) names.push_back(p.link < 0 ? n.name + "_memory" : pf.nodes[p.peer].name);
  if (n.type != "root_complex") return names;
  const std::size_t ports = names.size();
  names.resize(ports + static_cast<std::size_t>(host_dma_engines(pf, topo, node)), "dma");
  for (std::size_t g = 0; g < pf.nodes.size(); ++g)
    if (pf.nodes[g].type == "gpu" && topo.root_of[g] == topo.root_of[node])
      names[ports + static_cast<std::size_t>(host_dma_slot(pf, topo, static_cast<int>(g)))] = "dma_" + pf.nodes[g].name;
  return names;
}

const NodeCfg* PlatformCfg::node(const std::string& name) const {
  for (const NodeCfg& n : nodes)
    if (n.name == name) return &n;
  return nullptr;
}

}  // namespace arbsim
