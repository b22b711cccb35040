// The share controller of seed 003 §3.4 (CudaMon): additive increase, multiplicative
// decrease of lower-priority tasks' shares, after TCP's congestion window. When a task misses
// its deadline, every task of lower priority has its share halved; when a task meets it,
// every task of lower priority gets `increase_pct` percentage points back, up to 100. A share
// never falls below `min_share_pct`, so a low-priority task keeps making progress (the
// seed's Fig. 7 sawtooth never reaches zero).
//
// What a share limits is the caller's choice (issue "GPU sharing", docs/architecture.md): the
// SMs a process may use (MPS active-thread percentage, seed 003 §3.2) or its PCIe rate.
// Seed 003's MPS applied a new share only when the process restarted; the controller only
// computes shares and leaves when they take effect to the model that applies them.
// Plain C++, no SystemC.
#pragma once
#include <cstdint>
#include <map>
#include <string>

namespace arbsim {

struct AimdParams {
  double decrease_factor = 0.5;  // share x this on a higher-priority miss (seed 003: halve)
  double increase_pct = 1.0;     // percentage points back on a higher-priority hit (seed 003: 1 %)
  double min_share_pct = 1.0;    // floor, > 0
  double initial_share_pct = 100.0;
};

class AimdController {
 public:
  // Throws std::invalid_argument on a factor outside (0, 1), a negative increase, a floor
  // outside (0, 100] or an initial share outside [floor, 100].
  explicit AimdController(const AimdParams& p = {});

  // A task with `priority` (larger is more important; equal priorities do not act on each
  // other) starts at the initial share. Throws std::invalid_argument if `task` exists.
  void add_task(const std::string& task, int priority);
  // One job of `task` ended: met (true) or missed (false) its deadline. Updates the shares
  // of every task of lower priority; returns how many shares changed.
  int report(const std::string& task, bool met);

  double share_pct(const std::string& task) const;  // throws std::invalid_argument if unknown
  uint64_t misses() const { return misses_; }
  uint64_t hits() const { return hits_; }

 private:
  struct Task {
    int priority = 0;
    double share = 100;
  };
  const Task& find(const std::string& task) const;

  AimdParams p_;
  std::map<std::string, Task> tasks_;  // ordered: updates are deterministic
  uint64_t misses_ = 0, hits_ = 0;
};

}  // namespace arbsim
