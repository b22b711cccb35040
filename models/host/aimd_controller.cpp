#include "models/host/aimd_controller.h"
#include <algorithm>
#include <stdexcept>

namespace arbsim {

AimdController::AimdController(const AimdParams& p) : p_(p) {
  if (!(p.decrease_factor > 0 && p.decrease_factor < 1))
    throw std::invalid_argument("AIMD: decrease_factor must be in (0, 1)");
  if (!(p.increase_pct >= 0)) throw std::invalid_argument("AIMD: increase_pct must be >= 0");
  if (!(p.min_share_pct > 0 && p.min_share_pct <= 100))
    throw std::invalid_argument("AIMD: min_share_pct must be in (0, 100]");
  if (!(p.initial_share_pct >= p.min_share_pct && p.initial_share_pct <= 100))
    throw std::invalid_argument("AIMD: initial_share_pct must be in [min_share_pct, 100]");
}

void AimdController::add_task(const std::string& task, int priority) {
  if (!tasks_.emplace(task, Task{priority, p_.initial_share_pct}).second)
    throw std::invalid_argument("AIMD: task '" + task + "' added twice");
}

const AimdController::Task& AimdController::find(const std::string& task) const {
  const auto it = tasks_.find(task);
  if (it == tasks_.end()) throw std::invalid_argument("AIMD: no task '" + task + "'");
  return it->second;
}

double AimdController::share_pct(const std::string& task) const { return find(task).share; }

// Seed 003 §3.4: a miss halves every lower-priority share, a hit adds a point to each.
int AimdController::report(const std::string& task, bool met) {
  const int priority = find(task).priority;
  ++(met ? hits_ : misses_);
  int changed = 0;
  for (auto& [name, t] : tasks_) {
    if (t.priority >= priority) continue;
    const double next = met ? std::min(100.0, t.share + p_.increase_pct)
                            : std::max(p_.min_share_pct, t.share * p_.decrease_factor);
    if (next != t.share) ++changed;
    t.share = next;
  }
  return changed;
}

}  // namespace arbsim
