#include "models/pcie/arbiters/starvation_guard.h"

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
  valid_ = n_ >= 32 ? ~0u : ((1u << n_) - 1u);
}

void StarvationGuard::reset() {
  wait_.fill(0);
  inner_->reset();
}

int StarvationGuard::grant(uint32_t requests) {
  const uint32_t req = requests & valid_;
  if (req == 0) return -1;  // idle cycle: counters and inner state unchanged
  int granted = forced_grant(req);
  // A forced grant bypasses the inner arbiter so its pointer does not move.
  if (granted < 0) granted = inner_->grant(req);
  update_counters(req, granted);
  return granted;
}

// The longest waiter among requesters at the threshold; ties go to the highest index
// (the higher VC, matching strict priority, seed 000 §3.2).
int StarvationGuard::forced_grant(uint32_t req) const {
  int best = -1;
  uint32_t best_wait = threshold_;
  for (uint32_t bits = req; bits != 0; bits &= bits - 1) {
    const int i = __builtin_ctz(bits);  // ascending, so ">=" lets a higher index win ties
    if (wait_[size_t(i)] >= best_wait) {
      best = i;
      best_wait = wait_[size_t(i)];
    }
  }
  return best;
}

// Counts consecutive unserved cycles of the current head: the grantee starts a new head,
// a requester that dropped its request has no head waiting.
void StarvationGuard::update_counters(uint32_t req, int granted) {
  for (int i = 0; i < n_; ++i) {
    const bool waiting = ((req >> i) & 1u) != 0 && i != granted;
    wait_[size_t(i)] = waiting ? wait_[size_t(i)] + 1 : 0;
  }
}

std::string StarvationGuard::describe() const {
  return inner_->describe() + "+starve(" + std::to_string(threshold_) + ")";
}

}  // namespace arbsim
