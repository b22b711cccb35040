// The pin-level adapter that puts a verilated Verilog arbiter (rtl/) behind the Arbiter
// interface: `impl: rtl` in an arbiter spec, or --arbiter-impl rtl (docs/cosim.md).
//
// Each RtlArbiter owns one RtlArbiterModule: an sc_module holding the Verilator --sc model
// of the arbiter top, with every port bound to a zero-delay Wire. One grant() is one cycle of
// the arbiter's clock, the arbitration clock of the egress port that asks:
//   1. drive req (clk low) and evaluate: the combinational grant settles; read gnt_valid, gnt;
//   2. raise clk and evaluate: the registers load (only when req != 0, docs/arbiters.md §1).
// Configuration (threshold, phase table) is driven on the same pins at the end of
// elaboration: reset, then one table write per clock.
//
// Arbiters are elaborated (they create SystemC objects), so make_arbiter(impl rtl) must run
// before the simulation starts. One built before the start and destroyed before it (config
// validation does that) keeps its SystemC module alive, inert, for the rest of the process:
// SystemC cannot remove a module's processes.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include <systemc>
#include "models/pcie/arbiters/arbiter.h"
#include "models/pcie/arbiters/rtl/pin_model.h"

namespace arbsim::rtl {

// What the RTL needs from an ArbiterSpec.
struct RtlSetup {
  int n = 1;                  // requesters the caller has (<= the model's N)
  uint32_t threshold = 0;     // starvation threshold, 0 = off
  std::vector<int> phases;    // wrr phase table (empty otherwise)
  std::string describe;       // the C++ arbiter's describe()
};

// The raw pins of one cycle.
struct RawGrant {
  bool valid = false;
  uint32_t gnt = 0;
};

class RtlArbiterModule : public sc_core::sc_module {
 public:
  RtlArbiterModule(sc_core::sc_module_name name, const ModelEntry& model, RtlSetup setup);
  ~RtlArbiterModule() override;

  RawGrant cycle(uint32_t requests);  // only once elaboration has ended
  void configure();  // reset, then load the phase table (from the end of elaboration on)
  void orphan() { orphaned_ = true; }

  const ModelEntry& model() const { return entry_; }
  const RtlSetup& setup() const { return setup_; }

 private:
  void end_of_elaboration() override;
  void start_of_simulation() override;
  void clock();

  const ModelEntry& entry_;
  RtlSetup setup_;
  Pins pins_;
  std::unique_ptr<PinModel> model_;
  bool bound_ = false, traced_ = false, orphaned_ = false;
};

class RtlArbiter : public Arbiter {
 public:
  // Throws std::invalid_argument when the simulation has already started.
  RtlArbiter(const ModelEntry& model, RtlSetup setup);
  ~RtlArbiter() override;

  // Checks the RTL's answer: gnt_valid iff a request, and a granted index that requested.
  // A violation is a model error (SC_REPORT_ERROR) naming the arbiter and the pins.
  using Arbiter::grant;
  int grant(const Requests& requests) override;
  void reset() override { mod_->configure(); }
  int requesters() const override { return mod_->setup().n; }
  std::string describe() const override { return "rtl:" + mod_->setup().describe; }

  // One cycle with no checks (the lockstep testbench compares the pins itself).
  RawGrant cycle(uint32_t requests) { return mod_->cycle(requests & valid_); }
  const char* name() const { return mod_->name(); }
  const ModelEntry& model() const { return mod_->model(); }

 private:
  RtlArbiterModule* mod_;  // owned; see the class comment of this file
  uint32_t valid_;
};

// The verilated model for `type` and `n` requesters: the smallest N >= max(n, 2) built.
// Null when there is none.
const ModelEntry* find_model(const std::string& type, int n);

}  // namespace arbsim::rtl
