#include "platforms/platform.h"
#include <algorithm>
#include "models/host/priority_policy.h"
#include "models/pcie/tc_vc_map.h"
#include "platforms/batch_model.h"
#include "testbenches/batch_app.h"
#include "models/pcie/root_complex.h"
#include "platforms/platform_flow.h"

namespace arbsim {

namespace {

// The internal port between a root complex's crossbar and its host memory: all TCs on
// their own VCs (no head-of-line blocking inside the RC), infinite credits, round-robin.
EgressConfig memory_port_config(double gbytes_per_s) {
  EgressConfig e;
  e.link = LinkDirection::make_raw(gbytes_per_s, 0);
  e.vcs = kMaxVcs;
  for (int tc = 0; tc < kNumTcs; ++tc) e.tc_to_vc[tc] = static_cast<uint8_t>(tc);
  return e;
}

}  // namespace

Platform::Platform(const Config& cfg) : cfg_(cfg) {
  topo_ = build_topology(Reader(cfg_.effective["platform"], "platform", cfg_.file), cfg_.platform);
  host_engines_.assign(cfg_.platform.nodes.size(), {});
  notes_ = flow_fidelity_notes(cfg_, topo_);
  if (cfg_.sim.fidelity == Fidelity::Flow) build_flow();
  else build_packet();
  make_driver();
  make_apps();
}

void Platform::build_packet() {
  const std::size_t n = cfg_.platform.nodes.size();
  node_.assign(n, nullptr);
  memory_.assign(n, nullptr);
  for (std::size_t i = 0; i < n; ++i) node_[i] = make_node(static_cast<int>(i));
  for (std::size_t i = 0; i < n; ++i) bind_ports(static_cast<int>(i));
  for (std::size_t i = 0; i < n; ++i) fill_routes(static_cast<int>(i));
}

PortSpec Platform::link_port(int node, const PortRef& pr) const {
  const PlatformCfg& pf = cfg_.platform;
  const LinkCfg& l = pf.links[pr.link];
  PortSpec s;
  s.egress.link = link_direction(pf, l, pr.upward);  // PCIe rate lowered to its cap, if any
  s.egress.vcs = l.vcs;
  s.egress.tc_to_vc = l.tc_to_vc;
  s.egress.credits = l.credits;
  s.egress.fc_latency_ns = l.fc_latency_ns;
  const ArbitrationCfg a = effective_arbitration(pf, l, pr.upward);
  s.egress.vc_arbiter = policy_vc_arbiter(a.vc);
  s.egress.port_arbiter = a.port;
  s.egress.slots = arbitration_slots(pf, topo_, node);
  s.egress.slot_names = requester_names(pf, topo_, node);
  // Credits return after the UpdateFC latency plus the DLLP's flight back over the link.
  s.ingress = IngressConfig{l.vcs, l.fc_latency_ns + l.latency_ns, pf.nodes[node].voq};
  s.peer = pf.nodes[pr.peer].name;
  return s;
}

std::vector<PortSpec> Platform::port_specs(int i) const {
  const NodeCfg& nc = cfg_.platform.nodes[i];
  std::vector<PortSpec> specs;
  for (const PortRef& pr : topo_.ports[i]) {
    if (pr.link >= 0) {
      specs.push_back(link_port(i, pr));
      continue;
    }
    PortSpec m{memory_port_config(nc.memory_write_GBps), IngressConfig{kMaxVcs, 0, true}, nc.name + "_memory"};
    m.egress.vc_arbiter = policy_vc_arbiter(m.egress.vc_arbiter);
    m.egress.slots = arbitration_slots(cfg_.platform, topo_, i);
    m.egress.slot_names = requester_names(cfg_.platform, topo_, i);
    specs.push_back(m);
  }
  return specs;
}

FabricNode* Platform::make_node(int i) {
  const NodeCfg& nc = cfg_.platform.nodes[i];
  const PlatformCfg& pf = cfg_.platform;
  const std::vector<PortSpec> ports = port_specs(i);
  EndpointParams p;
  p.index = topo_.endpoint_of_node[i];
  p.completion_bytes = pf.completion_bytes;
  if (nc.type == "gpu") {
    p.read_latency_ns = nc.read_latency_ns;
    p.engines = nc.copy_engines;
    p.dma = DmaParams{pf.mps, pf.mrrs, nc.tags, 2};
    auto g = std::make_unique<Gpu>(nc.name.c_str(), p, ports[0], tracker_);
    gpus_.push_back(&g->compute());
    gpu_engines_.emplace_back();
    for (int e = 0; e < g->engine_count(); ++e) gpu_engines_.back().push_back(&g->engine(e));
    gpu_names_.push_back(nc.name);
    owned_.push_back(std::move(g));
    return owned_.back().get();
  }
  const SwitchParams sp{nc.latency_ns, nc.store_and_forward};
  if (nc.type == "switch" || nc.type == "io_hub") {  // an I/O hub is a crossbar without memory
    owned_.push_back(std::make_unique<Switch>(nc.name.c_str(), sp, ports));
    return owned_.back().get();
  }
  // Root complex: host DMA engines (one per GPU below it, for host-pushed H2D copies) in
  // the crossbar, and host memory as a completer on an internal port.
  RootComplexParams rp;
  rp.engines = host_engines(i);
  rp.requester_id = endpoint_requester_id(topo_.endpoint_of_node[i]);
  rp.dma = DmaParams{pf.mps, pf.mrrs, 256, 2};
  auto root = std::make_unique<RootComplex>(nc.name.c_str(), sp, ports, rp, tracker_);
  for (int e = 0; e < root->engine_count(); ++e) host_engines_[i].push_back(&root->engine(e));
  owned_.push_back(std::move(root));
  FabricNode* rc = owned_.back().get();
  p.read_latency_ns = nc.memory_read_latency_ns;
  p.engines = 0;
  PortSpec m{memory_port_config(nc.memory_GBps), IngressConfig{kMaxVcs, 0}, nc.name};
  m.egress.vc_arbiter = policy_vc_arbiter(m.egress.vc_arbiter);
  m.egress.slots = Endpoint::arbitration_slots(p);
  m.egress.slot_names = {"completer"};
  owned_.push_back(std::make_unique<Endpoint>((nc.name + "_memory").c_str(), p, m, tracker_));
  memory_[i] = static_cast<Endpoint*>(owned_.back().get());
  return rc;
}

int Platform::host_engines(int rc) const {
  return host_dma_engines(cfg_.platform, topo_, rc);
}

// Binds every link once (from its upper end), and the RC-memory port; records each link
// direction for the results.
void Platform::bind_ports(int i) {
  const PlatformCfg& pf = cfg_.platform;
  for (std::size_t k = 0; k < topo_.ports[i].size(); ++k) {
    const PortRef& pr = topo_.ports[i][k];
    if (pr.link < 0) {
      Endpoint& mem = *memory_[i];
      bind(*node_[i], static_cast<int>(k), mem, 0);
      const std::string link = pf.nodes[i].name + ".memory";
      link_ports_.push_back({link, "to_memory", pf.nodes[i].name, mem.name(), &node_[i]->egress(static_cast<int>(k))});
      link_ports_.push_back({link, "from_memory", mem.name(), pf.nodes[i].name, &mem.egress(0)});
      continue;
    }
    if (pr.upward) continue;
    const auto& peer_ports = topo_.ports[pr.peer];
    const int m = static_cast<int>(std::find_if(peer_ports.begin(), peer_ports.end(),
                                                [&](const PortRef& q) { return q.link == pr.link; }) -
                                   peer_ports.begin());
    bind(*node_[i], static_cast<int>(k), *node_[pr.peer], m);
    const LinkCfg& l = pf.links[pr.link];
    link_ports_.push_back({l.name, "down", l.up, l.down, &node_[i]->egress(static_cast<int>(k))});
    link_ports_.push_back({l.name, "up", l.down, l.up, &node_[pr.peer]->egress(m)});
  }
}

void Platform::bind(FabricNode& a, int pa, FabricNode& b, int pb) {
  a.egress(pa).out.bind(b.target(pb));
  b.egress(pb).out.bind(a.target(pa));
}

// Downstream ports get the endpoint range of the subtree below them; the upstream port is
// the default route (models/pcie/switch.h).
void Platform::fill_routes(int i) {
  auto* sw = dynamic_cast<Switch*>(node_[i]);
  if (!sw) return;
  std::vector<Route> routes;
  int up = -1;
  for (std::size_t k = 0; k < topo_.ports[i].size(); ++k) {
    const PortRef& pr = topo_.ports[i][k];
    const int p = static_cast<int>(k);
    if (pr.link < 0) {
      routes.push_back({topo_.endpoint_of_node[i], topo_.endpoint_of_node[i] + 1, p});
    } else if (pr.upward) {
      up = p;
    } else {
      routes.push_back({topo_.subtree_begin[pr.peer], topo_.subtree_end[pr.peer], p});
    }
  }
  sw->set_routes(std::move(routes), up);
}

// A GPU's host memory is its nearest root complex's (its socket); every socket of its
// tree is reachable too (an app's `host`), with that root complex's engine for the GPU.
void Platform::make_driver() {
  std::vector<GpuAttachment> att;
  const std::vector<int> rcs = root_complexes(cfg_.platform);
  for (std::size_t i = 0; i < cfg_.platform.nodes.size(); ++i) {
    const NodeCfg& nc = cfg_.platform.nodes[i];
    if (nc.type != "gpu") continue;
    GpuAttachment a;
    a.gpu = gpus_[att.size()];
    a.endpoint = topo_.endpoint_of_node[i];
    a.engines = gpu_engines_[att.size()];
    const int slot = host_dma_slot(cfg_.platform, topo_, static_cast<int>(i));
    for (const int rc : rcs) {
      const bool reachable = topo_.root_of[rc] == topo_.root_of[i];
      a.hosts.push_back(reachable ? HostPath{topo_.endpoint_of_node[rc], host_engines_[rc].at(slot)}
                                  : HostPath{});
      if (rc == topo_.host_of[i]) {
        a.host_memory = a.hosts.back().memory;
        a.host_dma = a.hosts.back().dma;
      }
    }
    a.h2d_mode = nc.h2d_mode;
    att.push_back(a);
  }
  driver_ = std::make_unique<Driver>("driver", std::move(att), make_policy(), *this);
}

// Seed 000's policies choose the VC arbitration: round-robin for rr, strict priority (VC7
// highest) with the optional starvation threshold x for the others. `static` keeps the
// configured arbiters.
ArbiterSpec Platform::policy_vc_arbiter(const ArbiterSpec& configured) const {
  const DriverCfg& d = cfg_.driver;
  if (d.policy == "static") return configured;
  ArbiterSpec s;
  s.type = d.policy == "rr" ? "rr" : "strict";
  s.starvation_threshold = s.type == "strict" ? d.starvation_threshold : 0;
  return s;
}

std::unique_ptr<TcPolicy> Platform::make_policy() const {
  const DriverCfg& d = cfg_.driver;
  PriorityMode mode;
  if (!parse_priority_mode(d.policy, &mode)) return std::make_unique<StaticTcPolicy>();
  double bw = d.bandwidth_GBps;
  if (bw <= 0) bw = first_gpu_link_write_GBps();
  return std::make_unique<PriorityTcPolicy>(mode, static_cast<int>(gpus_.size()), bw, d.qos_check_ns, d.qos_margin_ns);
}

// Eq. 3's BW by default: what the first GPU's link moves upward for large writes.
double Platform::first_gpu_link_write_GBps() const {
  const PlatformCfg& pf = cfg_.platform;
  const auto g = std::find_if(pf.nodes.begin(), pf.nodes.end(), [](const NodeCfg& n) { return n.type == "gpu"; });
  const PortRef& pr = topo_.ports[g - pf.nodes.begin()].front();
  const LinkDirection d = link_direction(pf, pf.links[pr.link], pr.upward);
  return d.is_pcie ? pciebench_write_gbps(d.pcie, 1 << 20) / 8.0 : d.gbytes_per_s;
}

void Platform::set_tc_map(const std::array<uint8_t, kNumTcs>& vc8) {
  if (flow_) return set_flow_tc_map(vc8);
  for (const LinkPortInfo& l : link_ports_) l.port->set_tc_map(scale_map(vc8, l.port->config().vcs));
}

int Platform::gpu_ordinal(const std::string& name) const {
  const auto it = std::find(gpu_names_.begin(), gpu_names_.end(), name);
  return it == gpu_names_.end() ? -1 : static_cast<int>(it - gpu_names_.begin());
}

void Platform::make_apps() {
  std::vector<BatchProgram> programs = batch_programs(cfg_.platform, topo_, cfg_.apps);
  for (std::size_t k = 0; k < cfg_.apps.size(); ++k) {
    const AppCfg& a = cfg_.apps[k];
    const int g = gpu_ordinal(a.gpu), peer = a.peer.empty() ? -1 : gpu_ordinal(a.peer);
    const std::string name = "app_" + a.name;
    const uint32_t flow = static_cast<uint32_t>(k + 1);
    if (a.type == "copy_exec")
      apps_.push_back(std::make_unique<CopyExecApp>(name.c_str(), a, *driver_, g, peer, flow));
    else if (a.type == "batch")
      apps_.push_back(std::make_unique<BatchApp>(name.c_str(), a, *driver_, batch_runtime(),
                                                 std::move(programs[k]), flow));
    else
      apps_.push_back(std::make_unique<StreamApp>(name.c_str(), a, *driver_, g, peer, flow, cfg_.sim.seed));
  }
}

// One batch run-time for the whole platform: batches of every batch app run atomically in
// issue order (seed 002 §3.2).
BatchRuntime& Platform::batch_runtime() {
  if (!batch_runtime_)
    batch_runtime_ = std::make_unique<BatchRuntime>("batch_runtime", *driver_, make_batch_model(cfg_.platform, topo_));
  return *batch_runtime_;
}

std::string Platform::stuck_report() const {
  std::vector<std::string> parts;
  for (const LinkPortInfo& l : link_ports_)
    if (l.port && !l.port->waiting().empty()) parts.push_back(l.port->waiting());
  if (tracker_.open_transfers() > 0) parts.push_back(std::to_string(tracker_.open_transfers()) + " transfer(s) open");
  for (const auto& a : apps_)
    if (!a->finished()) parts.push_back("app '" + a->config().name + "' not finished");
  std::string s;
  for (std::size_t i = 0; i < parts.size() && i < 8; ++i) s += (i ? "; " : "") + parts[i];
  if (parts.size() > 8) s += "; and " + std::to_string(parts.size() - 8) + " more";
  return s;
}

bool Platform::apps_finished() const {
  return std::all_of(apps_.begin(), apps_.end(), [](const auto& a) { return a->finished(); });
}

void Platform::trace(sc_core::sc_trace_file* tf) {
  for (auto& n : owned_) n->trace(tf);
  if (flow_)  // the flow-level mode has no ports to trace, only the GPUs' states
    for (GpuCompute* g : gpus_) g->trace(tf);
}

void Platform::finish() {
  for (const LinkPortInfo& l : link_ports_)
    if (l.port) l.port->finish();
  for (GpuCompute* g : gpus_) g->finish();
  if (flow_) finish_flow();
}

}  // namespace arbsim
