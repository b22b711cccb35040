// The arbiter interface every VC and port arbiter implements (and an RTL arbiter adapter
// can stand in for). Plain C++: no SystemC, so it is unit-tested without a kernel.
// Cycle semantics are defined in docs/arbiters.md.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include "models/pcie/arbiters/catalogue.h"

namespace arbsim {

// The requests of one arbitration cycle: a bit set over requesters, word k holding
// requesters 64k .. 64k+63. A view over words the caller owns (an egress port keeps them
// and reuses them every cycle: no allocation on the hot path).
class Requests {
 public:
  Requests(const uint64_t* words, int n_words) : w_(words), n_(n_words) {}

  bool test(int i) const { return i >= 0 && (i >> 6) < n_ && ((w_[i >> 6] >> (i & 63)) & 1u) != 0; }
  // Lowest requester in [from, limit), or -1.
  int first_in(int from, int limit) const {
    for (int k = from >> 6, end = std::min(n_, (limit + 63) >> 6); k < end; ++k) {
      uint64_t bits = w_[k];
      if (k == (from >> 6)) bits &= ~0ull << (from & 63);
      if (bits) {
        const int i = (k << 6) + __builtin_ctzll(bits);
        return i < limit ? i : -1;
      }
    }
    return -1;
  }
  // Highest requester below `limit`, or -1.
  int highest_below(int limit) const {
    for (int k = std::min(n_, (limit + 63) >> 6) - 1; k >= 0; --k) {
      uint64_t bits = w_[k];
      if (k == (limit >> 6)) bits &= (1ull << (limit & 63)) - 1;
      if (bits) return (k << 6) + 63 - __builtin_clzll(bits);
    }
    return -1;
  }
  // Calls f(i) for every requester below `limit`, ascending.
  template <class F>
  void for_each_below(int limit, F&& f) const {
    for (int i = first_in(0, limit); i >= 0; i = first_in(i + 1, limit)) f(i);
  }

 private:
  const uint64_t* w_;
  int n_;
};

class Arbiter {
 public:
  // Ports of real switches reach a few dozen; a root complex here also arbitrates among
  // its host DMA engines (one per GPU of its tree), so a 1,000-GPU tree needs over 1,000.
  static constexpr int kMaxRequesters = 4096;
  virtual ~Arbiter() = default;

  // One arbitration cycle. Requester i requests when it has a head ready (and the credits
  // to send it); requesters >= requesters() are ignored. Returns the granted requester, or
  // -1 when none requests. The caller always uses the grant, so the arbiter advances its
  // state here.
  virtual int grant(const Requests& requests) = 0;
  // The same for requesters 0..63 given as one word (tests, VC arbiters).
  int grant(uint64_t requests) { return grant(Requests(&requests, 1)); }

  // Back to the state after construction.
  virtual void reset() = 0;

  virtual int requesters() const = 0;
  virtual std::string describe() const = 0;  // e.g. "rr", "wrr[0,0,0,1]", "strict+starve(16)"

  // Reprograms a weighted arbiter at run time (one weight per requester, as ArbiterSpec::
  // weights), as software reloads a port arbitration table (docs/pcie-reference.md §4).
  // Returns false when this arbiter has no weights to set (rr, strict, an RTL arbiter whose
  // table is synthesised in). Throws std::invalid_argument on bad weights.
  virtual bool set_weights(const std::vector<int>& /*weights*/) { return false; }
};

// What the config says about one arbiter (docs/config.md, key `vc_arbiter` / `port_arbiter`).
struct ArbiterSpec {
  const ArbiterType* type = &kRoundRobinType;  // a row of the catalogue (catalogue.h)
  std::vector<int> weights;         // weighted types: weight per requester (expanded to a phase table)
  std::vector<int> phases;          // weighted types: explicit phase table (requester index per phase)
  int starvation_threshold = 0;     // 0 = off; else wrap in StarvationGuard (seed 000 §3.2)
  // Implementation: "cpp" (the classes here) or a registered one, "rtl" (Verilog arbiters
  // co-simulated through Verilator, docs/cosim.md). Grants are the same.
  std::string impl = "cpp";
};

// Why `spec` cannot arbitrate among `n_requesters` requesters, or "" when it can. Builds
// nothing (config validation calls it).
std::string check_arbiter(const ArbiterSpec& spec, int n_requesters);

// Builds the arbiter a spec names for `n_requesters` requesters.
// Throws std::invalid_argument with check_arbiter()'s reason on a bad spec.
std::unique_ptr<Arbiter> make_arbiter(const ArbiterSpec& spec, int n_requesters);

// What the spec builds, as Arbiter::describe() names it ("strict+starve(8)", "wrr"), without
// building it.
std::string describe_spec(const ArbiterSpec& spec);

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
  // Why this implementation cannot build a spec the C++ rules accept ("" = it can), without
  // building it: check_arbiter() asks it, so config validation reports it. May be null.
  std::string (*check)(const ArbiterSpec& spec, int n_requesters) = nullptr;
};
void register_arbiter_impl(const std::string& name, const ArbiterImpl& impl);
// "cpp" always; others when registered.
bool arbiter_impl_available(const std::string& name);

// Asks implementation `impl` for its own waveform at `path`; false if it has none. An empty
// `path` ends the waveform being written (complete on disk when this returns).
bool request_arbiter_waveform(const std::string& impl, const std::string& path);

}  // namespace arbsim
