#include "models/pcie/arbiters/strict_priority.h"

#include <stdexcept>
#include "models/pcie/arbiters/catalogue.h"

namespace arbsim {

StrictPriorityArbiter::StrictPriorityArbiter(int n_requesters) : n_(n_requesters) {
  if (n_ < 1 || n_ > kMaxRequesters)
    throw std::invalid_argument("strict-priority arbiter: requester count " +
                                std::to_string(n_) + " outside 1.." +
                                std::to_string(kMaxRequesters));
}

// The highest requester: higher VC ID = higher priority.
int StrictPriorityArbiter::grant(const Requests& requests) { return requests.highest_below(n_); }

const ArbiterType kStrictPriorityType{
    "strict", "strict priority: the highest requester (VC7 above VC0)", false,
    [](const ArbiterSpec&, int n) -> std::unique_ptr<Arbiter> { return std::make_unique<StrictPriorityArbiter>(n); }};

}  // namespace arbsim
