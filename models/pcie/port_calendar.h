// The fabric's calendar of egress-port wake-ups (issue 13, docs/performance.md "One calendar
// for the fabric"): integer-picosecond times on one binary heap, in place of one sc_event per
// port in the kernel's timed-event heap. Plain C++, tested without a kernel.
//
// Each port has at most one pending wake, the earliest asked for: what sc_event::notify does
// with timed notifications (an earlier one replaces a later one, a later one is dropped).
// Wakes due at the same picosecond are handed out in the order they were asked for: a fixed
// tie order, where the kernel's was the layout of its heap.
#pragma once
#include <cstdint>
#include <vector>

namespace arbsim {

class PortCalendar {
 public:
  static constexpr uint64_t kNever = UINT64_MAX;

  // Enrols one more port; returns its index.
  int add();
  int size() const { return static_cast<int>(pending_.size()); }
  // Asks for port `who` to run at `at_ps`; true if that is now its earliest pending wake.
  bool wake(int who, uint64_t at_ps);
  // Removes and returns the next port due at or before `now_ps`, or -1 when none is.
  int pop_due(uint64_t now_ps);
  // The time of the next pending wake, kNever when none is pending.
  uint64_t earliest();
  uint64_t pending(int who) const { return pending_[who]; }
  // Drops port `who`'s pending wake, if any.
  void cancel(int who) {
    pending_[who] = kNever;
    ticket_[who] = kNever;
  }

 private:
  struct Entry {
    uint64_t at, seq;
    int who;
  };
  // A replaced wake stays in the heap until it reaches the top: an entry is live only while
  // its sequence number is its port's ticket.
  bool live(const Entry& e) const { return ticket_[e.who] == e.seq; }
  void drop_stale_top();
  void pop_top();

  std::vector<Entry> heap_;
  std::vector<uint64_t> pending_;  // per port: its pending wake, kNever when none
  std::vector<uint64_t> ticket_;   // per port: the sequence number of that entry
  uint64_t seq_ = 0;
};

}  // namespace arbsim
