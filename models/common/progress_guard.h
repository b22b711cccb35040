// A no-progress watchdog for a process that re-arms itself: it counts the activations at
// one simulated time, and says "stuck" once they exceed a bound. A model that keeps
// re-triggering itself without time advancing (a zero-delay loop: a stream whose issue
// period rounds to 0 ps) would otherwise hang the run and grow without bound; with the
// guard the run ends with an error naming the process. Plain C++: the caller passes the
// time (the kernel's picoseconds) and reports through sc_report.
#pragma once
#include <cstdint>

namespace arbsim {

class ProgressGuard {
 public:
  // Far above any legitimate count: one process wakes a handful of times per timestamp.
  static constexpr uint64_t kMaxActivationsAtOneTime = 1000000;

  // One activation at `now_ps`; true when the bound is exceeded at that time.
  bool stuck(uint64_t now_ps) {
    if (now_ps != at_) {
      at_ = now_ps;
      count_ = 0;
    }
    return ++count_ > kMaxActivationsAtOneTime;
  }

 private:
  uint64_t at_ = UINT64_MAX;
  uint64_t count_ = 0;
};

}  // namespace arbsim
