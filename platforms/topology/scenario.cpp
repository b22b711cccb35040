// Building the scenario: the sites, the link walk with every port's settings, the routes and
// the DMA engine table, from the checked topology.
#include "platforms/topology/scenario.h"
#include <fnmatch.h>
#include <algorithm>
#include <cstdio>
#include "platforms/config/reader.h"
#include "platforms/topology/arbitration.h"
#include "platforms/topology/share_points.h"

namespace arbsim {

bool LinkDir::matches(const std::string& glob) const { return fnmatch(glob.c_str(), arrow_name().c_str(), 0) == 0; }

namespace {

// The internal port between a root complex's crossbar and its host memory: all TCs on
// their own VCs (no head-of-line blocking inside the RC), infinite credits, round robin.
EgressConfig memory_port(const PlatformCfg& pf, double gbytes_per_s) {
  EgressConfig e;
  e.link = LinkDirection::make_raw(gbytes_per_s, 0);
  e.vcs = kMaxVcs;
  for (int tc = 0; tc < kNumTcs; ++tc) e.tc_to_vc[tc] = static_cast<uint8_t>(tc);
  const ArbitrationCfg a = memory_port_arbitration(pf);
  e.vc_arbiter = a.vc;
  e.port_arbiter = a.port;
  return e;
}

struct Builder {
  Scenario& s;
  const PlatformCfg& pf;
  const Topology& t;

  void add_sites() {
    for (std::size_t i = 0; i < pf.nodes.size(); ++i) {
      Site site;
      site.name = pf.nodes[i].name;
      site.node = static_cast<int>(i);
      site.endpoint = pf.nodes[i].is(NodeKind::RootComplex) ? -1 : t.endpoint_of_node[i];
      site.out.assign(t.ports[i].size(), -1);
      site.in.assign(t.ports[i].size(), -1);
      s.sites.push_back(site);
    }
    for (const int rc : t.rcs) {
      Site m;
      m.name = pf.nodes[rc].name + "_memory";
      m.node = rc;
      m.memory = true;
      m.endpoint = t.endpoint_of_node[rc];
      m.out.assign(1, -1);
      m.in.assign(1, -1);
      s.sites.push_back(m);
    }
  }

  void add(LinkDir d) {
    s.sites[d.from_site].out[d.from_port] = static_cast<int>(s.walk.size());
    s.sites[d.to_site].in[d.to_port] = static_cast<int>(s.walk.size());
    s.walk.push_back(std::move(d));
  }

  // The egress of `node`'s port over link l (upward or not) to the node at the other end.
  EgressConfig link_egress(int node, const LinkCfg& l, bool upward) const {
    EgressConfig e;
    e.link = link_direction(pf, l, upward);  // PCIe rate lowered to its cap, if any
    e.vcs = l.vcs;
    e.tc_to_vc = l.tc_to_vc;
    e.credits = l.credits;
    e.fc_latency_ns = l.fc_latency_ns;
    const ArbitrationCfg a = effective_arbitration(pf, l, upward);
    e.vc_arbiter = a.vc;
    e.port_arbiter = a.port;
    e.slots = arbitration_slots(pf, t, node);
    e.slot_names = requester_names(pf, t, node);
    return e;
  }

  // Credits return after the UpdateFC latency plus the DLLP's flight back over the link.
  IngressConfig link_ingress(int node, const LinkCfg& l) const {
    return IngressConfig{l.vcs, l.fc_latency_ns + l.latency_ns, pf.nodes[node].crossbar.voq};
  }

