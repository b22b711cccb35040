#include "models/pcie/arbiters/starvation_guard.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace arbsim {

namespace {

std::unique_ptr<Arbiter> checked_inner(std::unique_ptr<Arbiter> inner) {
  if (!inner) throw std::invalid_argument("starvation guard: inner arbiter is null");
  return inner;
}

}  // namespace

StarvationGuard::StarvationGuard(std::unique_ptr<Arbiter> inner, int threshold)
    : inner_(checked_inner(std::move(inner))), n_(inner_->requesters()) {
  if (threshold < 1)
    throw std::invalid_argument("starvation guard: threshold " + std::to_string(threshold) +
                                " must be >= 1");
  threshold_ = uint32_t(threshold);
  wait_.assign(size_t(n_), 0);
}

void StarvationGuard::reset() {
  std::fill(wait_.begin(), wait_.end(), 0);
  waiting_.clear();
  inner_->reset();
}

int StarvationGuard::grant(const Requests& req) {
  if (req.first_in(0, n_) < 0) return -1;  // idle cycle: counters and inner state unchanged
  int granted = forced_grant(req);
  // A forced grant bypasses the inner arbiter so its pointer does not move.
  if (granted < 0) granted = inner_->grant(req);
  update_counters(req, granted);
  return granted;
}

// The longest waiter among requesters at the threshold; ties go to the highest index
// (the higher VC, matching strict priority, seed 000 §3.2).
int StarvationGuard::forced_grant(const Requests& req) const {
  int best = -1;
  uint32_t best_wait = threshold_;
  req.for_each_below(n_, [&](int i) {  // ascending, so ">=" lets a higher index win ties
    if (wait_[size_t(i)] >= best_wait) {
      best = i;
      best_wait = wait_[size_t(i)];
    }
  });
  return best;
}

// Counts consecutive unserved cycles of the current head: the grantee starts a new head,
// a requester that dropped its request has no head waiting. Only requesters that were or
// are waiting are visited, so a cycle costs O(requests), not O(n).
void StarvationGuard::update_counters(const Requests& req, int granted) {
  for (int i : waiting_)
    if (!req.test(i)) wait_[size_t(i)] = 0;
  waiting_.clear();
  req.for_each_below(n_, [&](int i) {
    if (i == granted) {
      wait_[size_t(i)] = 0;
    } else {
      ++wait_[size_t(i)];
      waiting_.push_back(i);
    }
  });
}

std::string StarvationGuard::describe() const {
  return inner_->describe() + "+starve(" + std::to_string(threshold_) + ")";
}

}  // namespace arbsim
