#include "models/pcie/arbiters/rtl/rtl_waves.h"

#include <cmath>
#include <stdexcept>
#include <systemc>
#include <verilated.h>
#include <verilated_vcd_c.h>
#include "models/pcie/arbiters/rtl/pin_model.h"

namespace arbsim::rtl {

Waves& Waves::get() {
  // Never destroyed: it may outlive the Verilator context at exit; close() writes the file.
  static Waves* w = new Waves();
  return *w;
}

void Waves::request(const std::string& path) {
  if (path.empty() && vcd_ && vcd_->isOpen()) {  // the run is over: written out now, not at exit
    close();
    path_.clear();
    return;
  }
  if (vcd_ && vcd_->isOpen())
    throw std::logic_error("rtl waves: the waveform is already being written to " + path_);
  path_ = path;
  if (path_.empty()) {
    vcd_.reset();
    return;
  }
  Verilated::traceEverOn(true);
  vcd_ = std::make_unique<VerilatedVcdC>();
}

void Waves::attach(PinModel& model) {
  if (!vcd_ || vcd_->isOpen()) return;
  model.trace(vcd_.get());
  ++attached_;
}

void Waves::detach() {
  if (attached_ > 0 && --attached_ == 0) close();
}

void Waves::close() {
  if (vcd_ && vcd_->isOpen()) vcd_->close();
  vcd_.reset();
  attached_ = 0;
}

uint64_t Waves::stamp(bool after_edge) {
  uint64_t t;
  if (cycle_ >= 0) {
    t = static_cast<uint64_t>(cycle_) * static_cast<uint64_t>(period_ps_) * 1000u +
        (after_edge ? static_cast<uint64_t>(period_ps_) * 500u : 0u);
  } else {
    static const double fs_per_tick = sc_core::sc_get_time_resolution().to_seconds() * 1e15;
    t = static_cast<uint64_t>(std::llround(static_cast<double>(sc_core::sc_time_stamp().value()) * fs_per_tick));
  }
  if (dumped_ && t <= last_fs_) t = last_fs_ + 1;
  return t;
}

void Waves::dump(bool after_edge) {
  if (!recording() || !vcd_ || attached_ == 0) return;
  if (!vcd_->isOpen()) {
    vcd_->set_time_resolution("1fs");
    vcd_->open(path_.c_str());
  }
  last_fs_ = stamp(after_edge);
  dumped_ = true;
  vcd_->dump(last_fs_);
}

}  // namespace arbsim::rtl