  void add_memory_port(int rc, int port) {
    const NodeCfg& n = pf.nodes[rc];
    const int mem = s.memory_site(rc);
    const std::string link = n.name + ".memory", mem_name = n.name + "_memory";
    LinkDir to{link, "to_memory", n.name, mem_name, -1, false, rc, port, mem, 0,
               memory_port(pf, n.memory.write_GBps), IngressConfig{kMaxVcs, 0, false}};
    to.egress.slots = arbitration_slots(pf, t, rc);
    to.egress.slot_names = requester_names(pf, t, rc);
    add(to);
    // The memory is a completer without engines: one requester at its port.
    LinkDir from{link, "from_memory", mem_name, n.name, -1, true, mem, 0, rc, port,
                 memory_port(pf, n.memory.bandwidth_GBps), IngressConfig{kMaxVcs, 0, true}};
    from.egress.slot_names = {"completer"};
    add(from);
  }

  int port_at(int node, int link) const {
    const auto& ports = t.ports[node];
    return static_cast<int>(std::find_if(ports.begin(), ports.end(), [&](const PortRef& q) { return q.link == link; }) -
                            ports.begin());
  }

  void add_link(int node, int port, const PortRef& pr) {
    const LinkCfg& l = pf.links[pr.link];
    const int peer_port = port_at(pr.peer, pr.link);
    add({l.name, "down", l.up, l.down, pr.link, false, node, port, pr.peer, peer_port, link_egress(node, l, false),
         link_ingress(pr.peer, l)});
    add({l.name, "up", l.down, l.up, pr.link, true, pr.peer, peer_port, node, port, link_egress(pr.peer, l, true),
         link_ingress(node, l)});
  }

  // Each link once, from its upper end, and each memory port, in node order.
  void walk() {
    for (std::size_t i = 0; i < pf.nodes.size(); ++i)
      for (std::size_t k = 0; k < t.ports[i].size(); ++k) {
        const PortRef& pr = t.ports[i][k];
        if (pr.link < 0) add_memory_port(static_cast<int>(i), static_cast<int>(k));
        else if (!pr.upward) add_link(static_cast<int>(i), static_cast<int>(k), pr);
      }
  }

  // Downstream ports route the endpoint range of the subtree below them, the memory port
  // its memory; the upstream port is the default route (models/pcie/switch.h).
  void route(int i) {
    Site& site = s.sites[i];
    for (std::size_t k = 0; k < t.ports[i].size(); ++k) {
      const PortRef& pr = t.ports[i][k];
      const int p = static_cast<int>(k);
      if (pr.link < 0) site.routes.push_back({t.endpoint_of_node[i], t.endpoint_of_node[i] + 1, p});
      else if (pr.upward) site.default_port = p;
      else site.routes.push_back({t.subtree_begin[pr.peer], t.subtree_end[pr.peer], p});
    }
  }

  // GPUs in config order; a split GPU as its instances (engines instance by instance).
  void units() {
    for (std::size_t k = 0; k < t.gpus.size(); ++k) {
      const NodeCfg& n = pf.nodes[t.gpus[k]];
      const int gpu = static_cast<int>(k);
      if (n.gpu.instances() == 0) s.units.push_back({n.name, gpu, -1, 0, 0, n.gpu.sm});
      for (int i = 0; i < n.gpu.instances(); ++i)
        s.units.push_back({n.name + "/mig" + std::to_string(i), gpu, i, i * n.gpu.copy_engines,
                           n.gpu.mig[static_cast<std::size_t>(i)], n.gpu.instance_sm(i)});
    }
  }

