#include "models/pcie/port_calendar.h"
#include <algorithm>

namespace arbsim {

namespace {
// A min-heap on (time, sequence) through the standard heap algorithms (which build max-heaps).
struct Later {
  template <class E>
  bool operator()(const E& a, const E& b) const {
    return a.at != b.at ? a.at > b.at : a.seq > b.seq;
  }
};
}  // namespace

int PortCalendar::add() {
  pending_.push_back(kNever);
  ticket_.push_back(kNever);
  return size() - 1;
}

bool PortCalendar::wake(int who, uint64_t at_ps) {
  if (at_ps >= pending_[who]) return false;
  pending_[who] = at_ps;
  ticket_[who] = seq_;
  heap_.push_back({at_ps, seq_++, who});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
  return true;
}

void PortCalendar::pop_top() {
  std::pop_heap(heap_.begin(), heap_.end(), Later{});
  heap_.pop_back();
}

void PortCalendar::drop_stale_top() {
  while (!heap_.empty() && !live(heap_.front())) pop_top();
}

int PortCalendar::pop_due(uint64_t now_ps) {
  drop_stale_top();
  if (heap_.empty() || heap_.front().at > now_ps) return -1;
  const int who = heap_.front().who;
  pop_top();
  cancel(who);
  return who;
}

uint64_t PortCalendar::earliest() {
  drop_stale_top();
  return heap_.empty() ? kNever : heap_.front().at;
}

}  // namespace arbsim
