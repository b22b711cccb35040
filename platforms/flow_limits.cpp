#include "platforms/flow_limits.h"
#include <set>
#include "models/host/priority_ranking.h"

namespace arbsim {

namespace {

// GPU ordinals in node order (the driver's numbering).
int gpu_ordinal(const PlatformCfg& pf, const std::string& name) {
  int k = 0;
  for (const NodeCfg& n : pf.nodes) {
    if (n.name == name) return k;
    k += n.type == "gpu";
  }
  return -1;
}

// The TCs the apps' copies may carry: their `tc` under the static policy; under rr, Eq. 1's
// request and response TCs of every GPU an app moves data to or from (seed 000 §3.1).
std::set<int> tcs_in_use(const Config& cfg) {
  std::set<int> tcs;
  for (const AppCfg& a : cfg.apps) {
    if (cfg.driver.policy == "static") {
      tcs.insert(a.tc);
      continue;
    }
    for (const std::string& g : {a.gpu, a.peer}) {
      const int k = g.empty() ? -1 : gpu_ordinal(cfg.platform, g);
      if (k < 0) continue;
      tcs.insert(eq1_tc(k, 0));
      tcs.insert(eq1_tc(k, 1));
    }
  }
  return tcs;
}

std::string list_of(const std::set<int>& v, const char* prefix) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ", ") + std::string(prefix) + std::to_string(x);
  return s;
}

struct Egress {
  std::string name;
  int vcs = 1, slots = 1;
  std::array<uint8_t, kNumTcs> tc_to_vc{};
  ArbitrationCfg arb;
};

// Every egress port the packet model would build: both directions of each link, and each
// root complex's memory port (8 VCs, TC n on VC n), with the VC arbiter the policy sets.
std::vector<Egress> egresses(const Config& cfg, const Topology& topo) {
  const PlatformCfg& pf = cfg.platform;
  std::vector<Egress> out;
  for (const LinkCfg& l : pf.links)
    for (const bool up : {true, false}) {
      Egress e;
      const std::string& from = up ? l.down : l.up;
      e.name = from + "->" + (up ? l.up : l.down);
      e.vcs = l.vcs;
      e.slots = arbitration_slots(pf, topo, node_index(pf, from));
      e.tc_to_vc = l.tc_to_vc;
      e.arb = effective_arbitration(pf, l, up);
      out.push_back(e);
    }
  for (const int rc : root_complexes(pf)) {
    Egress e;
    e.name = pf.nodes[rc].name + "->" + pf.nodes[rc].name + "_memory";
    e.vcs = kMaxVcs;
    e.slots = arbitration_slots(pf, topo, rc);
    for (int tc = 0; tc < kNumTcs; ++tc) e.tc_to_vc[tc] = static_cast<uint8_t>(tc);
    e.arb = ArbitrationCfg();  // the platform builds the memory port's arbiters as rr
    out.push_back(e);
  }
  if (cfg.driver.policy == "rr")
    for (Egress& e : out) e.arb.vc = ArbiterSpec();  // the rr policy sets round-robin VC arbiters
  return out;
}

std::string describe(const ArbiterSpec& s) {
  std::string d = s.type;
  if (s.starvation_threshold > 0) d += "+starve(" + std::to_string(s.starvation_threshold) + ")";
  return d;
}

const char* kMaxMin = "the flow mode shares the link max-min per flow";

}  // namespace

std::vector<FidelityNote> flow_fidelity_notes(const Config& cfg, const Topology& topo) {
  std::vector<FidelityNote> notes;
  if (cfg.sim.fidelity != Fidelity::Flow) return notes;
  const std::set<int> tcs = tcs_in_use(cfg);
  for (const Egress& e : egresses(cfg, topo)) {
    std::set<int> vcs;
    for (int tc : tcs) vcs.insert(e.tc_to_vc[tc]);
    if (e.vcs > 1 && vcs.size() > 1)
      notes.push_back({e.name, "vc_arbiter " + describe(e.arb.vc) + " over " + list_of(vcs, "VC") + " (" +
                                   list_of(tcs, "TC") + ")",
                       std::string(kMaxMin) + ": it does not arbitrate between VCs"});
    if (e.slots > 1 && (e.arb.port.type != "rr" || e.arb.port.starvation_threshold > 0))
      notes.push_back({e.name, "port_arbiter " + describe(e.arb.port),
                       std::string(kMaxMin) + ", not by this port arbitration"});
  }
  return notes;
}

}  // namespace arbsim
