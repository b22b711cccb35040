// Lockstep co-simulation: each case drives one seeded random request pattern into a C++
// arbiter (models/pcie/arbiters/) and into the RTL of the same spec (rtl/, verilated, behind
// the same adapter an egress port uses) and compares the grants every cycle.
//
// Every arbiter (rr, strict, wrr, each alone and in the starvation guard) runs 200 000 cycles
// for 2, 4 and 8 requesters, and 50 000 for 1, 3, 16 and 32 (the RTL serves 1 and 3 with its
// N = 2 and N = 4 models). The pattern changes mode every few hundred cycles: heads that stay
// until granted (with arrival rates from 5 % to 90 %, and heads that briefly lose their
// credits), independent random bits, everyone requesting, one or two requesters, and idle
// stretches; so pointers wrap, the WRR fallback and full 256-phase tables are used, and
// starvation counters reach their threshold and survive idle cycles.
//
// On the first mismatch the case stops. It replays the same seed up to the failing cycle
// with waveforms on, then fails with the cycle, the requests, both grants and the C++ state,
// naming two VCDs (docs/cosim.md): <case>.vcd (requests, both grants, the C++ state) and
// <case>.rtl.vcd (the RTL's own, from Verilator), on the same time axis (cycle k at k ns).
//
// Environment: ARBSIM_LOCKSTEP_CYCLES overrides the cycle count, ARBSIM_LOCKSTEP_SEED the seed,
// ARBSIM_LOCKSTEP_DIR where the VCDs go (default: lockstep/ in the working directory).
// SystemC elaborates once per process: run one case per process (ctest does).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>
#include <systemc>

#include "models/pcie/arbiters/arbiter.h"
#include "models/pcie/arbiters/round_robin.h"
#include "models/pcie/arbiters/rtl/rtl_arbiter.h"
#include "models/pcie/arbiters/rtl/rtl_waves.h"
#include "models/pcie/arbiters/starvation_guard.h"
#include "models/pcie/arbiters/strict_priority.h"
#include "models/pcie/arbiters/weighted_round_robin.h"
#include "tests/cosim/vcd_writer.h"

