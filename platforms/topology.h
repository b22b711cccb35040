// The platform as a graph: ports of every node in a fixed order, the tree's parent links,
// and the endpoint numbering that gives each subtree one contiguous range (the numbering
// address windows and requester IDs follow: models/pcie/fabric_node.h).
#pragma once
#include <string>
#include <vector>
#include "platforms/config.h"
#include "models/pcie/link_direction.h"
#include "platforms/config_reader.h"

namespace arbsim {

struct PortRef {
  int link = -1;        // index into PlatformCfg::links; -1 = a root complex's memory port
  bool upward = false;  // this port sends up the tree (toward the root)
  int peer = -1;        // node index at the other end (-1: memory)
};

struct Topology {
  std::vector<std::vector<PortRef>> ports;  // [node] in port order: links in file order, memory last
  std::vector<int> parent;                  // [node] parent node or -1
  std::vector<int> endpoint_of_node;        // [node] endpoint index of a GPU, or of a RC's memory
  std::vector<int> subtree_begin;           // [node] first endpoint index in its subtree
  std::vector<int> subtree_end;             // [node] one past the last endpoint index below it
  std::vector<int> root_of;                 // [node] root complex at the top of its tree
  std::vector<int> host_of;                 // [node] nearest root complex at or above it (its socket)
  int endpoints = 0;
  int gpus = 0;
};

int node_index(const PlatformCfg& pf, const std::string& name);
// Validates the graph (throws ConfigError through `r`) and returns it.
Topology build_topology(const Reader& r, const PlatformCfg& pf);
// `links`: the readers the links were parsed with (errors in keys a link inherited from
// `defaults.link` are reported there).
void check_topology(const Reader& r, const PlatformCfg& pf, const std::vector<Reader>& links);
// The arbitration at the egress that sends over `link` upward (or downward).
ArbitrationCfg effective_arbitration(const PlatformCfg& pf, const LinkCfg& link, bool upward);
// Host DMA engines of a root complex: one per GPU of its tree (at least one), so any
// socket's memory can be pushed to any GPU it reaches.
int host_dma_engines(const PlatformCfg& pf, const Topology& topo, int rc);
// The engine index, in every root complex of its tree, that pushes to `gpu`.
int host_dma_slot(const PlatformCfg& pf, const Topology& topo, int gpu);
// Root complexes in node order (a root complex's ordinal is its index here).
std::vector<int> root_complexes(const PlatformCfg& pf);
// The ordinal of root complex `node` (its index in root_complexes()).
int rc_ordinal(const PlatformCfg& pf, int node);
// The top of `node`'s tree, following upstream links (for checks that run without a Topology).
int tree_root(const PlatformCfg& pf, int node);
// One direction of a link: a raw link's rate, or a PCIe link's TLP bandwidth lowered to
// its `max_up_GBps` / `max_down_GBps` cap (docs/config.md, "Effective-bandwidth caps").
LinkDirection link_direction(const PlatformCfg& pf, const LinkCfg& link, bool upward);
// Requesters each egress port of `node` arbitrates among: a switch's ports; a root
// complex's ports (its memory port last) then its host DMA engines; a GPU's completer
// then its copy engines.
int arbitration_slots(const PlatformCfg& pf, const Topology& topo, int node);
// What requests at each of those slots, for results.json: a switch's or root complex's
// ingress ports by their peer ("sw0", "rc0_memory"), a root complex's host DMA engines by
// the GPU they push to ("dma_gpu2"), a GPU's completer and copy engines ("completer", "ce0").
std::vector<std::string> requester_names(const PlatformCfg& pf, const Topology& topo, int node);

}  // namespace arbsim
