#include "models/pcie/fabric_node.h"

namespace arbsim {

FabricNode::FabricNode(sc_core::sc_module_name name, const std::vector<PortSpec>& ports)
    : sc_core::sc_module(name) {
  for (std::size_t p = 0; p < ports.size(); ++p) {
    const PortSpec& s = ports[p];
    egress_.push_back(std::make_unique<EgressPort>(("to_" + s.peer).c_str(), s.egress));
    in_.push_back(std::make_unique<TargetSocket>(("from_" + s.peer).c_str()));
    in_.back()->register_nb_transport_fw(this, &FabricNode::nb_transport_fw, static_cast<int>(p));
    ingress_.push_back(s.ingress);
    credit_return_.emplace_back(s.ingress.credit_return_ns * 1000.0, sc_core::SC_PS);
    peer_names_.push_back(s.peer);
  }
}

tlm::tlm_sync_enum FabricNode::nb_transport_fw(int port, tlm::tlm_generic_payload& gp,
                                               tlm::tlm_phase& ph, sc_core::sc_time& /*delay*/) {
  sc_assert(ph == tlm::BEGIN_REQ);
  (void)ph;
  accept(as_tlp(gp), port);
  return tlm::TLM_ACCEPTED;
}

void FabricNode::return_credits(int port, Tlp* t, const sc_core::sc_time& after) {
  sc_core::sc_time delay = credit_return_[port] + after;
  tlm::tlm_phase ph = tlm::END_REQ;
  (*in_[port])->nb_transport_bw(*t, ph, delay);
}

void FabricNode::trace(sc_core::sc_trace_file* tf) {
  for (int p = 0; p < ports(); ++p) egress_[p]->trace(tf, std::string(name()) + ".to_" + peer_names_[p]);
}

}  // namespace arbsim
