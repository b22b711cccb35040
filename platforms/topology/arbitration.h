// Who arbitrates where: the arbiters each egress port takes from the config (its link's
// own, else its sending node's, else the platform's), how many requesters its port arbiter
// serves and what they are. check_arbitration() builds nothing: it checks every spec
// against its VC and requester counts through the catalogue's rules
// (models/pcie/arbiters/arbiter.h) and reports at the link that carries it. No SystemC.
#pragma once
#include <string>
#include <vector>
#include "platforms/config/config.h"
#include "platforms/topology/topology.h"

namespace arbsim {

// The arbitration at the egress that sends over `link` upward (or downward).
ArbitrationCfg effective_arbitration(const PlatformCfg& pf, const LinkCfg& link, bool upward);
// The arbitration of a root complex's internal memory port: round robin, in the platform's
// arbiter implementation.
ArbitrationCfg memory_port_arbitration(const PlatformCfg& pf);
// Requesters each egress port of `node` arbitrates among: a switch's ports; a root
// complex's ports (its memory port last) then its host DMA engines; an endpoint's (GPU's,
// device's) completer then its DMA engines (models/pcie/endpoint.h).
int arbitration_slots(const PlatformCfg& pf, const Topology& topo, int node);
// What requests at each of those slots, for results.json: a switch's or root complex's
// ingress ports by their peer ("sw0", "rc0_memory"), a root complex's host DMA engines by
// the GPU they push to ("dma_gpu2"), a GPU's completer and copy engines ("completer", "ce0"),
// a device's completer and engines ("completer", "dma0").
std::vector<std::string> requester_names(const PlatformCfg& pf, const Topology& topo, int node);
// Throws ConfigError at the first link whose arbiters cannot serve their egress.
void check_arbitration(const PlatformCfg& pf, const Topology& topo);

}  // namespace arbsim
