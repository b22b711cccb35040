#include "platforms/flow_limits.h"
#include <set>
#include "models/host/priority_ranking.h"

namespace arbsim {

namespace {

// The TCs the apps' copies may carry: their `tc` under the static policy; under a policy
// that assigns TCs, Eq. 1's request and response TCs of every GPU an app moves data to or
// from (seed 000 §3.1).
std::set<int> tcs_in_use(const Scenario& s) {
  const Config& cfg = s.config;
  std::set<int> tcs;
  for (const AppCfg& a : cfg.apps) {
    if (cfg.driver.policy == PolicyKind::Static) {
      tcs.insert(a.timing.tc);
      continue;
    }
    const auto* stream = std::get_if<StreamParams>(&a.params);
    for (const std::string& g : {a.gpu(), stream ? stream->peer : std::string()}) {
      const int k = g.empty() ? -1 : s.unit_of(g);  // the driver's device number
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

// Every egress port in the order the notes list them: both directions of each link (up
// first), in config order, then each root complex's memory port.
std::vector<const LinkDir*> egresses(const Scenario& s) {
  std::vector<const LinkDir*> out;
  for (std::size_t l = 0; l < s.platform().links.size(); ++l)
    for (const bool up : {true, false})
      for (const LinkDir& d : s.walk)
        if (d.link_index == static_cast<int>(l) && d.upward == up) out.push_back(&d);
  for (const LinkDir& d : s.walk)
    if (d.link_index < 0 && !d.upward) out.push_back(&d);
  return out;
}

const char* kMaxMin = "the flow mode shares the link max-min per flow";

}  // namespace

std::vector<FidelityNote> flow_fidelity_notes(const Scenario& s, const std::optional<ArbiterSpec>& vc_arbiter) {
  std::vector<FidelityNote> notes;
  const std::set<int> tcs = tcs_in_use(s);
  for (const LinkDir* d : egresses(s)) {
    const EgressConfig& e = d->egress;
    const std::string where = d->from + "->" + d->to;
    std::set<int> vcs;
    for (int tc : tcs) vcs.insert(e.tc_to_vc[tc]);
    if (e.vcs > 1 && vcs.size() > 1)
      notes.push_back({where, "vc_arbiter " + describe_spec(vc_arbiter ? *vc_arbiter : e.vc_arbiter) + " over " +
                                  list_of(vcs, "VC") + " (" + list_of(tcs, "TC") + ")",
                       std::string(kMaxMin) + ": it does not arbitrate between VCs"});
    if (e.slots > 1 && (e.port_arbiter.type != &kRoundRobinType || e.port_arbiter.starvation_threshold > 0))
      notes.push_back({where, "port_arbiter " + describe_spec(e.port_arbiter),
                       std::string(kMaxMin) + ", not by this port arbitration"});
  }
  return notes;
}

}  // namespace arbsim
