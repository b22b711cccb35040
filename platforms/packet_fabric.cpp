#include "platforms/packet_fabric.h"
#include <cmath>
#include "models/pcie/endpoint.h"
#include "models/pcie/root_complex.h"
#include "models/pcie/switch.h"
#include "models/pcie/tc_vc_map.h"
#include "platforms/topology/arbitration.h"

namespace arbsim {

PacketFabric::PacketFabric(const Scenario& s, const FabricOptions& o, TransferTracker& tracker)
    : s_(s), options_(o), tracker_(tracker) {
  sites_.assign(s.sites.size(), nullptr);
  for (std::size_t i = 0; i < s.platform().nodes.size(); ++i) make_site(static_cast<int>(i));
  for (const LinkDir& d : s.walk) bind(d);
  for (std::size_t i = 0; i < s.sites.size(); ++i)
    if (auto* sw = dynamic_cast<Switch*>(sites_[i])) sw->set_routes(s.sites[i].routes, s.sites[i].default_port);
  collect_engines();
  if (o.observe.any()) observe(o.observe);
}

// The transaction trace, the detectors or both watch the link directions whose names match
// the filter, over the window (docs/observability.md).
void PacketFabric::observe(const ObserveOptions& o) {
  if (o.on) observer_ = std::make_unique<TransactionTrace>(o);
  if (o.detect) detectors_ = std::make_unique<Detectors>(o.starvation_bound_ns);
  EgressObserver* to = observer_ ? static_cast<EgressObserver*>(observer_.get()) : detectors_.get();
  if (observer_ && detectors_) {
    both_.add(observer_.get());
    both_.add(detectors_.get());
    to = &both_;
  }
  const auto at = [](double ns) { return sc_core::sc_time::from_value(static_cast<uint64_t>(std::llround(ns * 1000.0))); };
  const sc_core::sc_time from = at(o.from_ns), until = o.to_ns > 0 ? at(o.to_ns) : sc_core::sc_max_time();
  for (std::size_t d = 0; d < s_.walk.size(); ++d) {
    if (!s_.walk[d].matches(o.filter)) continue;
    const std::string name = s_.walk[d].arrow_name();
    EgressPort& p = port(static_cast<int>(d));
    if (observer_) observer_->attach(p, name, static_cast<int>(d));
    if (detectors_) detectors_->attach(p, name);
    p.observe(to, from, until);
  }
}

std::optional<std::vector<WaitTotal>> PacketFabric::why_not_granted(int dir) const {
  return observer_ ? observer_->totals(dir) : std::nullopt;
}

std::string PacketFabric::trace_json() const { return observer_ ? observer_->json() : ""; }

// Each port transmits the walk direction leaving it and receives the one arriving at it.
std::vector<PortSpec> PacketFabric::port_specs(int site) const {
  const Site& st = s_.sites[site];
  std::vector<PortSpec> specs;
  for (std::size_t k = 0; k < st.out.size(); ++k) {
    const LinkDir& out = s_.walk[st.out[k]];
    PortSpec p{out.egress, s_.walk[st.in[k]].ingress, out.to};
    if (options_.vc_arbiter) p.egress.vc_arbiter = *options_.vc_arbiter;
    specs.push_back(p);
  }
  return specs;
}

void PacketFabric::make_site(int i) {
  if (s_.platform().nodes[i].is(NodeKind::Gpu) || s_.platform().nodes[i].is(NodeKind::Endpoint)) make_endpoint(i);
  else make_crossbar(i);
}

// A switch or I/O hub is a crossbar; a root complex also has host DMA engines (one per GPU
// below it, for host-pushed H2D copies) and its host memory as a completer on an internal
// port, built right after it.
void PacketFabric::make_crossbar(int i) {
  const PlatformCfg& pf = s_.platform();
  const NodeCfg& nc = pf.nodes[i];
  if (!nc.is(NodeKind::RootComplex)) {
    owned_.push_back(std::make_unique<Switch>(nc.name.c_str(), nc.crossbar, port_specs(i)));
    sites_[i] = owned_.back().get();
    return;
  }
  RootComplexParams rp;
  rp.engines = host_dma_engines(s_.topo, i);
  rp.requester_id = endpoint_requester_id(s_.topo.endpoint_of_node[i]);
  rp.dma = DmaParams{pf.mps, pf.mrrs, kHostDmaTags, DmaParams().queue_depth};
  owned_.push_back(std::make_unique<RootComplex>(nc.name.c_str(), nc.crossbar, port_specs(i), rp, tracker_));
  sites_[i] = owned_.back().get();
  make_endpoint(s_.memory_site(i));
}

// A GPU (completer and copy engines), a registered device (completer and its engines) or a
// host memory (a completer only).
void PacketFabric::make_endpoint(int i) {
  const PlatformCfg& pf = s_.platform();
  const Site& site = s_.sites[i];
  const NodeCfg& nc = pf.nodes[site.node];
  EndpointParams p;
  p.index = site.endpoint;
  p.completion_bytes = pf.completion_bytes;
  p.engines = 0;
  if (site.memory) {
    p.read_latency_ns = nc.memory.read_latency_ns;
  } else if (nc.is(NodeKind::Gpu)) {
    p.read_latency_ns = nc.gpu.read_latency_ns;
    p.engines = nc.gpu.engine_count();
    p.dma = DmaParams{pf.mps, pf.mrrs, nc.gpu.tags, DmaParams().queue_depth};
  } else {
    p.engines = nc.endpoint.type->engines;
    p.dma = DmaParams{pf.mps, pf.mrrs, DmaParams().tags, DmaParams().queue_depth};
  }
  owned_.push_back(std::make_unique<Endpoint>(site.name.c_str(), p, port_specs(i).front(), tracker_));
  sites_[i] = owned_.back().get();
}

void PacketFabric::bind(const LinkDir& d) {
  sites_[d.from_site]->egress(d.from_port).out.bind(sites_[d.to_site]->target(d.to_port));
}

void PacketFabric::collect_engines() {
  for (const EngineSlot& e : s_.engines) {
    FabricNode* n = sites_[e.node];
    if (auto* rc = dynamic_cast<RootComplex*>(n)) engines_.push_back(&rc->engine(e.index));
    else engines_.push_back(&static_cast<Endpoint*>(n)->engine(e.index));
  }
}

EgressPort& PacketFabric::port(int dir) const {
  const LinkDir& d = s_.walk.at(dir);
  return sites_[d.from_site]->egress(d.from_port);
}

void PacketFabric::set_tc_map(const std::array<uint8_t, kNumTcs>& vc8) {
  for (std::size_t d = 0; d < s_.walk.size(); ++d) {
    EgressPort& p = port(static_cast<int>(d));
    p.set_tc_map(scale_map(vc8, p.config().vcs));
  }
}

std::vector<std::string> PacketFabric::waiting() const {
  std::vector<std::string> parts;
  for (std::size_t d = 0; d < s_.walk.size(); ++d) {
    const std::string w = port(static_cast<int>(d)).waiting();
    if (!w.empty()) parts.push_back(w);
  }
  return parts;
}

void PacketFabric::trace(sc_core::sc_trace_file* tf) {
  for (auto& n : owned_) n->trace(tf);
}

void PacketFabric::restart_stats() {
  for (std::size_t d = 0; d < s_.walk.size(); ++d) port(static_cast<int>(d)).restart_stats();
}

void PacketFabric::finish() {
  for (std::size_t d = 0; d < s_.walk.size(); ++d) port(static_cast<int>(d)).finish();
}

}  // namespace arbsim
