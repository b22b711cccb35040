// Base of every node in the fabric (switch, root-complex crossbar, endpoint): a set of
// ports, each an EgressPort (transmit) plus a TLM target socket (receive) bound to the
// peer's EgressPort. Ports are added by the platform builder during elaboration.
#pragma once
#include <memory>
#include <string>
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>
#include "models/pcie/egress_port.h"

namespace arbsim {

// One port as the builder describes it. SystemC creates sockets only while a module is
// being constructed, so a node receives all its ports in its constructor.
struct PortSpec {
  EgressConfig egress;   // egress.slots: requesters the port arbiter serves
  IngressConfig ingress;
  std::string peer;      // the node at the other end (names the port)
};

class FabricNode : public sc_core::sc_module {
 public:
  using TargetSocket = tlm_utils::simple_target_socket_tagged<FabricNode>;

  FabricNode(sc_core::sc_module_name name, const std::vector<PortSpec>& ports);

  int ports() const { return static_cast<int>(egress_.size()); }
  EgressPort& egress(int p) { return *egress_[p]; }
  TargetSocket& target(int p) { return *in_[p]; }
  const std::string& peer_name(int p) const { return peer_names_[p]; }
  virtual void trace(sc_core::sc_trace_file* tf);

 protected:
  // A TLP arrived on `port` (x.head_at / x.tail_at / x.in_vc are set by the sender).
  virtual void accept(Tlp* t, int port) = 0;
  const IngressConfig& ingress(int p) const { return ingress_[p]; }
  // The buffer space `t` held on `port` is free (`after` from now): send its credits back.
  void return_credits(int port, Tlp* t, const sc_core::sc_time& after = sc_core::SC_ZERO_TIME);

 private:
  tlm::tlm_sync_enum nb_transport_fw(int port, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                     sc_core::sc_time& delay);
  std::vector<std::unique_ptr<EgressPort>> egress_;
  std::vector<std::unique_ptr<TargetSocket>> in_;
  std::vector<IngressConfig> ingress_;
  std::vector<sc_core::sc_time> credit_return_;  // per port, converted once
  std::vector<std::string> peer_names_;
};

// Address map (docs/architecture.md): endpoint k (0-based, in the builder's depth-first
// order) owns BAR/memory window [(k+1) << 40, (k+2) << 40) and requester ID k+1, so every
// subtree covers one contiguous range of both, as a PCIe enumeration assigns them.
constexpr int kAddressShift = 40;
inline uint64_t endpoint_base_address(int k) { return static_cast<uint64_t>(k + 1) << kAddressShift; }
inline uint16_t endpoint_requester_id(int k) { return static_cast<uint16_t>(k + 1); }
inline int destination_endpoint(const TlpExtension& x) {
  return id_routed(x.type) ? x.requester_id - 1 : static_cast<int>(x.address >> kAddressShift) - 1;
}

}  // namespace arbsim
