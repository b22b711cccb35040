#include "models/pcie/arbiters/strict_priority.h"

#include <stdexcept>

namespace arbsim {

StrictPriorityArbiter::StrictPriorityArbiter(int n_requesters) : n_(n_requesters) {
  if (n_ < 1 || n_ > kMaxRequesters)
    throw std::invalid_argument("strict-priority arbiter: requester count " +
                                std::to_string(n_) + " outside 1.." +
                                std::to_string(kMaxRequesters));
}

// The highest requester: higher VC ID = higher priority.
int StrictPriorityArbiter::grant(const Requests& requests) { return requests.highest_below(n_); }

}  // namespace arbsim
