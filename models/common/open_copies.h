// The copies an app or device has issued and not yet seen end, each with its fabric transfer
// once its engine has started it. Two figures need them:
// - the bytes that copies straddling the end of the warm-up deliver inside the statistics
//   window (sim.warmup_ns; docs/results.md "Warm-up"). Such a copy counts in no statistic of
//   its own (it was issued during the warm-up), but what it delivers after the warm-up is
//   part of the window's data rate: without it a stream kept 8 copies deep read 65.7 Gb/s on
//   a link that the same stream filled at 103.9 Gb/s over the whole window (the copies issued
//   in the window wait behind those issued before it, and the rate's span began at the first
//   of them);
// - how near the open copies are to their end at a cut-off (the flow mode's note on copies
//   that end within its accuracy of sim.time_ns: platforms/system.h).
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>
#include <systemc>

namespace arbsim {

// What an app's or device's data rate adds after a warm-up (docs/results.md "Warm-up"): the
// bytes its work under way at the warm-up's end delivered after it, the last of them at
// `until`, and whether any was under way (`open_at_start`: the rate then runs from `from`,
// the warm-up's end). Kept beside its statistics (AppStats, DeviceStats).
struct Carried {
  uint64_t bytes = 0;
  sc_core::sc_time until, from;
  bool open_at_start = false;
  void add(uint64_t b) {
    if (b == 0) return;
    bytes += b;
    until = sc_core::sc_time_stamp();
  }
};

class OpenCopies {
 public:
  using Delivered = std::function<uint64_t(uint64_t transfer)>;  // of a fabric transfer, so far

  // A copy of `bytes` was issued: its handle for started() and close(). (A slot reused once
  // its copy is done: one per copy, on the flow mode's hot path, no allocation once grown.)
  uint64_t open(uint64_t bytes) {
    std::size_t slot = slots_.size();
    if (free_.empty()) {
      slots_.emplace_back();
    } else {
      slot = free_.back();
      free_.pop_back();
    }
    slots_[slot] = Copy{};
    slots_[slot].bytes = bytes;
    slots_[slot].open = true;
    ++open_;
    return slot;
  }
  // Its engine took it as fabric transfer `transfer` at `now_ns` (CopyCommand::on_start).
  void started(uint64_t handle, uint64_t transfer, double now_ns) {
    Copy& c = slots_[handle];
    c.transfer = transfer;
    c.started = true;
    c.started_ns = now_ns;
  }
  // The window starts now: what each open copy has delivered so far stays outside it.
  // Returns whether any copy was open.
  bool start_window(const Delivered& delivered) {
    for (Copy& c : slots_)
      if (c.open) {
        c.straddles = true;
        c.before = c.started ? delivered(c.transfer) : 0;
      }
    return open_ > 0;
  }
  // Copy `handle` is done: `carried`, the bytes it delivered inside the window when it was
  // open at the window's start, else 0 (it counts in full, or not at all, as its issue
  // says); and when its engine started it (-1: never started).
  struct Closed {
    uint64_t carried = 0;
    double started_ns = -1;
  };
  Closed close(uint64_t handle) {
    Copy& c = slots_[handle];
    const Closed done{c.straddles ? c.bytes - std::min(c.bytes, c.before) : 0, c.started ? c.started_ns : -1};
    c.open = false;
    free_.push_back(handle);
    --open_;
    return done;
  }
  // The largest share of its bytes an open copy has delivered (0 with none open).
  double nearest_end(const Delivered& delivered) const {
    double most = 0;
    for (const Copy& c : slots_)
      if (c.open && c.started && c.bytes > 0)
        most = std::max(most, static_cast<double>(delivered(c.transfer)) / static_cast<double>(c.bytes));
    return most;
  }

 private:
  struct Copy {
    uint64_t bytes = 0, transfer = 0, before = 0;
    double started_ns = 0;
    bool open = false, started = false, straddles = false;
  };
  std::vector<Copy> slots_;
  std::vector<std::size_t> free_;
  std::size_t open_ = 0;
};

}  // namespace arbsim
