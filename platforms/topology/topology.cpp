#include "platforms/topology/topology.h"
#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include "models/pcie/arbiters/arbiter.h"

namespace arbsim {

namespace {

int find_root(std::vector<int>& uf, int x) {
  while (uf[x] != x) x = uf[x] = uf[uf[x]];
  return x;
}

// A root complex (a CPU socket: seed 002 §2.1) hangs below another only through the
// processor interconnect, an inter-socket link (QPI/UPI), which carries no PCIe TLP framing.
void check_socket_link(const PlatformCfg& pf, const LinkCfg& l, int up) {
  const NodeCfg& u = pf.nodes[up];
  if (!u.is(NodeKind::RootComplex))
    l.origin.fail("down", "root complex '" + l.down + "' can only be below another root complex (an inter-socket "
                          "link), not below " + u.type_name() + " '" + l.up + "'");
  if (!l.raw)
    l.origin.fail("down", "link " + l.up + " -> " + l.down + " joins two root complexes: an inter-socket link "
                          "(QPI/UPI) must be kind: raw");
}

void check_link_ends(const PlatformCfg& pf, Topology& t) {
  std::vector<int> uf(pf.nodes.size());
  std::iota(uf.begin(), uf.end(), 0);
  std::map<std::string, int> names;
  for (std::size_t i = 0; i < pf.links.size(); ++i) {
    const LinkCfg& l = pf.links[i];
    if (!names.emplace(l.name, static_cast<int>(i)).second) l.origin.fail("name", "duplicate link name '" + l.name + "'");
    const int u = node_index(pf, l.up), d = node_index(pf, l.down);
    if (u < 0) l.origin.fail("up", "no node named '" + l.up + "'");
    if (d < 0) l.origin.fail("down", "no node named '" + l.down + "'");
    if (u == d) l.origin.fail("down", "a link cannot connect '" + l.up + "' to itself");
    if (pf.nodes[d].is(NodeKind::RootComplex)) check_socket_link(pf, l, u);
    if (pf.nodes[u].is(NodeKind::Gpu)) l.origin.fail("up", "a GPU cannot be the upstream end of a link");
    if (pf.nodes[u].is(NodeKind::Endpoint))
      l.origin.fail("up", "a " + pf.nodes[u].type_name() + " endpoint cannot be the upstream end of a link");
    if (t.parent[d] >= 0)
      l.origin.fail("down", "'" + l.down + "' already has an upstream link (to '" + pf.nodes[t.parent[d]].name + "')");
    if (find_root(uf, u) == find_root(uf, d)) l.origin.fail("down", "link " + l.up + " -> " + l.down + " closes a cycle");
    uf[find_root(uf, u)] = find_root(uf, d);
    t.parent[d] = u;
    t.ports[u].push_back({static_cast<int>(i), false, d});
    t.ports[d].push_back({static_cast<int>(i), true, u});
  }
}

void check_nodes(const PlatformCfg& pf, const Topology& t) {
  std::map<std::string, int> seen;
  for (std::size_t i = 0; i < pf.nodes.size(); ++i) {
    const NodeCfg& n = pf.nodes[i];
    if (!seen.emplace(n.name, static_cast<int>(i)).second) n.origin.fail("name", "duplicate node name '" + n.name + "'");
    // A root complex's host memory is a SystemC module of its own, "<name>_memory".
    const int clash = n.is(NodeKind::RootComplex) ? node_index(pf, n.name + "_memory") : -1;
    if (clash >= 0)
      pf.nodes[clash].origin.fail("name", "name '" + n.name + "_memory' is reserved for the host memory of root "
                                          "complex '" + n.name + "'");
    // A GPU's compute engine is one too, "<name>_compute", and a device's behaviour
    // "<name>_device" (platforms/system.h).
    const char* suffix = n.is(NodeKind::Gpu) ? "_compute" : n.is(NodeKind::Endpoint) ? "_device" : nullptr;
    const int taken = suffix ? node_index(pf, n.name + suffix) : -1;
    if (taken >= 0)
      pf.nodes[taken].origin.fail("name", "name '" + n.name + suffix + "' is reserved for the " +
                                              (n.is(NodeKind::Gpu) ? "compute engine" : "device") + " of " +
                                              n.type_name() + " '" + n.name + "'");
    if (!n.is(NodeKind::RootComplex) && t.parent[i] < 0)
      n.origin.fail("name", "'" + n.name + "' has no upstream link to a root complex");
    if (is_leaf(n) && t.ports[i].size() != 1)
      n.origin.fail("name", (n.is(NodeKind::Gpu) ? std::string("GPU") : n.type_name()) + " '" + n.name +
                                "' must have exactly one link, has " + std::to_string(t.ports[i].size()));
    if (static_cast<int>(t.ports[i].size()) + 1 > Arbiter::kMaxRequesters)
      n.origin.fail("name", "more than " + std::to_string(Arbiter::kMaxRequesters - 1) + " ports on '" + n.name + "'");
  }
}

// Depth-first numbering from each tree's top root complex: a root complex's memory first,
// then each child's subtree. A socket below another (inter-socket link) is numbered inside
// its parent's subtree, so its memory is in the range its parent routes toward it.
void number_endpoints(const PlatformCfg& pf, Topology& t) {
  std::function<void(int, int, int)> visit = [&](int n, int root, int host) {
    const bool rc = pf.nodes[n].is(NodeKind::RootComplex);
    if (rc) host = n;
    t.root_of[n] = root;
    t.host_of[n] = host;
    t.subtree_begin[n] = t.endpoints;
    if (is_leaf(pf.nodes[n]) || rc) t.endpoint_of_node[n] = t.endpoints++;
    for (const PortRef& p : t.ports[n])
      if (p.link >= 0 && !p.upward) visit(p.peer, root, host);
    t.subtree_end[n] = t.endpoints;
  };
  for (std::size_t i = 0; i < pf.nodes.size(); ++i)
    if (pf.nodes[i].is(NodeKind::RootComplex) && t.parent[i] < 0)
      visit(static_cast<int>(i), static_cast<int>(i), static_cast<int>(i));
}

void number_kinds(const PlatformCfg& pf, Topology& t) {
  t.gpu_ordinal.assign(pf.nodes.size(), -1);
  t.rc_ordinal.assign(pf.nodes.size(), -1);
  for (std::size_t i = 0; i < pf.nodes.size(); ++i) {
    if (pf.nodes[i].is(NodeKind::Gpu)) {
      t.gpu_ordinal[i] = static_cast<int>(t.gpus.size());
      t.gpus.push_back(static_cast<int>(i));
    }
    if (pf.nodes[i].is(NodeKind::RootComplex)) {
      t.rc_ordinal[i] = static_cast<int>(t.rcs.size());
      t.rcs.push_back(static_cast<int>(i));
    }
  }
}

// Wire bytes per payload byte of the data TLP a cap is calibrated on: downward the CplDs
// of a GPU's read of host memory (H2D by device read, the default), upward the MWr of a
// D2H copy, each full size (seed 002 §4.1 measures such copies).
double cap_wire_per_payload(const PlatformCfg& pf, const PcieLinkParams& p, bool upward) {
  const int payload = upward ? pf.mps : pf.completion_bytes;
  const TlpType t = upward ? TlpType::MWr : TlpType::CplD;
  return static_cast<double>(payload + tlp_overhead_bytes(t, p)) / payload;
}

// Whether the link between a node and its parent is a processor interconnect (a raw link).
bool raw_uplink(const PlatformCfg& pf, const Topology& topo, int node) {
  for (const PortRef& p : topo.ports[node])
    if (p.upward && p.link >= 0) return pf.links[p.link].raw;
  return false;
}

}  // namespace

bool is_leaf(const NodeCfg& n) { return n.is(NodeKind::Gpu) || n.is(NodeKind::Endpoint); }

Topology build_topology(const PlatformCfg& pf) {
  Topology t;
  const std::size_t n = pf.nodes.size();
  t.ports.assign(n, {});
  t.parent.assign(n, -1);
  t.endpoint_of_node.assign(n, -1);
  t.subtree_begin.assign(n, 0);
  t.subtree_end.assign(n, 0);
  t.root_of.assign(n, -1);
  t.host_of.assign(n, -1);
  check_link_ends(pf, t);
  check_nodes(pf, t);
  for (std::size_t i = 0; i < n; ++i)
    if (pf.nodes[i].is(NodeKind::RootComplex)) t.ports[i].push_back({-1, false, -1});
  number_endpoints(pf, t);
  number_kinds(pf, t);
  if (t.gpus.empty()) pf.origin.fail("nodes", "a platform needs at least one GPU");
  return t;
}

int host_dma_engines(const Topology& topo, int rc) {
  int gpus = 0;
  for (const int g : topo.gpus) gpus += topo.root_of[g] == topo.root_of[rc];
  return std::max(1, gpus);
}

int host_dma_slot(const Topology& topo, int gpu) {
  int slot = 0;
  for (const int g : topo.gpus) slot += g < gpu && topo.root_of[g] == topo.root_of[gpu];
  return slot;
}

bool same_pcie_domain(const PlatformCfg& pf, const Topology& topo, int a, int b) {
  std::vector<int> above_a;
  for (int n = a; n >= 0; n = topo.parent[n]) above_a.push_back(n);
  int lca = b;
  while (lca >= 0 && std::find(above_a.begin(), above_a.end(), lca) == above_a.end()) lca = topo.parent[lca];
  if (lca < 0) return false;  // different trees
  for (int n : {a, b})
    for (; n != lca; n = topo.parent[n])
      if (raw_uplink(pf, topo, n)) return false;
  return true;
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

}  // namespace arbsim
