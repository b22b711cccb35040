// Starvation guard around any arbiter (seed 000 §3.2: "If the head request in the VC is
// blocked for x cycles, it will be handled immediately to avoid starvation").
// Per requester it counts the consecutive cycles that requester requested without a grant;
// a requester whose count reached x is granted ahead of the inner arbiter's choice.
//
// Bound: a requester that requests continuously waits at most x + k - 1 cycles, where k is
// the number of requesters (itself included) whose count is >= x in the cycle its count
// reaches x. With n requesters k <= n - 1 (the previous cycle's grantee is at 0), so the
// wait is <= x + n - 2 for n >= 2, and exactly <= x when k == 1 (always so for n == 2).
// Cycle semantics: docs/arbiters.md.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include "models/pcie/arbiters/arbiter.h"

namespace arbsim {

class StarvationGuard : public Arbiter {
 public:
  // Throws std::invalid_argument on a null inner arbiter or threshold < 1.
  StarvationGuard(std::unique_ptr<Arbiter> inner, int threshold);

  using Arbiter::grant;
  int grant(const Requests& requests) override;  // requesters >= n are ignored
  void reset() override;                  // clears counters and resets the inner arbiter
  int requesters() const override { return n_; }
  std::string describe() const override;  // inner + "+starve(x)"
  // The inner arbiter's weights; the wait counters carry on.
  bool set_weights(const std::vector<int>& weights) override { return inner_->set_weights(weights); }

  int threshold() const { return int(threshold_); }
  uint32_t wait_count(int requester) const { return wait_[size_t(requester)]; }

 private:
  int forced_grant(const Requests& req) const;  // -1 when no requester has waited x cycles
  void update_counters(const Requests& req, int granted);

  std::unique_ptr<Arbiter> inner_;
  int n_;
  uint32_t threshold_;
  std::vector<uint32_t> wait_;     // [requester] consecutive cycles requested without a grant
  std::vector<int> waiting_;       // requesters whose wait_ is non-zero
};

}  // namespace arbsim
