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
};

// Builds the arbiter a spec names for `n_requesters` requesters.
// Throws std::invalid_argument with a readable reason on a bad spec.
std::unique_ptr<Arbiter> make_arbiter(const ArbiterSpec& spec, int n_requesters);

// Known type names, for config validation and --help.
const std::vector<std::string>& arbiter_types();

}  // namespace arbsim
