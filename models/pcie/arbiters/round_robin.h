// Round-robin arbiter: the PCIe "hardware-fixed" VC/port arbitration scheme
// (docs/pcie-reference.md §4, VC Arbitration Capability bit0). Cycle semantics: docs/arbiters.md.
#pragma once
#include <cstdint>
#include <string>
#include "models/pcie/arbiters/arbiter.h"

namespace arbsim {

class RoundRobinArbiter : public Arbiter {
 public:
  explicit RoundRobinArbiter(int n_requesters);  // throws std::invalid_argument unless 1..kMaxRequesters

  using Arbiter::grant;
  // Grants the first requesting index after the last granted one (wrapping).
  // Requesters >= n are ignored.
  int grant(const Requests& requests) override;
  void reset() override;
  int requesters() const override { return n_; }
  std::string describe() const override { return "rr"; }

  int pointer() const { return last_; }  // last granted index (n-1 after reset)

 private:
  int n_;
  int last_;
};

}  // namespace arbsim
