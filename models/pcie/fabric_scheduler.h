// One SystemC process that runs the fabric's egress ports from its own calendar (issue 13):
// a port asks for a wake at an absolute time, the scheduler's single SC_METHOD is notified
// once per distinct time, and at that time runs every port due, in the order their wakes
// were asked for (PortCalendar). A port woken again at the same time by a port that ran
// before it runs again in the same activation, where the kernel would have run it in the
// next delta cycle. The kernel still orders everything else (endpoints, DMA engines, the
// driver): they wake ports through the scheduler.
//
// One scheduler per process, as SystemC elaborates one design per process: the packet
// fabric creates it before its nodes (a top-level module "fabric_scheduler"); a port built
// without a fabric (a harness test) creates it on first use.
#pragma once
#include <cstdint>
#include <vector>
#include <systemc>
#include "models/pcie/port_calendar.h"

namespace arbsim {

class EgressPort;

class FabricScheduler : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(FabricScheduler);
  static FabricScheduler& instance();

  int enrol(EgressPort* p);
  // A port going away (before the simulation starts) is never run again.
  void leave(int who) {
    cal_.cancel(who);
    ports_[static_cast<std::size_t>(who)] = nullptr;
  }
  // Port `who` runs at `at_ps` (absolute picoseconds, not earlier than now).
  void wake(int who, uint64_t at_ps) {
    if (cal_.wake(who, at_ps) && !running_ && at_ps < armed_) arm(at_ps);
  }

 private:
  explicit FabricScheduler(sc_core::sc_module_name name);
  void run();
  void arm(uint64_t at_ps);

  PortCalendar cal_;
  std::vector<EgressPort*> ports_;
  sc_core::sc_event due_;
  uint64_t armed_ = PortCalendar::kNever;  // the time due_ is notified for
  bool running_ = false;
};

}  // namespace arbsim