  // In node order: a GPU's copy engines, a root complex's host DMA engines, a device's engines.
  std::vector<int> engines() {
    std::vector<int> first(pf.nodes.size(), -1);
    for (std::size_t i = 0; i < pf.nodes.size(); ++i) {
      const NodeCfg& n = pf.nodes[i];
      int count = 0, tags = DmaParams().tags;
      if (n.is(NodeKind::Gpu)) count = n.gpu.engine_count(), tags = n.gpu.tags;
      else if (n.is(NodeKind::RootComplex)) count = host_dma_engines(t, static_cast<int>(i)), tags = kHostDmaTags;
      else if (n.is(NodeKind::Endpoint)) count = n.endpoint.type->engines;
      if (count > 0) first[i] = static_cast<int>(s.engines.size());
      for (int e = 0; e < count; ++e) s.engines.push_back({static_cast<int>(i), e, tags});
    }
    return first;
  }
};

}  // namespace

int Scenario::gpu_engine(int gpu_ordinal, int e) const { return first_engine_.at(topo.gpus.at(gpu_ordinal)) + e; }
int Scenario::unit_of(const std::string& ref) const {
  for (std::size_t u = 0; u < units.size(); ++u)
    if (units[u].name == ref) return static_cast<int>(u);
  return -1;
}

int Scenario::host_engine(int rc_node, int slot) const { return first_engine_.at(rc_node) + slot; }
int Scenario::device_engine(int node, int e) const { return first_engine_.at(node) + e; }
int Scenario::memory_site(int rc_node) const {
  return static_cast<int>(config.platform.nodes.size()) + topo.rc_ordinal.at(rc_node);
}

double Scenario::gpu_link_write_GBps(int gpu_ordinal) const {
  const PortRef& pr = topo.ports[topo.gpus.at(static_cast<std::size_t>(gpu_ordinal))].front();
  const LinkDirection d = link_direction(config.platform, config.platform.links[pr.link], pr.upward);
  return d.is_pcie ? pciebench_write_gbps(d.pcie, 1 << 20) / 8.0 : d.gbytes_per_s;
}

// A kernel of `blocks` given as a duration runs each block for kernel_ns over its waves
// (sm_scheduler.h, block_time_ps()), in whole picoseconds: a block under 1 ns would be
// rounded by more than 0.05 % (under 0.5 ps, to nothing: 42e6 blocks of a 1 us kernel on
// 14 SMs took 0 ns, 21e6 took 1.5 us, silently). Refused, naming the app's `blocks`.
void check_block_times(const Scenario& s) {
  for (const AppCfg& a : s.config.apps) {
    const GpuJob* job = nullptr;
    std::string gpu;
    if (const auto* m = std::get_if<SpmdParams>(&a.params)) job = m, gpu = m->gpu;
    if (const auto* p = std::get_if<PeriodicParams>(&a.params)) job = p, gpu = p->gpu;
    if (!job || job->blocks <= 0 || job->kernel_ns <= 0) continue;
    const SmParams& sm = s.units.at(static_cast<std::size_t>(s.unit_of(gpu))).sm;
    const double block_ns = job->kernel_ns / wave_factors(sm, job->blocks);
    if (block_ns < 1.0) {
      char what[160];
      std::snprintf(what, sizeof what, "%lld blocks of a %g ns kernel on %s's %d SMs run %.3g ps a block",
                    static_cast<long long>(job->blocks), job->kernel_ns, gpu.c_str(), sm.sms, block_ns * 1000);
      a.origin.fail("blocks", std::string(what) + ": under the 1 ns the model times a block to within 0.05 % (it "
                                                  "keeps whole picoseconds); use fewer blocks or a longer kernel");
    }
  }
}

Scenario make_scenario(Config cfg) {
  Scenario s;
  s.config = std::move(cfg);
  const PlatformCfg& pf = s.config.platform;
  s.topo = build_topology(pf);
  check_arbitration(pf, s.topo);
  Builder b{s, pf, s.topo};
  b.add_sites();
  b.walk();
  for (std::size_t i = 0; i < pf.nodes.size(); ++i)
    if (!is_leaf(pf.nodes[i])) b.route(static_cast<int>(i));
  s.first_engine_ = b.engines();
  b.units();
  check_block_times(s);
  s.wrr_points = wrr_share_points(s);  // or refuses share control WRR weights cannot carry out
  return s;
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  return make_scenario(load_config(path, overrides));
}

Scenario load_scenario_text(const std::string& yaml, const std::vector<std::string>& overrides,
                            const std::string& name) {
  return make_scenario(load_config_yaml(yaml, name, ".", overrides));
}

}  // namespace arbsim