namespace arbsim {
namespace {

namespace fs = std::filesystem;
using rtl::RawGrant;
using rtl::RtlArbiter;
using rtl::Waves;

constexpr int64_t kPeriodPs = 1000;  // one arbitration cycle per ns in the waveforms
constexpr uint64_t kWindow = 2000;   // cycles before a mismatch that the waveforms show

// ---- The cases ------------------------------------------------------------------------------

struct Case {
  std::string name;
  ArbiterSpec spec;
  int n;
  uint64_t cycles;
};

// Phase tables that reach every path: a weight-0 requester (fallback), a full 256-phase
// table, explicit phases, requesters absent from the table.
void set_table(ArbiterSpec& s, int n) {
  switch (n) {
    case 1: s.phases = {0}; break;
    case 2: s.weights = {3, 1}; break;                  // [0,0,1,0]
    case 3: s.phases = {2, 0, 2, 1, 2}; break;
    case 4: s.weights = {0, 3, 2, 1}; break;            // requester 0 only by fallback
    case 8: s.weights = {100, 60, 40, 30, 16, 10, 0, 0}; break;  // 256 phases; 6, 7 by fallback
    default: {
      std::mt19937 rng(static_cast<unsigned>(n));
      for (int j = 0; j < 64; ++j) s.phases.push_back(static_cast<int>(rng() % static_cast<unsigned>(n * 3 / 4)));
    }
  }
}

std::vector<Case> all_cases() {
  struct Kind {
    const char* type;
    int threshold;
  };
  const Kind kinds[] = {{"rr", 0}, {"rr", 2}, {"strict", 0}, {"strict", 4}, {"wrr", 0}, {"wrr", 3}};
  std::vector<Case> cases;
  for (int n : {2, 4, 8, 1, 3, 16, 32})
    for (const Kind& k : kinds) {
      Case c;
      c.spec.type = find_arbiter_type(k.type);
      c.spec.starvation_threshold = k.threshold;
      if (c.spec.type->weighted) set_table(c.spec, n);
      c.n = n;
      c.cycles = (n == 2 || n == 4 || n == 8) ? 200000 : 50000;
      c.name = std::string(k.type) + (k.threshold ? "_starve" + std::to_string(k.threshold) : "") + "_n" +
               std::to_string(n);
      cases.push_back(c);
    }
  return cases;
}

// ---- The C++ side, with handles on its state -------------------------------------------------

struct CppArbiter {
  std::unique_ptr<Arbiter> arb;
  RoundRobinArbiter* rr = nullptr;
  WeightedRoundRobinArbiter* wrr = nullptr;
  StarvationGuard* guard = nullptr;
};

CppArbiter make_cpp(const ArbiterSpec& s, int n) {
  CppArbiter c;
  if (s.type == &kRoundRobinType) {
    auto a = std::make_unique<RoundRobinArbiter>(n);
    c.rr = a.get();
    c.arb = std::move(a);
  } else if (s.type == &kStrictPriorityType) {
    c.arb = std::make_unique<StrictPriorityArbiter>(n);
  } else {
    auto a = std::make_unique<WeightedRoundRobinArbiter>(
        n, s.phases.empty() ? WeightedRoundRobinArbiter::expand_weights(s.weights) : s.phases);
    c.wrr = a.get();
    c.arb = std::move(a);
  }
  if (s.starvation_threshold > 0) {
    auto g = std::make_unique<StarvationGuard>(std::move(c.arb), s.starvation_threshold);
    c.guard = g.get();
    c.arb = std::move(g);
  }
  return c;
}

std::string state_text(const CppArbiter& c, int n) {
  std::ostringstream s;
  if (c.rr) s << "ptr=" << c.rr->pointer() << ' ';
  if (c.wrr) s << "phase=" << c.wrr->phase_pointer() << ' ';
  if (c.guard) {
    s << "wait=[";
    for (int i = 0; i < n; ++i) s << (i ? "," : "") << c.guard->wait_count(i);
    s << "] ";
  }
  std::string t = s.str();
  return t.empty() ? "(none)" : t.substr(0, t.size() - 1);
}

// ---- Requests ------------------------------------------------------------------------------

class Stimulus {
 public:
  Stimulus(uint64_t seed, int n) : rng_(seed), n_(n), all_(n >= 32 ? ~0u : (1u << n) - 1u) {}

  uint32_t next(uint64_t cycle) {
    if (cycle >= block_end_) new_block(cycle);
    uint32_t req = 0;
    switch (mode_) {
      case 0:  // heads stay until granted; a few lose their credits for a cycle
        for (int i = 0; i < n_; ++i)
          if (chance(p_)) heads_ |= 1u << i;
        req = heads_;
        for (int i = 0; i < n_; ++i)
          if (chance(0.03)) req &= ~(1u << i);
        break;
      case 1:  // independent bits
        for (int i = 0; i < n_; ++i)
          if (chance(p_)) req |= 1u << i;
        break;
      case 2:  // everybody
        req = all_;
        break;
      case 3:  // one or two requesters
        req = (1u << pick_a_) | (chance(0.5) ? 1u << pick_b_ : 0u);
        break;
      default:  // mostly idle, heads kept
        req = chance(0.2) ? heads_ : 0u;
    }
    return req & all_;
  }

  void granted(int g) {
    if (g >= 0) heads_ &= ~(1u << g);
  }

 private:
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }

  void new_block(uint64_t cycle) {
    static const double rates[] = {0.05, 0.2, 0.5, 0.9};
    mode_ = static_cast<int>(rng_() % 5);
    p_ = rates[rng_() % 4];
    pick_a_ = static_cast<int>(rng_() % static_cast<unsigned>(n_));
    pick_b_ = static_cast<int>(rng_() % static_cast<unsigned>(n_));
    block_end_ = cycle + 16 + rng_() % 512;
  }

