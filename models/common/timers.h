// Callbacks at a delay from now, for models whose steps wait a fixed time (an NVMe flash
// access, a copy's submission cost): one SC_METHOD and one event serve any number of
// pending callbacks. Callbacks due at the same time run in the order they were set, so runs
// stay deterministic.
#pragma once
#include <functional>
#include <map>
#include <systemc>

namespace arbsim {

class Timers : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Timers);
  explicit Timers(sc_core::sc_module_name name);
  void after(const sc_core::sc_time& delay, std::function<void()> f);
  bool empty() const { return due_.empty(); }

 private:
  void on_timer();  // SC_METHOD: runs the callbacks that are due
  std::multimap<sc_core::sc_time, std::function<void()>> due_;  // by due time, then order set
  sc_core::sc_event event_;
};

}  // namespace arbsim
