#include "platforms/topology/arbitration.h"

namespace arbsim {

ArbitrationCfg effective_arbitration(const PlatformCfg& pf, const LinkCfg& link, bool upward) {
  const std::optional<ArbitrationCfg>& own = upward ? link.arb_up : link.arb_down;
  if (own) return *own;
  const NodeCfg* sender = pf.node(upward ? link.down : link.up);
  if (sender && sender->arbitration) return *sender->arbitration;
  return pf.arbitration;
}

ArbitrationCfg memory_port_arbitration(const PlatformCfg& pf) {
  ArbitrationCfg a;
  a.vc.impl = a.port.impl = pf.arbiter_impl;
  return a;
}

int arbitration_slots(const PlatformCfg& pf, const Topology& topo, int node) {
  const NodeCfg& n = pf.nodes[node];
  if (n.is(NodeKind::Gpu)) return 1 + n.gpu.engine_count();
  if (n.is(NodeKind::Endpoint)) return 1 + n.endpoint.type->engines;
  const int ports = static_cast<int>(topo.ports[node].size());
  return n.is(NodeKind::RootComplex) ? ports + host_dma_engines(topo, node) : ports;
}

std::vector<std::string> requester_names(const PlatformCfg& pf, const Topology& topo, int node) {
  const NodeCfg& n = pf.nodes[node];
  std::vector<std::string> names;
  if (is_leaf(n)) {
    names.push_back("completer");
    const bool gpu = n.is(NodeKind::Gpu);
    if (gpu && n.gpu.instances() > 0) {  // MIG: each instance's copy engines
      for (int i = 0; i < n.gpu.instances(); ++i)
        for (int e = 0; e < n.gpu.copy_engines; ++e)
          names.push_back("mig" + std::to_string(i) + "_ce" + std::to_string(e));
      return names;
    }
    const int engines = gpu ? n.gpu.copy_engines : n.endpoint.type->engines;
    for (int e = 0; e < engines; ++e) names.push_back((gpu ? "ce" : "dma") + std::to_string(e));
    return names;
  }
  for (const PortRef& p : topo.ports[node]) names.push_back(p.link < 0 ? n.name + "_memory" : pf.nodes[p.peer].name);
  if (!n.is(NodeKind::RootComplex)) return names;
  const std::size_t ports = names.size();
  names.resize(ports + static_cast<std::size_t>(host_dma_engines(topo, node)), "dma");
  for (const int g : topo.gpus)
    if (topo.root_of[g] == topo.root_of[node])
      names[ports + static_cast<std::size_t>(host_dma_slot(topo, g))] = "dma_" + pf.nodes[g].name;
  return names;
}

void check_arbitration(const PlatformCfg& pf, const Topology& topo) {
  for (const LinkCfg& l : pf.links)
    for (const bool up : {true, false}) {
      const ArbitrationCfg a = effective_arbitration(pf, l, up);
      const int sender = node_index(pf, up ? l.down : l.up);
      const int slots = arbitration_slots(pf, topo, sender);
      std::string why = check_arbiter(a.vc, l.vcs);
      if (why.empty()) why = check_arbiter(a.port, slots);
      if (why.empty()) continue;
      // Named where it was written: the link's own key, else the sending node's
      // `arbitration`, else the platform's (the link only inherits it).
      const std::string what = "bad arbiter at '" + pf.nodes[sender].name + "' egress toward '" +
                               (up ? l.up : l.down) + "': " + why + " (VC arbiter over " + std::to_string(l.vcs) +
                               " VCs, port arbiter over " + std::to_string(slots) + " requesters)";
      const NodeCfg& from = pf.nodes[static_cast<std::size_t>(sender)];
      if (up ? l.arb_up.has_value() : l.arb_down.has_value()) l.origin.fail(up ? "arbitration_up" : "arbitration_down", what);
      if (from.arbitration) from.origin.fail("arbitration", what);
      // An RTL arbiter's limits met where no arbitration was written: the implementation
      // chosen for every arbiter (`arbiter_impl`, or --arbiter-impl rtl) is the cause.
      if (pf.arbiter_impl == "rtl" && (a.vc.impl == "rtl" || a.port.impl == "rtl"))
        pf.origin.fail("arbiter_impl", what + "; rtl is every arbiter's implementation here (arbiter_impl: rtl, "
                                              "or --arbiter-impl rtl): use cpp");
      pf.origin.fail("arbitration", what);
    }
}

}  // namespace arbsim
