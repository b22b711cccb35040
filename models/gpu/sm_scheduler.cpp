#include "models/gpu/sm_scheduler.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace arbsim {

SmScheduler::SmScheduler(const SmParams& p) : p_(p) {
  if (p.sms < 1 || p.blocks_per_sm < 1 || p.max_concurrent_kernels < 1)
    throw std::invalid_argument("SmScheduler: sms, blocks_per_sm and max_concurrent_kernels must be >= 1");
  if (!(p.block_slowdown >= 0)) throw std::invalid_argument("SmScheduler: block_slowdown must be >= 0");
  free_ = p.sms * p.blocks_per_sm;
  on_sm_.resize(static_cast<std::size_t>(p.sms));
}

void SmScheduler::set_share(int owner, double share) {
  if (!(share > 0 && share <= 1)) throw std::invalid_argument("SmScheduler: a share must be in (0, 1]");
  share_[owner] = share;
  dispatch(now_);  // a larger share may let waiting blocks in now
}

int SmScheduler::owner_cap(int owner) const {
  const auto it = share_.find(owner);
  if (it == share_.end()) return p_.sms;
  return std::max(1, static_cast<int>(std::floor(it->second * p_.sms + 1e-9)));
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
    if (resident_.count(*it) == 0 && resident_kernels() >= p_.max_concurrent_kernels) {
      ++it;
      continue;
    }
    while (k.waiting > 0 && free_ > 0 && place(now_ps, *it)) --k.waiting;
    it = k.waiting == 0 ? queue_.erase(it) : std::next(it);
  }
}

// The least-loaded SM with room that the owner may use: one it already occupies, or any
// while it occupies fewer than its cap.
int SmScheduler::pick_sm(int owner) const {
  const auto mine = owner_sms_.find(owner);
  const bool spread = mine == owner_sms_.end() || static_cast<int>(mine->second.size()) < owner_cap(owner);
  int best = -1;
  std::size_t best_load = 0;
  for (int sm = 0; sm < p_.sms; ++sm) {
    const std::size_t load = on_sm_[static_cast<std::size_t>(sm)].size();
    if (load >= static_cast<std::size_t>(p_.blocks_per_sm) || (best >= 0 && load >= best_load)) continue;
    if (!spread && mine->second.count(sm) == 0) continue;
    best = sm;
    best_load = load;
  }
  return best;
}

double SmScheduler::speed(int sm) const {
  const std::size_t k = on_sm_[static_cast<std::size_t>(sm)].size();
  return k <= 1 ? 1.0 : 1.0 / (1.0 + p_.block_slowdown * static_cast<double>(k - 1));
}

bool SmScheduler::place(uint64_t now_ps, int kernel) {
  const KernelShape& shape = kernels_.at(kernel).shape;
  const int sm = pick_sm(shape.owner);
  if (sm < 0) return false;
  const double before = speed(sm);
  const uint64_t id = next_block_++;
  on_sm_[static_cast<std::size_t>(sm)].push_back(id);
  Block b{kernel, sm, static_cast<double>(shape.block_ps), now_ps, 0};
  b.end_ps = now_ps + static_cast<uint64_t>(std::llround(b.work_ps / speed(sm)));
  blocks_[id] = b;
  ends_.emplace(b.end_ps, id);
  --free_;
  ++owner_sms_[shape.owner][sm];
  ++resident_[kernel];
  if (p_.block_slowdown > 0) retime(now_ps, sm, before);
  return true;
}

// The SM's load changed at `now_ps`: each of its blocks did its work at `old_speed` until now
// and does the rest at the new speed.
void SmScheduler::retime(uint64_t now_ps, int sm, double old_speed) {
  const double now_speed = speed(sm);
  for (const uint64_t id : on_sm_[static_cast<std::size_t>(sm)]) {
    Block& b = blocks_.at(id);
    b.work_ps = std::max(0.0, b.work_ps - static_cast<double>(now_ps - b.since_ps) * old_speed);
    b.since_ps = now_ps;
    auto range = ends_.equal_range(b.end_ps);
    for (auto e = range.first; e != range.second; ++e)
      if (e->second == id) {
        ends_.erase(e);
        break;
      }
    b.end_ps = now_ps + static_cast<uint64_t>(std::llround(b.work_ps / now_speed));
    ends_.emplace(b.end_ps, id);
  }
}

void SmScheduler::finish_block(uint64_t id) {
  const Block b = blocks_.at(id);
  blocks_.erase(id);
  std::vector<uint64_t>& on = on_sm_[static_cast<std::size_t>(b.sm)];
  on.erase(std::find(on.begin(), on.end(), id));
  const int owner = kernels_.at(b.kernel).shape.owner;
  std::map<int, int>& mine = owner_sms_[owner];
  if (--mine[b.sm] == 0) mine.erase(b.sm);
  if (mine.empty()) owner_sms_.erase(owner);
  ++free_;
  if (--resident_[b.kernel] == 0) resident_.erase(b.kernel);
}

std::vector<int> SmScheduler::advance(uint64_t now_ps) {
  if (now_ps < now_) throw std::invalid_argument("SmScheduler: time went backwards");
  std::vector<int> done;
  while (!ends_.empty() && ends_.begin()->first <= now_ps) {
    const uint64_t t = ends_.begin()->first;
    now_ = t;
    // Every block ending at t frees its slot before any waiting block takes one; kernels
    // complete in id order.
    std::vector<std::pair<int, uint64_t>> ending;  // (kernel, block)
    for (; !ends_.empty() && ends_.begin()->first == t; ends_.erase(ends_.begin()))
      ending.emplace_back(blocks_.at(ends_.begin()->second).kernel, ends_.begin()->second);
    std::sort(ending.begin(), ending.end());
    std::map<int, double> touched;  // SM -> its blocks' speed before these ends
    for (const auto& [kernel, id] : ending) {
      touched.emplace(blocks_.at(id).sm, speed(blocks_.at(id).sm));
      finish_block(id);
      if (--kernels_.at(kernel).unfinished == 0) {
        done.push_back(kernel);
        kernels_.erase(kernel);
      }
    }
    if (p_.block_slowdown > 0)
      for (const auto& [sm, old] : touched) retime(t, sm, old);
    dispatch(t);
  }
  now_ = now_ps;
  return done;
}

uint64_t SmScheduler::next_event_ps() const {
  return ends_.empty() ? std::numeric_limits<uint64_t>::max() : ends_.begin()->first;
}

}  // namespace arbsim
