#include "models/pcie/arbiters/strict_priority.h"

#include <stdexcept>

namespace arbsim {

StrictPriorityArbiter::StrictPriorityArbiter(int n_requesters) : n_(n_requesters) {
  if (n_ < 1 || n_ > kMaxRequesters)
    throw std::invalid_argument("strict-priority arbiter: requester count " +
                                std::to_string(n_) + " outside 1.." +
                                std::to_string(kMaxRequesters));
  valid_ = n_ >= 32 ? ~0u : ((1u << n_) - 1u);
}

int StrictPriorityArbiter::grant(uint32_t requests) {
  const uint32_t req = requests & valid_;
  if (req == 0) return -1;
  return 31 - __builtin_clz(req);  // highest set bit: higher VC ID = higher priority
}

}  // namespace arbsim
