// make_arbiter / check_arbiter: a config ArbiterSpec (docs/config.md) checked against the
// catalogue's rules and built by its row. Messages name the spec field at fault.
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "models/pcie/arbiters/arbiter.h"
#include "models/pcie/arbiters/starvation_guard.h"
#include "models/pcie/arbiters/weighted_round_robin.h"

namespace arbsim {

namespace {

std::map<std::string, ArbiterImpl>& impls() {
  static std::map<std::string, ArbiterImpl> m;
  return m;
}

std::string check_impl(const std::string& name) {
  if (name == "cpp" || impls().count(name)) return "";
  if (name == "rtl")
    return "impl 'rtl' is not available: this build has no RTL co-simulation (configured without "
           "Verilator 5 or with ARBSIM_COSIM=OFF; docs/cosim.md)";
  return "unknown impl '" + name + "' (known: cpp, rtl)";
}

std::string check_phases(const std::vector<int>& phases, int n) {
  if (phases.empty()) return "wrr phase table is empty";
  if (phases.size() > static_cast<std::size_t>(WeightedRoundRobinArbiter::kMaxPhases))
    return "wrr phase table has " + std::to_string(phases.size()) + " entries, max " +
           std::to_string(WeightedRoundRobinArbiter::kMaxPhases);
  for (std::size_t i = 0; i < phases.size(); ++i)
    if (phases[i] < 0 || phases[i] >= n)
      return "wrr phase " + std::to_string(i) + " names requester " + std::to_string(phases[i]) + ", valid 0.." +
             std::to_string(n - 1);
  return "";
}

std::string check_weights(const std::vector<int>& weights, int n) {
  if (weights.size() != static_cast<std::size_t>(n))
    return "wrr has " + std::to_string(weights.size()) + " weights for " + std::to_string(n) + " requesters";
  long long total = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (weights[i] < 0) return "wrr weight " + std::to_string(i) + " is " + std::to_string(weights[i]) + ", must be >= 0";
    total += weights[i];
  }
  if (total <= 0) return "wrr weights sum to 0";
  if (total > WeightedRoundRobinArbiter::kMaxPhases)
    return "wrr weights sum to " + std::to_string(total) + ", max " +
           std::to_string(WeightedRoundRobinArbiter::kMaxPhases) + " phases";
  return "";
}

std::string check_table(const ArbiterSpec& spec, int n) {
  const bool has_w = !spec.weights.empty(), has_p = !spec.phases.empty();
  if (!spec.type->weighted)
    return has_w || has_p ? std::string("weights/phases apply only to type 'wrr', not '") + spec.type->name + "'" : "";
  if (has_w == has_p) return std::string(spec.type->name) + " needs exactly one of weights or phases";
  return has_w ? check_weights(spec.weights, n) : check_phases(spec.phases, n);
}

}  // namespace

std::string check_arbiter(const ArbiterSpec& spec, int n) {
  std::string why;
  if (!spec.type) why = "no arbiter type (known: " + arbiter_type_names() + ")";
  else if (n < 1 || n > Arbiter::kMaxRequesters)
    why = "requester count " + std::to_string(n) + " outside 1.." + std::to_string(Arbiter::kMaxRequesters);
  else if (spec.starvation_threshold < 0)
    why = "starvation_threshold " + std::to_string(spec.starvation_threshold) + " is negative (0 = off)";
  else if ((why = check_table(spec, n)).empty() && (why = check_impl(spec.impl)).empty() && spec.impl != "cpp" &&
           impls().at(spec.impl).check)
    why = impls().at(spec.impl).check(spec, n);
  return why.empty() ? why : "arbiter spec: " + why;
}

std::unique_ptr<Arbiter> make_arbiter(const ArbiterSpec& spec, int n_requesters) {
  const std::string why = check_arbiter(spec, n_requesters);
  if (!why.empty()) throw std::invalid_argument(why);
  auto arb = spec.type->make(spec, n_requesters);
  if (spec.starvation_threshold > 0)  // seed 000 §3.2 anti-starvation threshold x
    arb = std::make_unique<StarvationGuard>(std::move(arb), spec.starvation_threshold);
  if (spec.impl == "cpp") return arb;
  return impls().at(spec.impl).make(spec, n_requesters, std::move(arb));
}

std::string describe_spec(const ArbiterSpec& spec) {
  std::string d = spec.type->name;
  if (spec.starvation_threshold > 0) d += "+starve(" + std::to_string(spec.starvation_threshold) + ")";
  return d;
}

void register_arbiter_impl(const std::string& name, const ArbiterImpl& impl) {
  if (name.empty() || name == "cpp" || !impl.make)
    throw std::invalid_argument("register_arbiter_impl: bad implementation '" + name + "'");
  impls()[name] = impl;
}

bool arbiter_impl_available(const std::string& name) { return name == "cpp" || impls().count(name) > 0; }

bool request_arbiter_waveform(const std::string& impl, const std::string& path) {
  const auto it = impls().find(impl);
  if (it == impls().end() || !it->second.waveform) return false;
  it->second.waveform(path);
  return true;
}

}  // namespace arbsim
