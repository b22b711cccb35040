#include "platforms/topology/flow_graph.h"

namespace arbsim {

namespace {

// A GPU or a host memory completes reads after its read latency; a crossbar forwards.
flow::Node node_of(const PlatformCfg& pf, const Site& site) {
  const NodeCfg& nc = pf.nodes[site.node];
  flow::Node n;
  if (site.memory) {
    n.read_latency_ns = nc.memory.read_latency_ns;
  } else if (nc.is(NodeKind::Gpu)) {
    n.read_latency_ns = nc.gpu.read_latency_ns;  // a GPU as completer (peer reads)
  } else if (!is_leaf(nc)) {
    n.latency_ns = nc.crossbar.latency_ns;      // a switch's, I/O hub's or root complex's crossbar
    n.store_and_forward = nc.crossbar.store_and_forward;
  }
  return n;
}

flow::Edge edge_of(const LinkDir& d) {
  flow::Edge e;
  e.from = d.from_site;
  e.to = d.to_site;
  e.bytes_per_ns = d.egress.link.gbytes_per_s;  // wire bytes per ns, as the egress port serialises them
  e.propagation_ns = d.egress.link.propagation_ns;
  e.overhead = d.egress.link.overhead;          // all 0 on a raw link
  return e;
}

}  // namespace

FlowGraph build_flow_graph(const Scenario& s) {
  FlowGraph g;
  for (const Site& site : s.sites) g.net.add_node(node_of(s.platform(), site));
  for (const LinkDir& d : s.walk) g.net.add_edge(edge_of(d));
  g.node_of_endpoint.assign(s.topo.endpoints, -1);
  for (std::size_t i = 0; i < s.sites.size(); ++i)
    if (s.sites[i].endpoint >= 0) g.node_of_endpoint[s.sites[i].endpoint] = static_cast<int>(i);
  return g;
}

flow::FabricParams flow_fabric_params(const PlatformCfg& pf) {
  return flow::FabricParams{pf.mps, pf.mrrs, pf.completion_bytes};
}

}  // namespace arbsim
