// The scenario as a flow network (models/flow/flow_network.h): site i is flow node i, and
// walk direction k is edge k, with the rate, latency and TLP overheads the packet model's
// egress port serialises with (docs/link-model.md). The flow-level fabric simulates on it;
// the batch model predicts on it. No SystemC.
#pragma once
#include <optional>
#include <vector>
#include "models/flow/edge_share.h"
#include "models/flow/flow_network.h"
#include "platforms/topology/scenario.h"

namespace arbsim {

struct FlowGraph {
  flow::Network net;                   // nodes = Scenario::sites, edges = Scenario::walk
  std::vector<int> node_of_endpoint;   // [endpoint index] its flow node
};

FlowGraph build_flow_graph(const Scenario& s);
flow::FabricParams flow_fabric_params(const PlatformCfg& pf);

// How the flow mode divides a link as an arbiter of `spec` grants (models/flow/edge_share.h):
// rr an even share, wrr shares by weight (phases counted), strict by priority, and a
// starvation guard's floor.
flow::SharePolicy share_policy(const ArbiterSpec& spec);
// Every walk direction's arbitration in the flow mode's terms: its VC arbiter (or
// `vc_arbiter`, the driver policy's, at every egress), port arbiter and TC/VC map.
std::vector<flow::EdgeArbitration> flow_arbitration(const Scenario& s, const std::optional<ArbiterSpec>& vc_arbiter);

}  // namespace arbsim
