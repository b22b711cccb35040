// Parsing `driver:` (the host driver's TC policy, docs/host-policies.md) and `sim:`.
#include "platforms/config/parse.h"

namespace arbsim {

namespace {

constexpr std::pair<const char*, PolicyKind> kPolicies[] = {{"static", PolicyKind::Static},
                                                            {"rr", PolicyKind::RoundRobin},
                                                            {"priority_s", PolicyKind::SmallestFirst},
                                                            {"priority_l", PolicyKind::LargestFirst},
                                                            {"qos", PolicyKind::DeadlineAware}};

}  // namespace

const char* to_string(PolicyKind p) {
  for (const auto& [name, kind] : kPolicies)
    if (kind == p) return name;
  return "?";
}

namespace {

ShareControlCfg parse_share_control(const Reader& r) {
  r.allow({"kind", "acts_on", "pcie_by", "decrease_factor", "increase_pct", "min_share_pct", "pcie_GBps"});
  ShareControlCfg c;
  c.on = r.one_of("kind", "none", {"none", "aimd"}) == "aimd";
  c.pcie = r.one_of("acts_on", "sm", {"sm", "pcie"}) == "pcie";
  c.decrease_factor = r.number_in("decrease_factor", 0.5, 0.01, 0.99);
  c.increase_pct = r.number_in("increase_pct", 1.0, 0, 100);
  c.min_share_pct = r.number_in("min_share_pct", 1.0, 0.01, 100);
  c.pcie_GBps = r.rate_in("pcie_GBps", 0, 0, 1e6);
  c.wrr = r.one_of("pcie_by", "rate", {"rate", "wrr"}) == "wrr";
  if (c.wrr && !c.pcie) r.fail("pcie_by", "pcie_by sets how PCIe shares act; it needs acts_on: pcie");
  if (c.wrr && c.pcie_GBps > 0)
    r.fail("pcie_GBps", "pcie_GBps is the rate of a 100 % share paced at the copy engine (pcie_by: rate); "
                        "pcie_by: wrr scales port-arbiter weights instead");
  // The controller's settings without the controller would change nothing, silently. (Their
  // defaults are allowed: config.effective.yaml writes every key.)
  if (!c.on) {
    const ShareControlCfg d;
    const std::pair<const char*, bool> set[] = {{"acts_on", c.pcie != d.pcie},
                                                {"pcie_by", c.wrr != d.wrr},
                                                {"decrease_factor", c.decrease_factor != d.decrease_factor},
                                                {"increase_pct", c.increase_pct != d.increase_pct},
                                                {"min_share_pct", c.min_share_pct != d.min_share_pct}};
    for (const auto& [key, differs] : set)
      if (differs)
        r.fail(key, std::string(key) + " sets the AIMD controller, and kind is none (no controller): nothing would "
                                       "use it; set kind: aimd, or remove it");
  }
  return c;
}

}  // namespace

DriverCfg parse_driver(const Reader& r) {
  r.allow({"policy", "starvation_threshold", "bandwidth_GBps", "qos_check_ns", "qos_margin_ns", "share_control"});
  DriverCfg d;
  const std::string policy = r.one_of("policy", "static", {"static", "rr", "priority_s", "priority_l", "qos"});
  for (const auto& [name, kind] : kPolicies)
    if (policy == name) d.policy = kind;
  d.starvation_threshold = r.int_in("starvation_threshold", 0, 0, 1 << 20);
  // The guard goes on the strict-priority VC arbiters a policy sets; static keeps the
  // configured arbiters and rr sets round robin, so there it would change nothing, silently.
  if (d.starvation_threshold > 0 && (d.policy == PolicyKind::Static || d.policy == PolicyKind::RoundRobin))
    r.fail("starvation_threshold", "applies to the strict-priority VC arbiters that policy priority_s, priority_l "
                                   "or qos sets; under `" + policy + "` nothing would use it (give the links' "
                                   "vc_arbiter a starvation_threshold instead)");
  d.bandwidth_GBps = r.rate_in("bandwidth_GBps", 0, 0, 1e6);
  // > 0 and at least the kernel's 1-ps resolution, or the re-check would never advance.
  d.qos_check_ns = r.time_in("qos_check_ns", 1000, 1e-3, kMaxTimeNs);
  d.qos_margin_ns = r.time_ns("qos_margin_ns", 2 * d.qos_check_ns);
  d.share_control = parse_share_control(r.map("share_control"));
  return d;
}

const char* to_string(Fidelity f) { return f == Fidelity::Flow ? "flow" : "packet"; }

SimCfg parse_sim(const Reader& r) {
  r.allow({"time_ns", "seed", "log_level", "fidelity", "tlp_age_limit_ns", "warmup_ns", "stats_period_ns"});
  SimCfg s;
  s.time_ns = r.time_ns("time_ns", 0);
  // Below the kernel's 1 ps the run stops at 0, its copies open and its apps "never started".
  if (s.time_ns > 0 && s.time_ns < 1e-3)
    r.fail("time_ns", "below the simulator's 1 ps resolution: give 0 (until the traffic ends) or at least 0.001");
  // Statistics leave out what happens before it (docs/results.md, "Warm-up"): a warm-up as
  // long as the run, or longer, would leave an empty window.
  if (r.has("warmup_ns")) {
    s.warmup_ns = r.time_ns("warmup_ns", 0);
    if (s.time_ns > 0 && s.warmup_ns >= s.time_ns)
      r.fail("warmup_ns", "must be shorter than sim.time_ns (" + std::to_string(static_cast<int64_t>(s.time_ns)) +
                              " ns), got " + std::to_string(static_cast<int64_t>(s.warmup_ns)) + " ns");
  }
  // Liveness check (docs/results.md, "Run checks"): 10 ms, far above any wait but starvation.
  s.tlp_age_limit_ns = r.time_in("tlp_age_limit_ns", 1e7, 1, kMaxTimeNs);
  // A time series every period (docs/results.md, "Time series"): at most kMaxSamples of them.
  if (r.has("stats_period_ns")) {
    s.stats_period_ns = r.time_in("stats_period_ns", 0, 1, kMaxTimeNs);
    if (s.time_ns > 0 && s.time_ns / s.stats_period_ns > kMaxSeriesSamples)
      r.fail("stats_period_ns", "gives " + std::to_string(static_cast<int64_t>(s.time_ns / s.stats_period_ns)) +
                                    " samples over sim.time_ns, more than " + std::to_string(kMaxSeriesSamples) +
                                    ": take a longer period");
  }
  const int64_t seed = r.get<int64_t>("seed", 1);
  if (seed < 0) r.fail("seed", "must be >= 0, got " + std::to_string(seed));
  s.seed = static_cast<uint64_t>(seed);
  s.log_level = r.one_of("log_level", "info", {"trace", "debug", "info", "warn", "error", "off"});
  s.fidelity = r.one_of("fidelity", "packet", {"packet", "flow"}) == "flow" ? Fidelity::Flow : Fidelity::Packet;
  return s;
}

}  // namespace arbsim
