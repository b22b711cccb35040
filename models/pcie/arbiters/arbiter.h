// The arbiter interface every VC and port arbiter implements (and an RTL arbiter adapter
// can stand in for). Plain C++: no SystemC, so it is unit-tested without a kernel.
// Cycle semantics are defined in docs/arbiters.md.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace arbsim {

class Arbiter {
 public:
  static constexpr int kMaxRequesters = 32;
  virtual ~Arbiter() = default;

  // One arbitration cycle. Bit i of `requests` is set when requester i has a head ready
  // (and the credits to send it). Returns the granted requester, or -1 when requests == 0.
  // The caller always uses the grant, so the arbiter advances its state here.
  virtual int grant(uint32_t requests) = 0;

  // Back to the state after construction.
  virtual void reset() = 0;

  virtual int requesters() const = 0;
  virtual std::string describe() const = 0;  // e.g. "rr", "wrr[0,0,0,1]", "strict+starve(16)"
};

// What the config says about one arbiter (docs/config.md, key `vc_arbiter` / `port_arbiter`).
struct ArbiterSpec {
  std::string type = "rr";          // "rr" | "strict" | "wrr"
  std::vector<int> weights;         // wrr: weight per requester (expanded to a phase table)
  std::vector<int> phases;          // wrr: explicit phase table (requester index per phase)
  int starvation_threshold = 0;     // 0 = off; else wrap in StarvationGuard (seed 000 §3.2)
  // Implementation: "cpp" (the classes here), "rtl" (Verilog arbiter co-simulated through
  // Verilator, docs/cosim.md), or "" = default_arbiter_impl(). Grants are the same.
  std::string impl;
};

// Builds the arbiter a spec names for `n_requesters` requesters.
// Throws std::invalid_argument with a readable reason on a bad spec.
std::unique_ptr<Arbiter> make_arbiter(const ArbiterSpec& spec, int n_requesters);

// Known type names, for config validation and --help.
const std::vector<std::string>& arbiter_types();

// ---- Other implementations (docs/cosim.md) ---------------------------------------------
// This library has only the C++ arbiters ("cpp") and no SystemC. Another implementation
// registers itself here; the RTL co-simulation library (models/pcie/arbiters/rtl/) does so
// at static-initialisation time when it is built (`impl` "rtl").
struct ArbiterImpl {
  // Builds the arbiter for an already checked spec. `reference` is the C++ arbiter the
  // same spec gives (its describe() and state are the specification); the result may keep
  // it or drop it. Throws std::invalid_argument when this implementation cannot build it.
  std::unique_ptr<Arbiter> (*make)(const ArbiterSpec& spec, int n_requesters,
                                   std::unique_ptr<Arbiter> reference) = nullptr;
  // Requests the implementation's own waveform file (path; "" = none). May be null.
  void (*waveform)(const std::string& path) = nullptr;
};
void register_arbiter_impl(const std::string& name, const ArbiterImpl& impl);
// "cpp" always; others when registered.
bool arbiter_impl_available(const std::string& name);

// The implementation of specs whose `impl` is empty ("cpp" unless set): the platform's
// `arbiter_impl` key (--arbiter-impl) sets it, so it reaches the arbiters the platform
// builds itself (a root complex's memory port, seed 000 policy VC arbiters).
// Throws std::invalid_argument for an unknown or unavailable implementation.
void set_default_arbiter_impl(const std::string& name);
const std::string& default_arbiter_impl();

// Asks implementation `impl` for its own waveform at `path`; false if it has none.
bool request_arbiter_waveform(const std::string& impl, const std::string& path);

}  // namespace arbsim
