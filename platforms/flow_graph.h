// The platform as the flow-level mode's graph (sim.fidelity: flow): config node i is flow
// node i, each root complex's host memory one more node; one edge per link direction and
// per memory-port direction, with the rates, latencies and TLP overheads the packet model
// gives the same link (link_direction(), docs/link-model.md), and each edge named as
// results.json names the packet model's egress port, in the same order.
#pragma once
#include <string>
#include <vector>
#include "models/flow/flow_fabric.h"
#include "models/flow/flow_network.h"
#include "platforms/config.h"
#include "platforms/topology.h"

namespace arbsim {

struct FlowLink {
  std::string link, direction, from, to;
  int edge = -1;
};

struct FlowGraph {
  flow::Network net;
  std::vector<FlowEdgeVcs> vcs;        // [edge]
  std::vector<int> node_of_endpoint;   // [endpoint index] flow node (a GPU, or a host memory)
  std::vector<FlowLink> links;         // as Platform::bind_ports lists the packet model's ports
};

FlowGraph build_flow_graph(const PlatformCfg& pf, const Topology& topo);
flow::FabricParams flow_fabric_params(const PlatformCfg& pf);

}  // namespace arbsim
