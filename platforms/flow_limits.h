// What a config asks that the flow-level mode (sim.fidelity: flow) cannot represent. The
// flow mode shares every link max-min per flow (docs/architecture.md, "Flow-level mode"):
// it has no VC arbitration, no port arbitration other than an even share, no starvation
// guard. Where a config sets one of these and traffic can reach it, the run says so: a
// warning in the log and one entry per setting in results.json `fidelity_notes`, so a
// number from the flow mode is never silently the answer to another question.
#pragma once
#include <optional>
#include <string>
#include <vector>
#include "platforms/topology/scenario.h"

namespace arbsim {

struct FidelityNote {
  std::string where;    // the egress, e.g. "sw0->rc0", or "driver"
  std::string setting;  // what the config asks, e.g. "vc_arbiter strict+starve(8)"
  std::string effect;   // what the flow mode does instead
};

// The settings of the scenario the flow mode ignores (empty for one it represents).
// `vc_arbiter`: the one the driver's policy sets at every egress, if it sets one.
std::vector<FidelityNote> flow_fidelity_notes(const Scenario& s, const std::optional<ArbiterSpec>& vc_arbiter);

}  // namespace arbsim
