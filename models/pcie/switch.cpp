#include "models/pcie/switch.h"
#include <algorithm>

namespace arbsim {

using sc_core::sc_time;

Switch::Switch(sc_core::sc_module_name name, const SwitchParams& p, const std::vector<PortSpec>& ports)
    : FabricNode(name, ports), params_(p), latency_(p.latency_ns * 1000.0, sc_core::SC_PS) {
  ingress_.resize(ports.size());
  for (std::size_t port = 0; port < ports.size(); ++port) {
    const int per_vc = ports[port].ingress.voq ? static_cast<int>(ports.size()) : 1;
    for (int v = 0; v < ports[port].ingress.vcs; ++v)
      for (int e = 0; e < per_vc; ++e)
        ingress_[port].push_back(std::make_unique<TlpQueue>(this, static_cast<int>(port), v));
  }
}

TlpQueue& Switch::queue_for(int port, const TlpExtension& x) {
  if (!ingress(port).voq) return *ingress_[port][x.in_vc];
  return *ingress_[port][x.in_vc * ports() + route(x)];
}

void Switch::set_routes(std::vector<Route> routes, int default_port) {
  routes_ = std::move(routes);
  default_port_ = default_port;
}

// Downstream windows first, then the upstream (default) port: the base/limit decode a
// PCIe switch does (PCIe Base Spec §7.5.1.3), over the builder's contiguous numbering.
int Switch::route(const TlpExtension& x) const {
  const int dst = destination_endpoint(x);
  for (const Route& r : routes_)
    if (dst >= r.lo && dst < r.hi) return r.port;
  if (default_port_ < 0)
    SC_REPORT_ERROR("arbsim/switch", (std::string(name()) + ": no route to endpoint " +
                                      std::to_string(dst)).c_str());
  return default_port_;
}

void Switch::accept(Tlp* t, int port) {
  TlpExtension& x = t->x();
  x.ready_at = (params_.store_and_forward ? x.tail_at : x.head_at) + latency_;
  x.tail_ready_at = x.tail_at + latency_;  // bytes cross the node in `latency`, the tail too
  TlpQueue& q = queue_for(port, x);
  q.push(t);
  if (q.size() == 1) present(q);
}

void Switch::present(TlpQueue& q) {
  TlpExtension& x = q.front()->x();
  x.head_since = std::max(sc_core::sc_time_stamp(), x.ready_at);
  egress(route(x)).offer(q);
}

void Switch::on_pop(TlpQueue& q, Tlp* t) {
  return_credits(q.slot(), t);
  if (!q.empty()) present(q);
}

void Switch::trace(sc_core::sc_trace_file* tf) {
  FabricNode::trace(tf);
  for (std::size_t p = 0; p < ingress_.size(); ++p)
    for (std::size_t q = 0; q < ingress_[p].size(); ++q) {
      const TlpQueue& tq = *ingress_[p][q];
      std::string n = std::string(name()) + ".from_" + peer_name(static_cast<int>(p)) + ".vc" + std::to_string(tq.sub());
      if (ingress(static_cast<int>(p)).voq) n += ".to_" + peer_name(static_cast<int>(q) % ports());
      sc_core::sc_trace(tf, tq.occupancy, n + ".queue");
    }
}

}  // namespace arbsim
