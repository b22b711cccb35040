#include "models/pcie/fabric_scheduler.h"
#include "models/pcie/egress_port.h"

namespace arbsim {

FabricScheduler& FabricScheduler::instance() {
  // Lives as long as the process: SystemC cannot remove a module once elaborated.
  static FabricScheduler* s = new FabricScheduler("fabric_scheduler");
  return *s;
}

FabricScheduler::FabricScheduler(sc_core::sc_module_name name) : sc_core::sc_module(name) {
  SC_METHOD(run);
  sensitive << due_;
  dont_initialize();
}

int FabricScheduler::enrol(EgressPort* p) {
  ports_.push_back(p);
  return cal_.add();
}

void FabricScheduler::arm(uint64_t at_ps) {
  armed_ = at_ps;
  due_.notify(sc_core::sc_time::from_value(at_ps) - sc_core::sc_time_stamp());
}

void FabricScheduler::run() {
  const uint64_t now = sc_core::sc_time_stamp().value();
  running_ = true;
  for (int who; (who = cal_.pop_due(now)) >= 0;) ports_[static_cast<std::size_t>(who)]->wake_up(now);
  running_ = false;
  armed_ = PortCalendar::kNever;
  const uint64_t next = cal_.earliest();
  if (next != PortCalendar::kNever) arm(next);
}

}  // namespace arbsim
