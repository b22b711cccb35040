// A PCIe switch (and the crossbar of a root complex): per ingress port and VC a buffer,
// routing of address-routed requests and ID-routed completions from tables the builder
// fills from the topology, and per egress port the VC and port arbiters (EgressPort).
// Forwarding is cut-through by default with a fixed latency (docs/pcie-reference.md §5: 100-150 ns
// for PLX/Broadcom parts); store-and-forward waits for the tail first.
#pragma once
#include <vector>
#include "models/pcie/fabric_node.h"
#include "models/pcie/fabric_params.h"

namespace arbsim {

class Switch : public FabricNode, public QueueOwner {
 public:
  Switch(sc_core::sc_module_name name, const SwitchParams& p, const std::vector<PortSpec>& ports);
  void set_routes(std::vector<Route> routes, int default_port);
  int route(const TlpExtension& x) const;
  void trace(sc_core::sc_trace_file* tf) override;

 protected:
  void accept(Tlp* t, int port) override;
  void on_pop(TlpQueue& q, Tlp* t) override;

 private:
  void present(TlpQueue& q);
  TlpQueue& queue_for(int port, const TlpExtension& x);
  SwitchParams params_;
  sc_core::sc_time latency_;  // params_.latency_ns, converted once
  // [port][vc] for FIFO ports; [port][vc * ports + egress] for VOQ ports.
  std::vector<std::vector<std::unique_ptr<TlpQueue>>> ingress_;
  std::vector<Route> routes_;
  int default_port_ = -1;
};

}  // namespace arbsim
