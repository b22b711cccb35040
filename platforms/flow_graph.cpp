#include "platforms/flow_graph.h"

namespace arbsim {

namespace {

flow::Node node_of(const NodeCfg& nc) {
  flow::Node n;
  if (nc.type == "gpu") {
    n.read_latency_ns = nc.read_latency_ns;  // a GPU as completer (peer reads)
  } else {
    n.latency_ns = nc.latency_ns;            // a switch's, I/O hub's or root complex's crossbar
    n.store_and_forward = nc.store_and_forward;
  }
  return n;
}

flow::Edge edge_of(const LinkDirection& d, int from, int to) {
  flow::Edge e;
  e.from = from;
  e.to = to;
  e.bytes_per_ns = d.gbytes_per_s;  // wire bytes per ns, as the egress port serialises them
  e.propagation_ns = d.propagation_ns;
  e.overhead = d.overhead;          // all 0 on a raw link
  return e;
}

// The memory port: a raw link at the memory bandwidth, no latency, all TCs on their own
// VCs (as Platform's memory_port_config builds it for the packet model).
FlowEdgeVcs memory_vcs() {
  FlowEdgeVcs v;
  v.vcs = kMaxVcs;
  for (int tc = 0; tc < kNumTcs; ++tc) v.tc_to_vc[tc] = static_cast<uint8_t>(tc);
  return v;
}

struct Builder {
  const PlatformCfg& pf;
  const Topology& topo;
  FlowGraph g;
  std::vector<int> memory_node;  // [config node] its host memory's flow node, or -1

  void add(const flow::Edge& e, const FlowEdgeVcs& vcs, FlowLink name) {
    name.edge = g.net.add_edge(e);
    g.vcs.push_back(vcs);
    g.links.push_back(std::move(name));
  }

  void add_memory_port(int i) {
    const NodeCfg& nc = pf.nodes[i];
    const LinkDirection reads = LinkDirection::make_raw(nc.memory_GBps, 0);
    const LinkDirection writes = LinkDirection::make_raw(nc.memory_write_GBps, 0);
    const std::string link = nc.name + ".memory", mem = nc.name + "_memory";
    add(edge_of(writes, i, memory_node[i]), memory_vcs(), {link, "to_memory", nc.name, mem});
    add(edge_of(reads, memory_node[i], i), memory_vcs(), {link, "from_memory", mem, nc.name});
  }

  void add_link(const PortRef& pr, int i) {
    const LinkCfg& l = pf.links[pr.link];
    const FlowEdgeVcs vcs{l.vcs, l.tc_to_vc};
    add(edge_of(link_direction(pf, l, false), i, pr.peer), vcs, {l.name, "down", l.up, l.down});
    add(edge_of(link_direction(pf, l, true), pr.peer, i), vcs, {l.name, "up", l.down, l.up});
  }

  void add_nodes() {
    const int n = static_cast<int>(pf.nodes.size());
    for (int i = 0; i < n; ++i) g.net.add_node(node_of(pf.nodes[i]));
    memory_node.assign(n, -1);
    for (int i = 0; i < n; ++i)
      for (const PortRef& pr : topo.ports[i])
        if (pr.link < 0) {
          flow::Node m;
          m.read_latency_ns = pf.nodes[i].memory_read_latency_ns;
          memory_node[i] = g.net.add_node(m);
        }
  }

  // Each link once, from its upper end, in Platform::bind_ports's order.
  void add_edges() {
    for (int i = 0; i < static_cast<int>(pf.nodes.size()); ++i)
      for (const PortRef& pr : topo.ports[i]) {
        if (pr.link < 0) add_memory_port(i);
        else if (!pr.upward) add_link(pr, i);
      }
  }

  void number_endpoints() {
    g.node_of_endpoint.assign(topo.endpoints, -1);
    for (int i = 0; i < static_cast<int>(pf.nodes.size()); ++i) {
      const int k = topo.endpoint_of_node[i];
      if (k >= 0) g.node_of_endpoint[k] = pf.nodes[i].type == "gpu" ? i : memory_node[i];
    }
  }
};

}  // namespace

FlowGraph build_flow_graph(const PlatformCfg& pf, const Topology& topo) {
  Builder b{pf, topo, {}, {}};
  b.add_nodes();
  b.add_edges();
  b.number_endpoints();
  return std::move(b.g);
}

flow::FabricParams flow_fabric_params(const PlatformCfg& pf) {
  return flow::FabricParams{pf.mps, pf.mrrs, pf.completion_bytes};
}

}  // namespace arbsim
