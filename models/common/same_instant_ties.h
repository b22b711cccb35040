// Submissions of several owners (apps) at one picosecond where one of them then waits: an
// order the model does not define. SystemC runs the processes of one instant in the order
// of its own event heap, which the apps' places in the config can change (a user trial: two
// periodic tasks released together met and missed deadlines the other way round when
// swapped). A queue that serves in submission order (a GPU's SMs, the batch runtime) records
// them here, and results.json names them (System::tie_notes()). Plain C++.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace arbsim {

class SameInstantTies {
 public:
  // `owner` submits at `now_ps`; `waits`: whether a submission of this instant waits now.
  void submitted(uint64_t now_ps, int owner, bool waits) {
    if (now_ps != at_ps_) {
      at_ps_ = now_ps;
      owners_now_.clear();
    }
    if (std::find(owners_now_.begin(), owners_now_.end(), owner) == owners_now_.end()) owners_now_.push_back(owner);
    if (owners_now_.size() < 2 || !waits) return;
    if (counted_ps_ != now_ps && times_++ == 0) first_ns_ = static_cast<double>(now_ps) / 1000.0;
    counted_ps_ = now_ps;
    for (int o : owners_now_)
      if (!std::binary_search(owners_.begin(), owners_.end(), o)) owners_.insert(std::upper_bound(owners_.begin(), owners_.end(), o), o);
  }
  int times() const { return times_; }
  double first_ns() const { return first_ns_; }
  const std::vector<int>& owners() const { return owners_; }  // ascending

 private:
  uint64_t at_ps_ = UINT64_MAX, counted_ps_ = UINT64_MAX;
  std::vector<int> owners_now_, owners_;
  int times_ = 0;
  double first_ns_ = 0;
};

}  // namespace arbsim
