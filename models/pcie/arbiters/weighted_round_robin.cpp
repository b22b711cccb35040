#include "models/pcie/arbiters/weighted_round_robin.h"

#include <algorithm>
#include <stdexcept>
#include "models/pcie/arbiters/catalogue.h"
#include <utility>

namespace arbsim {

namespace {

std::string join(const std::vector<int>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

int checked_requesters(int n) {
  if (n < 1 || n > Arbiter::kMaxRequesters)
    throw std::invalid_argument("wrr arbiter: requester count " + std::to_string(n) +
                                " outside 1.." + std::to_string(Arbiter::kMaxRequesters));
  return n;
}

void check_phases(int n, const std::vector<int>& phases) {
  if (phases.empty()) throw std::invalid_argument("wrr arbiter: phase table is empty");
  if (phases.size() > size_t(WeightedRoundRobinArbiter::kMaxPhases))
    throw std::invalid_argument("wrr arbiter: phase table has " +
                                std::to_string(phases.size()) + " entries, max " +
                                std::to_string(WeightedRoundRobinArbiter::kMaxPhases));
  for (size_t i = 0; i < phases.size(); ++i)
    if (phases[i] < 0 || phases[i] >= n)
      throw std::invalid_argument("wrr arbiter: phase " + std::to_string(i) + " names requester " +
                                  std::to_string(phases[i]) + ", valid 0.." +
                                  std::to_string(n - 1));
}

// Returns sum(weights) after checking each weight >= 0 and 1 <= sum <= kMaxPhases.
int checked_total(const std::vector<int>& weights) {
  long long total = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (weights[i] < 0)
      throw std::invalid_argument("wrr arbiter: weight " + std::to_string(i) + " is " +
                                  std::to_string(weights[i]) + ", must be >= 0");
    total += weights[i];
  }
  if (total <= 0) throw std::invalid_argument("wrr arbiter: weights sum to 0");
  if (total > WeightedRoundRobinArbiter::kMaxPhases)
    throw std::invalid_argument("wrr arbiter: weights sum to " + std::to_string(total) +
                                ", max " + std::to_string(WeightedRoundRobinArbiter::kMaxPhases) +
                                " phases");
  return int(total);
}

}  // namespace

WeightedRoundRobinArbiter::WeightedRoundRobinArbiter(int n_requesters, std::vector<int> phases)
    : n_(n_requesters), fallback_(checked_requesters(n_)) {
  load(std::move(phases));
}

void WeightedRoundRobinArbiter::load(std::vector<int> phases) {
  check_phases(n_, phases);
  table_ = std::move(phases);
  in_table_ = table_;
  std::sort(in_table_.begin(), in_table_.end());
  in_table_.erase(std::unique(in_table_.begin(), in_table_.end()), in_table_.end());
  phase_ = 0;
}

bool WeightedRoundRobinArbiter::set_weights(const std::vector<int>& weights) {
  if (static_cast<int>(weights.size()) != n_)
    throw std::invalid_argument("wrr arbiter: " + std::to_string(weights.size()) + " weights for " +
                                std::to_string(n_) + " requesters");
  load(expand_weights(weights));
  return true;
}

// Smooth WRR (as in nginx): each step every requester's score grows by its weight, the
// highest score (ties: lowest index) takes the phase and pays back the total. Scores sum to
// 0 before each step, so the winner's score is > 0 and a weight-0 requester never wins.
std::vector<int> WeightedRoundRobinArbiter::expand_weights(const std::vector<int>& weights) {
  const int total = checked_total(weights);
  std::vector<long long> score(weights.size(), 0);
  std::vector<int> table;
  table.reserve(size_t(total));
  for (int step = 0; step < total; ++step) {
    size_t best = 0;
    for (size_t i = 0; i < weights.size(); ++i) {
      score[i] += weights[i];
      if (score[i] > score[best]) best = i;
    }
    score[best] -= total;
    table.push_back(int(best));
  }
  return table;
}

void WeightedRoundRobinArbiter::reset() {
  phase_ = 0;
  fallback_.reset();
}

int WeightedRoundRobinArbiter::grant(const Requests& requests) {
  if (requests.first_in(0, n_) < 0) return -1;
  // Nobody in the table requests: serve round-robin rather than idle the link.
  if (!any_in_table(requests)) return fallback_.grant(requests);
  return grant_from_table(requests);
}

bool WeightedRoundRobinArbiter::any_in_table(const Requests& req) const {
  return std::any_of(in_table_.begin(), in_table_.end(), [&](int r) { return req.test(r); });
}

// First phase at or after the pointer whose requester requests; the pointer moves past it.
// The caller ensured some table requester requests, so one lap always finds a phase.
int WeightedRoundRobinArbiter::grant_from_table(const Requests& req) {
  const int len = int(table_.size());
  int p = phase_;
  while (!req.test(table_[p])) p = (p + 1 == len) ? 0 : p + 1;
  phase_ = (p + 1 == len) ? 0 : p + 1;
  return table_[p];
}

std::string WeightedRoundRobinArbiter::describe() const { return "wrr[" + join(table_) + "]"; }

const ArbiterType kWeightedRoundRobinType{
    "wrr", "weighted round robin over a phase table, given by `weights` or `phases`", true,
    [](const ArbiterSpec& spec, int n) -> std::unique_ptr<Arbiter> {
      std::vector<int> table = spec.phases.empty() ? WeightedRoundRobinArbiter::expand_weights(spec.weights) : spec.phases;
      return std::make_unique<WeightedRoundRobinArbiter>(n, std::move(table));
    }};

}  // namespace arbsim
