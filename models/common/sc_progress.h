// ProgressGuard (progress_guard.h) for SystemC processes: reports a zero-delay loop as a
// model error (sc_report, which ends the run with exit 1) naming the process.
#pragma once
#include <string>
#include <systemc>
#include "models/common/progress_guard.h"

namespace arbsim {

inline void guard_progress(ProgressGuard& guard, const sc_core::sc_object& who) {
  if (!guard.stuck(sc_core::sc_time_stamp().value())) return;
  const std::string msg = std::string(who.name()) + " woke more than " +
                          std::to_string(ProgressGuard::kMaxActivationsAtOneTime) + " times at " +
                          sc_core::sc_time_stamp().to_string() +
                          " without simulated time advancing (a zero-delay loop)";
  SC_REPORT_ERROR("arbsim/no-progress", msg.c_str());
}

}  // namespace arbsim
