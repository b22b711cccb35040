#include "models/pcie/arbiters/round_robin.h"

#include <stdexcept>
#include "models/pcie/arbiters/catalogue.h"

namespace arbsim {

RoundRobinArbiter::RoundRobinArbiter(int n_requesters) : n_(n_requesters) {
  if (n_ < 1 || n_ > kMaxRequesters)
    throw std::invalid_argument("round-robin arbiter: requester count " + std::to_string(n_) +
                                " outside 1.." + std::to_string(kMaxRequesters));
  reset();
}

// Pointer starts at n-1 so the first grant goes to the lowest requesting index.
void RoundRobinArbiter::reset() { last_ = n_ - 1; }

int RoundRobinArbiter::grant(const Requests& requests) {
  // Requesters strictly after the pointer win; otherwise wrap to the lowest requester.
  int g = requests.first_in(last_ + 1, n_);
  if (g < 0) g = requests.first_in(0, n_);
  if (g < 0) return -1;  // no grant, pointer stays (it moves only on a grant)
  last_ = g;
  return g;
}

const ArbiterType kRoundRobinType{
    "rr", "round robin: the first requester after the last granted one (PCIe hardware-fixed arbitration)", false,
    [](const ArbiterSpec&, int n) -> std::unique_ptr<Arbiter> { return std::make_unique<RoundRobinArbiter>(n); }};

}  // namespace arbsim