  std::mt19937_64 rng_;
  int n_;
  uint32_t all_;
  uint32_t heads_ = 0;
  int mode_ = 0, pick_a_ = 0, pick_b_ = 0;
  double p_ = 0.5;
  uint64_t block_end_ = 0;
};

// ---- The testbench view of both arbiters, as a VCD ------------------------------------------

class BothWaves {
 public:
  BothWaves(const std::string& path, const CppArbiter& c, int n) : vcd_(path), c_(c) {
    cycle_ = vcd_.add("tb", "cycle", 32);
    clk_ = vcd_.add("tb", "clk", 1);
    req_ = vcd_.add("tb", "req", n);
    mismatch_ = vcd_.add("tb", "mismatch", 1);
    cpp_valid_ = vcd_.add("cpp", "grant_valid", 1);
    cpp_grant_ = vcd_.add("cpp", "grant", 5);
    if (c.rr) ptr_ = vcd_.add("cpp", "ptr", 5);
    if (c.wrr) phase_ = vcd_.add("cpp", "phase", 16);
    if (c.guard)
      for (int i = 0; i < n; ++i) wait_.push_back(vcd_.add("cpp", "wait" + std::to_string(i), 32));
    rtl_valid_ = vcd_.add("rtl", "gnt_valid", 1);
    rtl_grant_ = vcd_.add("rtl", "gnt", 5);
  }
  bool ok() const { return vcd_.ok(); }

  // Cycle k at k ns: the C++ state before the cycle (call before granting), then the inputs
  // and both grants; the clock edge and the state after it half a period later (as in the
  // RTL's own waveform).
  void begin(uint64_t k) {
    vcd_.time(k * kPeriodPs);
    vcd_.set(cycle_, k);
    vcd_.set(clk_, 0);
    state();
  }
  void grants(uint32_t req, int cpp, RawGrant rtl) {
    vcd_.set(req_, req);
    vcd_.set(cpp_valid_, cpp >= 0);
    vcd_.set(cpp_grant_, cpp >= 0 ? static_cast<uint64_t>(cpp) : 0u);
    vcd_.set(rtl_valid_, rtl.valid);
    vcd_.set(rtl_grant_, rtl.gnt);
    vcd_.set(mismatch_, (rtl.valid ? static_cast<int>(rtl.gnt) : -1) != cpp);
  }
  void edge(uint64_t k) {
    vcd_.time(k * kPeriodPs + kPeriodPs / 2);
    vcd_.set(clk_, 1);
    state();
  }

 private:
  void state() {
    if (c_.rr) vcd_.set(ptr_, static_cast<uint64_t>(c_.rr->pointer()));
    if (c_.wrr) vcd_.set(phase_, static_cast<uint64_t>(c_.wrr->phase_pointer()));
    for (size_t i = 0; i < wait_.size(); ++i) vcd_.set(wait_[i], c_.guard->wait_count(static_cast<int>(i)));
  }

