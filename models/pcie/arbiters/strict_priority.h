// Strict-priority arbiter: the highest requesting index wins (VC7 highest, VC0 lowest),
// as in the seed's Throughput-Oriented Scheduler (seed 000 §3.2) and the PCIe strict
// priority VC group (docs/pcie-reference.md §4). Stateless. Cycle semantics: docs/arbiters.md.
#pragma once
#include <cstdint>
#include <string>
#include "models/pcie/arbiters/arbiter.h"

namespace arbsim {

class StrictPriorityArbiter : public Arbiter {
 public:
  explicit StrictPriorityArbiter(int n_requesters);  // throws std::invalid_argument unless 1..kMaxRequesters

  using Arbiter::grant;
  int grant(const Requests& requests) override;  // requesters >= n are ignored
  void reset() override {}                // no state
  int requesters() const override { return n_; }
  std::string describe() const override { return "strict"; }

 private:
  int n_;
};

}  // namespace arbsim
