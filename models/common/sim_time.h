// Simulated time as nanoseconds in a double: the unit of results.json, the logs and the
// flow-level models. One place for the conversion, so every figure is rounded the same way.
#pragma once
#include <systemc>

namespace arbsim {

inline double sim_ns(const sc_core::sc_time& t) { return t.to_seconds() * 1e9; }

// The kernel's current time (sc_time_stamp()) in nanoseconds.
inline double sim_now_ns() { return sim_ns(sc_core::sc_time_stamp()); }

}  // namespace arbsim
