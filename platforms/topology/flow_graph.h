// The scenario as a flow network (models/flow/flow_network.h): site i is flow node i, and
// walk direction k is edge k, with the rate, latency and TLP overheads the packet model's
// egress port serialises with (docs/link-model.md). The flow-level fabric simulates on it;
// the batch model predicts on it. No SystemC.
#pragma once
#include <vector>
#include "models/flow/flow_network.h"
#include "platforms/topology/scenario.h"

namespace arbsim {

struct FlowGraph {
  flow::Network net;                   // nodes = Scenario::sites, edges = Scenario::walk
  std::vector<int> node_of_endpoint;   // [endpoint index] its flow node
};

FlowGraph build_flow_graph(const Scenario& s);
flow::FabricParams flow_fabric_params(const PlatformCfg& pf);

}  // namespace arbsim
