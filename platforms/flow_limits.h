// What a config asks that the flow-level mode (sim.fidelity: flow) cannot represent. The
// flow mode shares every link max-min per flow (docs/architecture.md, "Flow-level mode"):
// it has no VC arbitration, no port arbitration other than an even share, no starvation
// guard. Where a config sets one of these and traffic can reach it, the run says so: a
// warning in the log and one entry per setting in results.json `fidelity_notes`, so a
// number from the flow mode is never silently the answer to another question.
#pragma once
#include <string>
#include <vector>
#include "platforms/config.h"
#include "platforms/topology.h"

namespace arbsim {

struct FidelityNote {
  std::string where;    // the egress, e.g. "sw0->rc0", or "driver"
  std::string setting;  // what the config asks, e.g. "vc_arbiter strict+starve(8)"
  std::string effect;   // what the flow mode does instead
};

// The settings of `cfg` the flow mode ignores (empty for a config it represents, and for
// the packet mode, which represents all of them).
std::vector<FidelityNote> flow_fidelity_notes(const Config& cfg, const Topology& topo);

}  // namespace arbsim
