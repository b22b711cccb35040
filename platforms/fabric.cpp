#include "platforms/fabric.h"
#include "platforms/flow_level_fabric.h"
#include "platforms/packet_fabric.h"

namespace arbsim {

std::unique_ptr<Fabric> make_fabric(const Scenario& s, const FabricOptions& o, TransferTracker& tracker) {
  switch (s.config.sim.fidelity) {
    case Fidelity::Flow: return std::make_unique<FlowLevelFabric>(s, o, tracker);
    case Fidelity::Packet: break;
  }
  return std::make_unique<PacketFabric>(s, o, tracker);
}

std::string why_not_observable(const Scenario& s) {
  switch (s.config.sim.fidelity) {
    case Fidelity::Flow:
      return "the flow fidelity moves fluid flows, not TLPs: there is nothing to trace or arbitrate "
             "(run with --fidelity packet)";
    case Fidelity::Packet: break;
  }
  return "";
}

}  // namespace arbsim
