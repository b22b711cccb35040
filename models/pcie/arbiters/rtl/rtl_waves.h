// The RTL's own waveform: one Verilator VCD holding every RTL arbiter of the process
// (docs/cosim.md "Waveforms"). `pcie-arbsim run --vcd FILE.vcd` asks for FILE.rtl.vcd.
//
// Each arbitration cycle dumps twice: after the request settles (clk low, the combinational
// grant visible) and after the clock edge (the registers loaded). Times are femtoseconds:
// the kernel's time, so the file lines up with the model's VCD; when several RTL arbiters
// act at the same kernel instant, each dump moves 1 fs past the one before.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

class VerilatedVcdC;

namespace arbsim::rtl {

class PinModel;

class Waves {
 public:
  static Waves& get();

  // Before the simulation starts; "" turns the waveform off (after it: writes it out and closes it).
  void request(const std::string& path);
  bool requested() const { return !path_.empty(); }
  const std::string& path() const { return path_; }

  // A model joins the file (at start_of_simulation: after elaboration, before the file opens).
  void attach(PinModel& model);
  // An attached model goes away; after the last one the file is closed.
  void detach();

  // Dumps the current values of every attached model (opens the file at the first dump).
  void dump(bool after_edge);

  // Only dump while recording (default on). The lockstep testbench records a replay only.
  void set_recording(bool on) { recording_ = on; }
  bool recording() const { return recording_ && requested(); }
  // A testbench's own time base: cycle k at k * period_ps, the clock edge half a period later.
  // A negative cycle returns to the kernel's time.
  void set_cycle(int64_t cycle, int64_t period_ps) {
    cycle_ = cycle;
    period_ps_ = period_ps;
  }

  void close();

 private:
  Waves() = default;
  uint64_t stamp(bool after_edge);

  std::string path_;
  std::unique_ptr<VerilatedVcdC> vcd_;
  int attached_ = 0;
  bool recording_ = true;
  bool dumped_ = false;
  uint64_t last_fs_ = 0;
  int64_t cycle_ = -1, period_ps_ = 1000;
};

}  // namespace arbsim::rtl
