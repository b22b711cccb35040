// The bytes that copies straddling the end of the warm-up deliver inside the statistics
// window (sim.warmup_ns; docs/results.md "Warm-up"). Such a copy counts in no statistic of
// its own (it was issued during the warm-up), but the bytes it delivers after the warm-up
// are part of the window's data rate: without them a stream kept 8 copies deep read 65.7
// Gb/s on a link that the same stream filled at 103.9 Gb/s over the whole window (the copies
// issued in the window wait behind those issued before it, and the rate's span began at
// the first of them). One per app or device: it follows each copy from its issue to its
// end, and at the window's start notes what each open copy has delivered so far.
#pragma once
#include <cstdint>
#include <functional>
#include <unordered_map>

namespace arbsim {

class WindowCarry {
 public:
  // A copy was issued: its handle for started() and close().
  uint64_t open() {
    open_.emplace(next_, Copy{});
    return next_++;
  }
  // Its engine took it as fabric transfer `transfer` (CopyCommand::on_start).
  void started(uint64_t handle, uint64_t transfer) {
    const auto it = open_.find(handle);
    if (it == open_.end()) return;
    it->second.transfer = transfer;
    it->second.started = true;
  }
  // The window starts now: what each open copy has delivered so far (`delivered`, of a
  // fabric transfer) stays outside it. Returns whether any copy was open.
  bool start_window(const std::function<uint64_t(uint64_t)>& delivered) {
    for (auto& [handle, c] : open_) {
      c.straddles = true;
      c.before = c.started ? delivered(c.transfer) : 0;
    }
    return !open_.empty();
  }
  // Copy `handle` of `bytes` is done: the bytes it delivered inside the window when it was
  // open at the window's start, else 0 (it counts in full, or not at all, as its issue says).
  uint64_t close(uint64_t handle, uint64_t bytes) {
    const auto it = open_.find(handle);
    if (it == open_.end()) return 0;
    const uint64_t carried = it->second.straddles ? bytes - std::min(bytes, it->second.before) : 0;
    open_.erase(it);
    return carried;
  }

 private:
  struct Copy {
    uint64_t transfer = 0, before = 0;
    bool started = false, straddles = false;
  };
  std::unordered_map<uint64_t, Copy> open_;
  uint64_t next_ = 0;
};

}  // namespace arbsim
