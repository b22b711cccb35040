// Weighted round-robin over a phase table, as PCIe WRR VC/port arbitration
// (32/64/128/256-phase tables in hardware, docs/pcie-reference.md §4; any length here).
// Each phase names one requester; a requester gets a share equal to its phase count.
// Cycle semantics (scan, pointer moves, fallback): docs/arbiters.md.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include "models/pcie/arbiters/arbiter.h"
#include "models/pcie/arbiters/round_robin.h"

namespace arbsim {

class WeightedRoundRobinArbiter : public Arbiter {
 public:
  // Bounds memory for weight-built tables (hardware tables are at most 256 phases).
  static constexpr int kMaxPhases = 65536;

  // Explicit phase table: each entry a requester index in [0, n).
  // Throws std::invalid_argument on an empty/too long table or an entry out of range.
  WeightedRoundRobinArbiter(int n_requesters, std::vector<int> phases);

  // Expands weights (one per requester, >= 0, sum in 1..kMaxPhases) to a phase table of
  // sum(weights) entries with the smooth weighted round-robin interleave, e.g.
  // [3,1] -> [0,0,1,0]. Throws std::invalid_argument on bad weights.
  static std::vector<int> expand_weights(const std::vector<int>& weights);

  using Arbiter::grant;
  int grant(const Requests& requests) override;  // requesters >= n are ignored
  void reset() override;
  int requesters() const override { return n_; }
  std::string describe() const override;  // "wrr[0,0,1,0]"
  // A new table expanded from `weights` (one per requester); the scan restarts at phase 0,
  // as after a table load. Throws std::invalid_argument on a wrong count or bad weights.
  bool set_weights(const std::vector<int>& weights) override;

  const std::vector<int>& phases() const { return table_; }
  int phase_pointer() const { return phase_; }  // next phase the scan starts at

 private:
  void load(std::vector<int> phases);
  int grant_from_table(const Requests& req);
  bool any_in_table(const Requests& req) const;

  int n_;
  std::vector<int> table_;
  std::vector<int> in_table_;  // requesters that own at least one phase, ascending
  int phase_ = 0;
  RoundRobinArbiter fallback_;  // serves requesters absent from the table
};

}  // namespace arbsim
