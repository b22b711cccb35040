// The platform as a graph, checked: every node's ports in a fixed order, the tree's parent
// links, and the endpoint numbering that gives each subtree one contiguous range (the
// numbering address windows, requester IDs and routes follow: models/pcie/fabric_node.h).
// build_topology() makes the checks across the config's elements (link ends, cycles, a
// second upstream link, an endpoint's single link, at least one GPU, reserved names) and
// reports each through the element's Origin (file, line, key). No SystemC.
#pragma once
#include <string>
#include <vector>
#include "models/pcie/link_direction.h"
#include "platforms/config/config.h"

namespace arbsim {

struct PortRef {
  int link = -1;        // index into PlatformCfg::links; -1 = a root complex's memory port
  bool upward = false;  // this port sends up the tree (toward the root)
  int peer = -1;        // node index at the other end (-1: memory)
};

struct Topology {
  std::vector<std::vector<PortRef>> ports;  // [node] in port order: links in file order, memory last
  std::vector<int> parent;                  // [node] parent node or -1
  std::vector<int> endpoint_of_node;        // [node] endpoint index of a GPU or device, or of a RC's memory
  std::vector<int> subtree_begin;           // [node] first endpoint index in its subtree
  std::vector<int> subtree_end;             // [node] one past the last endpoint index below it
  std::vector<int> root_of;                 // [node] root complex at the top of its tree
  std::vector<int> host_of;                 // [node] nearest root complex at or above it (its socket)
  std::vector<int> gpus;                    // [GPU ordinal] node: GPUs in config order (the driver's numbering)
  std::vector<int> gpu_ordinal;             // [node] its GPU ordinal, or -1
  std::vector<int> rcs;                     // [root-complex ordinal] node, in config order
  std::vector<int> rc_ordinal;              // [node] its root-complex ordinal, or -1
  int endpoints = 0;
};

// Checks the graph (throws ConfigError naming the element) and numbers it.
Topology build_topology(const PlatformCfg& pf);

// A node with exactly one link and no crossbar: a GPU or a registered endpoint type.
bool is_leaf(const NodeCfg& n);
// Host DMA engines of a root complex: one per GPU of its tree (at least one), so any
// socket's memory can be pushed to any GPU it reaches.
int host_dma_engines(const Topology& topo, int rc);
// The engine index, in every root complex of its tree, that pushes to `gpu`.
int host_dma_slot(const Topology& topo, int gpu);
// Whether the route between two nodes stays on PCIe: it climbs to their lowest common
// ancestor without crossing a processor interconnect (a raw link). Seed 002 §2.1: PCIe
// domains are bridged by the I/O hubs; GPUs in different domains copy through host memory.
bool same_pcie_domain(const PlatformCfg& pf, const Topology& topo, int a, int b);
// One direction of a link: a raw link's rate, or a PCIe link's TLP bandwidth lowered to
// its `max_up_GBps` / `max_down_GBps` cap (docs/config.md, "Effective-bandwidth caps").
LinkDirection link_direction(const PlatformCfg& pf, const LinkCfg& link, bool upward);

}  // namespace arbsim
