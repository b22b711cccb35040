// make_arbiter / arbiter_types: turns a config ArbiterSpec (docs/config.md) into an arbiter.
// Validation lives here so config errors name the spec field at fault.
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "models/pcie/arbiters/arbiter.h"
#include "models/pcie/arbiters/round_robin.h"
#include "models/pcie/arbiters/starvation_guard.h"
#include "models/pcie/arbiters/strict_priority.h"
#include "models/pcie/arbiters/weighted_round_robin.h"

namespace arbsim {

namespace {

[[noreturn]] void fail(const std::string& why) {
  throw std::invalid_argument("arbiter spec: " + why);
}

std::string known_types() {
  std::string s;
  for (const auto& t : arbiter_types()) s += (s.empty() ? "" : ", ") + t;
  return s;
}

bool is_known_type(const std::string& type) {
  for (const auto& t : arbiter_types())
    if (t == type) return true;
  return false;
}

void check_common(const ArbiterSpec& spec, int n) {
  if (!is_known_type(spec.type))
    fail("unknown arbiter type '" + spec.type + "' (known: " + known_types() + ")");
  if (n < 1 || n > Arbiter::kMaxRequesters)
    fail("requester count " + std::to_string(n) + " outside 1.." +
         std::to_string(Arbiter::kMaxRequesters));
  if (spec.starvation_threshold < 0)
    fail("starvation_threshold " + std::to_string(spec.starvation_threshold) +
         " is negative (0 = off)");
  if (spec.type != "wrr" && (!spec.weights.empty() || !spec.phases.empty()))
    fail("weights/phases apply only to type 'wrr', not '" + spec.type + "'");
}

std::unique_ptr<Arbiter> make_wrr(const ArbiterSpec& spec, int n) {
  const bool has_w = !spec.weights.empty(), has_p = !spec.phases.empty();
  if (has_w == has_p) fail("wrr needs exactly one of weights or phases");
  if (has_w && spec.weights.size() != size_t(n))
    fail("wrr has " + std::to_string(spec.weights.size()) + " weights for " +
         std::to_string(n) + " requesters");
  std::vector<int> table =
      has_w ? WeightedRoundRobinArbiter::expand_weights(spec.weights) : spec.phases;
  return std::make_unique<WeightedRoundRobinArbiter>(n, std::move(table));
}

std::map<std::string, ArbiterImpl>& impls() {
  static std::map<std::string, ArbiterImpl> m;
  return m;
}

std::string& default_impl() {
  static std::string d = "cpp";
  return d;
}

void check_impl(const std::string& name) {
  if (name == "cpp" || impls().count(name)) return;
  if (name == "rtl")
    fail("impl 'rtl' is not available: this build has no RTL co-simulation (configured without "
         "Verilator 5 or with ARBSIM_COSIM=OFF; docs/cosim.md)");
  fail("unknown impl '" + name + "' (known: cpp, rtl)");
}

std::unique_ptr<Arbiter> make_base(const ArbiterSpec& spec, int n) {
  if (spec.type == "rr") return std::make_unique<RoundRobinArbiter>(n);
  if (spec.type == "strict") return std::make_unique<StrictPriorityArbiter>(n);
  return make_wrr(spec, n);  // check_common() admitted only known types
}

}  // namespace

const std::vector<std::string>& arbiter_types() {
  static const std::vector<std::string> types = {"rr", "strict", "wrr"};
  return types;
}

std::unique_ptr<Arbiter> make_arbiter(const ArbiterSpec& spec, int n_requesters) {
  check_common(spec, n_requesters);
  const std::string& impl = spec.impl.empty() ? default_impl() : spec.impl;
  check_impl(impl);
  auto arb = make_base(spec, n_requesters);
  if (spec.starvation_threshold > 0)  // seed 000 §3.2 anti-starvation threshold x
    arb = std::make_unique<StarvationGuard>(std::move(arb), spec.starvation_threshold);
  if (impl == "cpp") return arb;
  return impls().at(impl).make(spec, n_requesters, std::move(arb));
}

void register_arbiter_impl(const std::string& name, const ArbiterImpl& impl) {
  if (name.empty() || name == "cpp" || !impl.make)
    throw std::invalid_argument("register_arbiter_impl: bad implementation '" + name + "'");
  impls()[name] = impl;
}

bool arbiter_impl_available(const std::string& name) { return name == "cpp" || impls().count(name) > 0; }

void set_default_arbiter_impl(const std::string& name) {
  check_impl(name);
  default_impl() = name;
}

const std::string& default_arbiter_impl() { return default_impl(); }

bool request_arbiter_waveform(const std::string& impl, const std::string& path) {
  const auto it = impls().find(impl);
  if (it == impls().end() || !it->second.waveform) return false;
  it->second.waveform(path);
  return true;
}

}  // namespace arbsim
