#include "platforms/topology/share_points.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include "models/host/engine_choice.h"
#include "platforms/topology/flow_graph.h"

namespace arbsim {

namespace {

using Hop = std::pair<int, int>;  // (walk direction, slot at its egress)

struct LoopApp {
  std::string name;
  int priority = 0;
  std::vector<Hop> hops;  // where its data is arbitrated, in path order, both directions
};

// The egress slots one copy's data passes: at the first hop the engine that sends it (a
// root complex's host DMA engine after its ports, a GPU's copy engine after its completer;
// a host memory's completer is alone on its port and left out), then at each later hop the
// ingress port the data arrived on (Site::in order = slot order, docs/config.md).
void add_path(const Scenario& s, const flow::Network& net, int from, int to, int first_slot, std::vector<Hop>* hops) {
  const std::vector<int> path = net.path(from, to);
  for (std::size_t k = 0; k < path.size(); ++k) {
    const int slot = k == 0 ? first_slot : s.walk[static_cast<std::size_t>(path[k - 1])].to_port;
    if (slot >= 0) hops->push_back({path[k], slot});
  }
}

std::vector<Hop> data_hops(const Scenario& s, const flow::Network& net, const PeriodicParams& p) {
  const GpuUnit& u = s.units[static_cast<std::size_t>(s.unit_of(p.gpu))];
  const int gpu = s.topo.gpus[static_cast<std::size_t>(u.gpu)];
  const GpuParams& gp = s.platform().nodes[static_cast<std::size_t>(gpu)].gpu;
  const int rc = p.host_rc >= 0 ? s.topo.rcs[static_cast<std::size_t>(p.host_rc)] : s.topo.host_of[static_cast<std::size_t>(gpu)];
  const int memory = s.memory_site(rc);
  std::vector<Hop> hops;
  if (p.h2d_bytes > 0) {
    const EngineChoice e = choose_engine(CopyDir::H2D, gp.h2d_mode, gp.copy_engines);
    if (e.host_dma)
      add_path(s, net, rc, gpu, static_cast<int>(s.sites[static_cast<std::size_t>(rc)].out.size()) + host_dma_slot(s.topo, gpu), &hops);
    else
      add_path(s, net, memory, gpu, -1, &hops);
  }
  if (p.d2h_bytes > 0) {
    const EngineChoice e = choose_engine(CopyDir::D2H, gp.h2d_mode, gp.copy_engines);
    add_path(s, net, gpu, memory, 1 + u.first_engine + e.gpu_engine, &hops);
  }
  return hops;
}

std::vector<LoopApp> loop_apps(const Scenario& s) {
  const FlowGraph g = build_flow_graph(s);
  std::vector<LoopApp> apps;
  for (const AppCfg& a : s.config.apps)
    if (const auto* p = std::get_if<PeriodicParams>(&a.params)) apps.push_back({a.name, p->priority, data_hops(s, g.net, *p)});
  return apps;
}

std::vector<int> configured_weights(const EgressConfig& e) {
  if (!e.port_arbiter.weights.empty()) return e.port_arbiter.weights;
  std::vector<int> w(static_cast<std::size_t>(e.slots), 0);
  for (const int slot : e.port_arbiter.phases) ++w[static_cast<std::size_t>(slot)];
  return w;
}

// Why the controller cannot steer `app` at `hop`, or "" when it can.
std::string unusable(const Scenario& s, const Hop& hop, const std::map<Hop, int>& users) {
  const LinkDir& d = s.walk[static_cast<std::size_t>(hop.first)];
  const ArbiterSpec& a = d.egress.port_arbiter;
  if (users.at(hop) > 1) return "slot " + std::to_string(hop.second) + " carries " + std::to_string(users.at(hop)) +
                                " periodic apps' data";
  if (a.type != &kWeightedRoundRobinType) return std::string("port arbiter ") + a.type->name + ", not wrr";
  if (a.impl != "cpp") return "port arbiter implemented in " + a.impl + ": its table cannot be reloaded at run time";
  if (configured_weights(d.egress)[static_cast<std::size_t>(hop.second)] == 0) return "slot " + std::to_string(hop.second) + " has weight 0";
  return "";
}

[[noreturn]] void refuse(const Scenario& s, const LoopApp& app, const std::map<Hop, int>& users) {
  std::string why;
  for (const Hop& h : app.hops) {
    const LinkDir& d = s.walk[static_cast<std::size_t>(h.first)];
    why += "; " + d.from + " -> " + d.to + ": " + unusable(s, h, users);
  }
  s.config.driver_origin.fail("share_control",
                              "pcie_by: wrr cannot slow app '" + app.name +
                                  "': no egress on its data path has a wrr port arbiter where its data arrives alone" +
                                  (why.empty() ? std::string(" (it copies nothing)") : why) +
                                  ". Give an egress on its path a wrr port arbiter (a link's arbitration_up or arbitration_down, or "
                                  "the sending node's arbitration) where its data arrives alone; host-to-device "
                                  "reads of all GPUs leave a root complex through its memory port, h2d_mode: push gives "
                                  "each GPU its own host DMA engine there");
}

}  // namespace

std::vector<WeightPoint> wrr_share_points(const Scenario& s) {
  const ShareControlCfg& c = s.config.driver.share_control;
  if (!c.on || !c.pcie || !c.wrr) return {};
  const std::vector<LoopApp> apps = loop_apps(s);
  std::map<Hop, int> users;
  for (const LoopApp& a : apps)
    for (const Hop& h : std::set<Hop>(a.hops.begin(), a.hops.end())) ++users[h];
  int top = 0;
  for (const LoopApp& a : apps) top = std::max(top, a.priority);
  std::map<int, WeightPoint> points;
  for (const LoopApp& a : apps) {
    bool steered = false;
    for (const Hop& h : a.hops) {
      if (!unusable(s, h, users).empty()) continue;
      WeightPoint& p = points[h.first];
      p.dir = h.first;
      p.base = configured_weights(s.walk[static_cast<std::size_t>(h.first)].egress);
      if (std::find(p.steers.begin(), p.steers.end(), std::make_pair(a.name, h.second)) == p.steers.end())
        p.steers.emplace_back(a.name, h.second);
      steered = true;
    }
    if (!steered && a.priority < top) refuse(s, a, users);
  }
  std::vector<WeightPoint> out;
  for (auto& [dir, p] : points) out.push_back(std::move(p));
  return out;
}

std::vector<int> share_weights(const WeightPoint& p, const std::vector<double>& share_pct) {
  long long sum = 0;
  for (const int w : p.base) sum += w;
  const long long k = std::max(1LL, std::min(100LL, 65536LL / std::max(1LL, sum)));
  std::vector<int> w(p.base.size());
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int>(p.base[i] * k);
  for (std::size_t i = 0; i < p.steers.size(); ++i) {
    const std::size_t slot = static_cast<std::size_t>(p.steers[i].second);
    if (p.base[slot] == 0) continue;
    w[slot] = std::max(1, static_cast<int>(std::lround(p.base[slot] * k * share_pct[i] / 100.0)));
  }
  return w;
}

}  // namespace arbsim
