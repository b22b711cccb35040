#include "platforms/flow_level_fabric.h"
#include "platforms/topology/flow_graph.h"

namespace arbsim {

FlowLevelFabric::FlowLevelFabric(const Scenario& s, const FabricOptions& o, TransferTracker& tracker)
    : notes_(flow_fidelity_notes(s, o.vc_arbiter)) {
  FlowGraph g = build_flow_graph(s);
  std::vector<FlowEdgeVcs> vcs;
  for (const LinkDir& d : s.walk) vcs.push_back({d.egress.vcs, d.egress.tc_to_vc});
  fabric_ = std::make_unique<FlowFabric>("flow_fabric", std::move(g.net), flow_fabric_params(s.platform()),
                                         std::move(vcs), std::move(g.node_of_endpoint), tracker);
  // A config node is the flow node of the same index (flow_graph.h).
  for (const EngineSlot& e : s.engines) engines_.push_back(std::make_unique<FlowEngine>(*fabric_, e.node, e.tags));
}

}  // namespace arbsim
