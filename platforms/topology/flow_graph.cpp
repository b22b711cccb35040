#include "platforms/topology/flow_graph.h"
#include <algorithm>
#include "models/pcie/arbiters/catalogue.h"

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

// TLPs of each credit class a receiver's queue of one VC holds at most: its header credits,
// and its data credits over one TLP's (MWr of MPS, CplD of the completion size; an MRd has
// no data); infinite credits hold any number.
std::array<double, 3> buffered_tlps(const CreditLimits& c, const PlatformCfg& pf) {
  const std::array<int64_t, 3> tlp_data = {credit_cost(TlpType::MWr, static_cast<uint32_t>(pf.mps)).data, 0,
                                           credit_cost(TlpType::CplD, static_cast<uint32_t>(pf.completion_bytes)).data};
  std::array<double, 3> out{};
  for (int k = 0; k < 3; ++k) {
    double n = c.header[k] < 0 ? flow::kUnbounded : static_cast<double>(c.header[k]);
    if (c.data[k] >= 0 && tlp_data[k] > 0) n = std::min(n, static_cast<double>(c.data[k] / tlp_data[k]));
    out[k] = n;
  }
  return out;
}

flow::Edge edge_of(const LinkDir& d, const PlatformCfg& pf) {
  flow::Edge e;
  e.from = d.from_site;
  e.to = d.to_site;
  e.bytes_per_ns = d.egress.link.gbytes_per_s;  // wire bytes per ns, as the egress port serialises them
  e.propagation_ns = d.egress.link.propagation_ns;
  e.overhead = d.egress.link.overhead;          // all 0 on a raw link
  e.to_port = std::max(0, d.to_port);
  e.credit_tlps = buffered_tlps(d.egress.credits, pf);
  for (std::size_t k = 0; k < 3; ++k) {
    const CreditLimits& c = d.egress.credits;
    e.credit_headers[k] = c.header[k] < 0 ? flow::kUnbounded : static_cast<double>(c.header[k]);
    e.credit_data[k] = c.data[k] < 0 ? flow::kUnbounded : static_cast<double>(c.data[k]);
  }
  e.credit_return_ns = d.ingress.credit_return_ns;
  return e;
}

// A weighted arbiter's share per requester: its weights, or its phases counted.
std::vector<double> weights_of(const ArbiterSpec& a) {
  std::vector<double> w(a.weights.begin(), a.weights.end());
  for (const int r : a.phases) {
    if (static_cast<std::size_t>(r) >= w.size()) w.resize(static_cast<std::size_t>(r) + 1, 0.0);
    w[static_cast<std::size_t>(r)] += 1.0;
  }
  return w;
}


}  // namespace

FlowGraph build_flow_graph(const Scenario& s) {
  FlowGraph g;
  for (const Site& site : s.sites) g.net.add_node(node_of(s.platform(), site));
  for (const LinkDir& d : s.walk) g.net.add_edge(edge_of(d, s.platform()));
  g.node_of_endpoint.assign(s.topo.endpoints, -1);
  for (std::size_t i = 0; i < s.sites.size(); ++i)
    if (s.sites[i].endpoint >= 0) g.node_of_endpoint[s.sites[i].endpoint] = static_cast<int>(i);
  return g;
}

flow::SharePolicy share_policy(const ArbiterSpec& a) {
  flow::SharePolicy p;
  if (a.type == &kStrictPriorityType) p.kind = flow::ShareKind::Strict;
  if (a.type->weighted) {
    p.kind = flow::ShareKind::Weighted;
    p.weights = weights_of(a);
  }
  p.guard = a.starvation_threshold;
  return p;
}

std::vector<flow::EdgeArbitration> flow_arbitration(const Scenario& s, const std::optional<ArbiterSpec>& vc_arbiter) {
  std::vector<flow::EdgeArbitration> out;
  for (const LinkDir& d : s.walk) {
    flow::EdgeArbitration a;
    a.vc = share_policy(vc_arbiter ? *vc_arbiter : d.egress.vc_arbiter);
    a.port = share_policy(d.egress.port_arbiter);
    a.tc_to_vc = d.egress.tc_to_vc;
    a.buffered = buffered_tlps(d.egress.credits, s.platform());
    a.fifo_ingress = !d.ingress.voq;
    out.push_back(std::move(a));
  }
  return out;
}

flow::FabricParams flow_fabric_params(const PlatformCfg& pf) {
  return flow::FabricParams{pf.mps, pf.mrrs, pf.completion_bytes};
}

}  // namespace arbsim
