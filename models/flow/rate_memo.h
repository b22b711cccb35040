// Rates computed before, looked up instead of computed again (issue 12, "Speed"). A
// component's rates (arbitrated_rates.h, max_min.h) are a pure function of its flows' specs
// in the order the solver is given them, of which of the edges they cross can bind, and of
// the edges' capacities and arbitrations. The scheduler gives the solver a component's
// flows in an order that depends on their specs alone (spec_less, not their ids), so when a
// copy ends and its engine's next copy, of the same spec, starts at the same instant (a
// stream, a batch), the computation has the same inputs as one made before, bit for bit,
// and its result is reused: the rates are exactly those a new computation would give.
// Results never depend on what the memo holds, only the time taken. Plain C++.
#pragma once
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>
#include "models/flow/arbitrated_rates.h"
#include "models/flow/max_min.h"

namespace arbsim::flow {

// A hash of everything in a spec the rate computation reads (its fields' bits).
uint64_t spec_hash(const FlowSpec& s);
// A total order of specs by content (equal: the same bits in every field), hash first.
bool spec_less(uint64_t hash_a, const FlowSpec& a, uint64_t hash_b, const FlowSpec& b);
bool spec_equal(const FlowSpec& a, const FlowSpec& b);

class RateMemo {
 public:
  // A computation's inputs: its flows in the solver's order, their hashes, and for each hop
  // of each (flows in order, hops in path order) whether its edge can bind.
  struct Key {
    const std::vector<const FlowSpec*>* specs;
    const std::vector<uint64_t>* hashes;
    const std::vector<char>* hop_binds;
  };
  // The result stored for inputs equal to `k`'s, or nullptr.
  const ArbitratedRates* find(const Key& k) const;
  void store(const Key& k, const ArbitratedRates& rates);
  // Forgets everything (the capacities or arbitrations changed).
  void clear();
  uint64_t hits() const { return hits_; }

 private:
  // A computation's specs, flat (a few allocations per entry, not one per flow).
  struct Entry {
    std::vector<uint64_t> hashes;
    std::vector<double> caps;
    std::vector<int> tcs;
    std::vector<std::size_t> hops_end;  // [flow] where its hops end in `hops`
    std::vector<Hop> hops;
    std::vector<char> hop_binds;
    ArbitratedRates rates;
  };
  static uint64_t key_hash(const Key& k);
  static bool matches(const Entry& e, const Key& k);
  // Bounded by the hops stored: past this, everything is forgotten (results do not depend
  // on it; a platform whose components keep changing just computes as before).
  static constexpr std::size_t kMaxHops = std::size_t{1} << 16;
  std::unordered_map<uint64_t, std::vector<Entry>> table_;
  std::size_t hops_ = 0;
  mutable uint64_t hits_ = 0;
};

}  // namespace arbsim::flow