  test::VcdWriter vcd_;
  const CppArbiter& c_;
  int cycle_, clk_, req_, mismatch_, cpp_valid_, cpp_grant_, ptr_ = -1, phase_ = -1, rtl_valid_, rtl_grant_;
  std::vector<int> wait_;
};

// ---- The lockstep loop -----------------------------------------------------------------------

struct Mismatch {
  uint64_t cycle;
  uint32_t req;
  int cpp;
  RawGrant rtl;
  std::string state;  // C++ state before the cycle
};

// Runs cycles [0, last] (or until a mismatch). With `waves`, records from cycle `from` on.
std::optional<Mismatch> run(CppArbiter& cpp, RtlArbiter& rtl, uint64_t seed, int n, uint64_t last,
                            BothWaves* waves = nullptr, uint64_t from = 0) {
  Stimulus stim(seed, n);
  for (uint64_t k = 0; k <= last; ++k) {
    const uint32_t req = stim.next(k);
    const bool rec = waves && k >= from;
    std::string before;
    if (rec) {
      before = state_text(cpp, n);
      waves->begin(k);
      Waves::get().set_recording(true);
      Waves::get().set_cycle(static_cast<int64_t>(k), kPeriodPs);
    }
    const int c = cpp.arb->grant(req);
    const RawGrant r = rtl.cycle(req);
    if (rec) {
      waves->grants(req, c, r);
      waves->edge(k);
    }
    if ((r.valid ? static_cast<int>(r.gnt) : -1) != c) return Mismatch{k, req, c, r, before};
    stim.granted(c);
  }
  return std::nullopt;
}

uint64_t env_u64(const char* name, uint64_t def) {
  const char* v = std::getenv(name);
  return v && *v ? std::stoull(v, nullptr, 0) : def;
}

std::string bits(uint32_t v, int n) {
  std::string s = "0b";
  for (int i = n - 1; i >= 0; --i) s += ((v >> i) & 1u) ? '1' : '0';
  return s;
}

class Lockstep : public ::testing::TestWithParam<Case> {};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

TEST_P(Lockstep, GrantsMatchEveryCycle) {
  if (sc_core::sc_start_of_simulation_invoked())
    GTEST_SKIP() << "SystemC elaborates once per process: run one lockstep case per process (ctest does)";
  const Case& tc = GetParam();
  const uint64_t cycles = env_u64("ARBSIM_LOCKSTEP_CYCLES", tc.cycles);
  const uint64_t seed = env_u64("ARBSIM_LOCKSTEP_SEED", 1);
  const fs::path dir = std::getenv("ARBSIM_LOCKSTEP_DIR") ? std::getenv("ARBSIM_LOCKSTEP_DIR") : "lockstep";
  const fs::path rtl_vcd = dir / (tc.name + ".rtl.vcd"), both_vcd = dir / (tc.name + ".vcd");

  // Elaboration: the RTL arbiter through make_arbiter, exactly as an egress port builds it.
  ArbiterSpec rtl_spec = tc.spec;
  rtl_spec.impl = "rtl";
  std::unique_ptr<Arbiter> made = make_arbiter(rtl_spec, tc.n);
  auto* rtl = dynamic_cast<RtlArbiter*>(made.get());
  ASSERT_NE(rtl, nullptr) << made->describe();
  CppArbiter cpp = make_cpp(tc.spec, tc.n);
  ArbiterSpec cpp_spec = tc.spec;
  cpp_spec.impl = "cpp";
  ASSERT_EQ(cpp.arb->describe(), make_arbiter(cpp_spec, tc.n)->describe());
  ASSERT_EQ(made->describe(), "rtl:" + cpp.arb->describe());
  Waves::get().request(rtl_vcd.string());  // opened only if a mismatch is replayed
  Waves::get().set_recording(false);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // end of elaboration: the RTL is reset and configured

  const std::optional<Mismatch> m = run(cpp, *rtl, seed, tc.n, cycles - 1);
  if (!m) {
    Waves::get().close();
    SUCCEED() << cycles << " cycles";
    return;
  }

  // Replay the same seed from reset with waveforms over the last kWindow cycles.
  fs::create_directories(dir);
  cpp.arb->reset();
  rtl->reset();
  std::optional<Mismatch> again;
  {
    BothWaves both(both_vcd.string(), cpp, tc.n);
    again = run(cpp, *rtl, seed, tc.n, m->cycle, &both, m->cycle >= kWindow ? m->cycle - kWindow : 0);
  }
  Waves::get().close();
  const Mismatch& r = again ? *again : *m;
  std::ostringstream msg;
  msg << "lockstep mismatch: " << cpp.arb->describe() << " over " << tc.n << " requesters (RTL "
      << rtl->model().top << ", N=" << rtl->model().n << "), seed " << seed << ", cycle " << m->cycle << "\n"
      << "  requests   " << bits(m->req, tc.n) << "\n"
      << "  C++ grant  " << m->cpp << "\n"
      << "  RTL grant  " << (m->rtl.valid ? std::to_string(m->rtl.gnt) : std::string("none"))
      << " (gnt_valid=" << m->rtl.valid << ", gnt=" << m->rtl.gnt << ")\n"
      << "  C++ state before the cycle: " << r.state << "\n"
      << (again && again->cycle == m->cycle ? "" : "  (the replay did NOT reproduce it)\n")
      << "  waveforms: " << both_vcd.string() << " (both), " << rtl_vcd.string() << " (RTL)";
  FAIL() << msg.str();
}

INSTANTIATE_TEST_SUITE_P(Arbiters, Lockstep, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

}  // namespace
}  // namespace arbsim
