#include "models/common/timers.h"

namespace arbsim {

Timers::Timers(sc_core::sc_module_name name) : sc_core::sc_module(name) {
  SC_METHOD(on_timer);
  sensitive << event_;
  dont_initialize();
}

void Timers::after(const sc_core::sc_time& delay, std::function<void()> f) {
  const sc_core::sc_time due = sc_core::sc_time_stamp() + delay;
  const bool earliest = due_.empty() || due < due_.begin()->first;
  due_.emplace(due, std::move(f));
  if (earliest) event_.notify(delay);
}

void Timers::on_timer() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  while (!due_.empty() && due_.begin()->first <= now) {
    std::function<void()> f = std::move(due_.begin()->second);
    due_.erase(due_.begin());
    f();
  }
  if (!due_.empty()) event_.notify(due_.begin()->first - now);
}

}  // namespace arbsim
