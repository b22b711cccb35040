#include "models/gpu/sm_scheduler.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace arbsim {

SmScheduler::SmScheduler(const SmParams& p) : p_(p) {
  if (p.sms < 1 || p.blocks_per_sm < 1 || p.max_concurrent_kernels < 1)
    throw std::invalid_argument("SmScheduler: sms, blocks_per_sm and max_concurrent_kernels must be >= 1");
  free_ = p.sms * p.blocks_per_sm;
}

void SmScheduler::set_share(int owner, double share) {
  if (!(share > 0 && share <= 1)) throw std::invalid_argument("SmScheduler: a share must be in (0, 1]");
  share_[owner] = share;
  dispatch(now_);  // a larger share may let waiting blocks in now
}

int SmScheduler::owner_cap(int owner) const {
  const auto it = share_.find(owner);
  if (it == share_.end()) return p_.sms * p_.blocks_per_sm;
  const int sms = std::max(1, static_cast<int>(std::floor(it->second * p_.sms + 1e-9)));
  return sms * p_.blocks_per_sm;
}

int SmScheduler::submit(uint64_t now_ps, const KernelShape& k) {
  if (k.blocks < 1) throw std::invalid_argument("SmScheduler: a kernel needs at least one block");
  if (now_ps < now_) throw std::invalid_argument("SmScheduler: time went backwards");
  now_ = now_ps;
  const int id = next_id_++;
  kernels_[id] = Kernel{k, k.blocks, k.blocks};
  queue_.push_back(id);
  dispatch(now_ps);
  return id;
}

// Seed 004 §3.3: blocks go out kernel by kernel in submission order; a kernel held back by
// its owner's share or by the concurrent-kernel limit does not hold back the ones after it.
void SmScheduler::dispatch(uint64_t now_ps) {
  for (auto it = queue_.begin(); it != queue_.end() && free_ > 0;) {
    Kernel& k = kernels_.at(*it);
    const bool resident = resident_.count(*it) > 0;
    if (!resident && resident_kernels() >= p_.max_concurrent_kernels) {
      ++it;
      continue;
    }
    int& held = owner_slots_[k.shape.owner];
    const int n = static_cast<int>(std::min<int64_t>({k.waiting, free_, std::max(0, owner_cap(k.shape.owner) - held)}));
    if (n > 0) {
      k.waiting -= n;
      free_ -= n;
      held += n;
      resident_[*it] += n;
      for (int b = 0; b < n; ++b) ends_.emplace(now_ps + k.shape.block_ps, *it);
    }
    it = k.waiting == 0 ? queue_.erase(it) : std::next(it);
  }
}

std::vector<int> SmScheduler::advance(uint64_t now_ps) {
  if (now_ps < now_) throw std::invalid_argument("SmScheduler: time went backwards");
  std::vector<int> done;
  while (!ends_.empty() && ends_.begin()->first <= now_ps) {
    const uint64_t t = ends_.begin()->first;
    now_ = t;
    // Every block ending at t frees its slot before any waiting block takes one.
    std::vector<int> ending;
    while (!ends_.empty() && ends_.begin()->first == t) {
      ending.push_back(ends_.begin()->second);
      ends_.erase(ends_.begin());
    }
    std::sort(ending.begin(), ending.end());
    for (int id : ending) {
      Kernel& k = kernels_.at(id);
      ++free_;
      --owner_slots_[k.shape.owner];
      if (--resident_[id] == 0) resident_.erase(id);
      if (--k.unfinished == 0) {
        done.push_back(id);
        kernels_.erase(id);
      }
    }
    dispatch(t);
  }
  now_ = now_ps;
  return done;
}

uint64_t SmScheduler::next_event_ps() const {
  return ends_.empty() ? std::numeric_limits<uint64_t>::max() : ends_.begin()->first;
}

}  // namespace arbsim
