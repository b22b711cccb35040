#include "models/pcie/arbiters/round_robin.h"

#include <stdexcept>

namespace arbsim {

namespace {

uint32_t low_bits(int n) { return n >= 32 ? ~0u : ((1u << n) - 1u); }

}  // namespace

RoundRobinArbiter::RoundRobinArbiter(int n_requesters) : n_(n_requesters) {
  if (n_ < 1 || n_ > kMaxRequesters)
    throw std::invalid_argument("round-robin arbiter: requester count " + std::to_string(n_) +
                                " outside 1.." + std::to_string(kMaxRequesters));
  valid_ = low_bits(n_);
  reset();
}

// Pointer starts at n-1 so the first grant goes to the lowest requesting index.
void RoundRobinArbiter::reset() { last_ = n_ - 1; }

int RoundRobinArbiter::grant(uint32_t requests) {
  const uint32_t req = requests & valid_;
  if (req == 0) return -1;  // no grant, pointer stays (it moves only on a grant)
  // Bits strictly above the pointer win; otherwise wrap to the lowest requester.
  // (2u << 31) is 0 for unsigned, so the mask is all-ones when last_ == 31.
  const uint32_t at_or_below = (2u << last_) - 1u;
  const uint32_t above = req & ~at_or_below;
  last_ = __builtin_ctz(above != 0 ? above : req);
  return last_;
}

}  // namespace arbsim
