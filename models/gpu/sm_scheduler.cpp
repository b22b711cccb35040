#include "models/gpu/sm_scheduler.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace arbsim {

// A wave of b blocks alone puts at most k = min(blocks_per_sm, ceil(b / SMs)) on an SM (the
// dispatcher fills the least-loaded SM first), each then at 1 / (1 + s (k - 1)) of its speed,
// so the wave lasts that factor times the block time: the block time is `alone` over the
// waves' factors summed. Without a slowdown, alone / waves (a whole-GPU kernel of 1 ms took
// 1.5 ms with two blocks an SM at a slowdown of 0.5).
double wave_factors(const SmParams& p, int64_t grid) {
  const int64_t sms = p.sms, per_sm = p.blocks_per_sm, slots = sms * per_sm;
  const int64_t full = grid / slots, rest = grid % slots;
  const double s = p.block_slowdown;
  if (s <= 0) return static_cast<double>(full + (rest > 0 ? 1 : 0));
  const auto factor = [&](int64_t b) { return 1 + s * static_cast<double>(std::min(per_sm, (b + sms - 1) / sms) - 1); };
  return static_cast<double>(full) * factor(slots) + (rest > 0 ? factor(rest) : 0.0);
}

uint64_t block_time_ps(const SmParams& p, int64_t grid, uint64_t alone_ps) {
  if (p.block_slowdown <= 0) {  // integer waves: rounded to the nearest picosecond in integers
    const int64_t slots = static_cast<int64_t>(p.sms) * p.blocks_per_sm;
    const uint64_t waves = static_cast<uint64_t>(grid / slots + (grid % slots > 0 ? 1 : 0));
    return (alone_ps + waves / 2) / waves;
  }
  return static_cast<uint64_t>(std::llround(static_cast<double>(alone_ps) / wave_factors(p, grid)));
}

SmScheduler::SmScheduler(const SmParams& p) : p_(p) {
  if (p.sms < 1 || p.blocks_per_sm < 1 || p.max_concurrent_kernels < 1)
    throw std::invalid_argument("SmScheduler: sms, blocks_per_sm and max_concurrent_kernels must be >= 1");
  if (!(p.block_slowdown >= 0)) throw std::invalid_argument("SmScheduler: block_slowdown must be >= 0");
  free_ = p.sms * p.blocks_per_sm;
  on_sm_.resize(static_cast<std::size_t>(p.sms));
  const std::size_t words = (static_cast<std::size_t>(p.sms) + 63) / 64;
  with_load_.assign(static_cast<std::size_t>(p.blocks_per_sm), std::vector<uint64_t>(words, 0));
  for (int sm = 0; sm < p.sms; ++sm) with_load_[0][static_cast<std::size_t>(sm) / 64] |= uint64_t{1} << (sm % 64);
}

void SmScheduler::moved_load(int sm, std::size_t from, std::size_t to) {
  const std::size_t w = static_cast<std::size_t>(sm) / 64;
  const uint64_t bit = uint64_t{1} << (sm % 64);
  if (from < with_load_.size()) with_load_[from][w] &= ~bit;
  if (to < with_load_.size()) with_load_[to][w] |= bit;
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
    if (k.resident == 0 && resident_kernels_ >= p_.max_concurrent_kernels) {
      ++it;
      continue;
    }
    while (k.waiting > 0 && free_ > 0 && place(now_ps, *it)) --k.waiting;
    it = k.waiting == 0 ? queue_.erase(it) : std::next(it);
  }
}

// The least-loaded SM with room that the owner may use: one it already occupies, or any
// while it occupies fewer than its cap; ties to the lowest index.
int SmScheduler::pick_sm(int owner) const {
  const auto mine = owners_.find(owner);
  if (mine == owners_.end() || mine->second.sms_held < owner_cap(owner)) return least_loaded();
  int best = -1;
  std::size_t best_load = 0;
  for (int sm = 0; sm < p_.sms; ++sm) {
    const std::size_t load = on_sm_[static_cast<std::size_t>(sm)].size();
    if (mine->second.on_sm[static_cast<std::size_t>(sm)] == 0 || load >= static_cast<std::size_t>(p_.blocks_per_sm) ||
        (best >= 0 && load >= best_load))
      continue;
    best = sm;
    best_load = load;
  }
  return best;
}

int SmScheduler::least_loaded() const {
  for (const std::vector<uint64_t>& level : with_load_)
    for (std::size_t w = 0; w < level.size(); ++w)
      if (level[w] != 0) return static_cast<int>(w * 64) + __builtin_ctzll(level[w]);
  return -1;
}

double SmScheduler::speed(int sm) const {
  const std::size_t k = on_sm_[static_cast<std::size_t>(sm)].size();
  return k <= 1 ? 1.0 : 1.0 / (1.0 + p_.block_slowdown * static_cast<double>(k - 1));
}

SmScheduler::Owner& SmScheduler::owner(int id) {
  Owner& o = owners_[id];
  if (o.on_sm.empty()) o.on_sm.assign(static_cast<std::size_t>(p_.sms), 0);
  return o;
}

bool SmScheduler::place(uint64_t now_ps, int kernel) {
  Kernel& k = kernels_.at(kernel);
  const int sm = pick_sm(k.shape.owner);
  if (sm < 0) return false;
  const double before = speed(sm);
  int slot;
  if (spare_.empty()) {
    slot = static_cast<int>(blocks_.size());
    blocks_.emplace_back();
  } else {
    slot = spare_.back();
    spare_.pop_back();
  }
  std::vector<int>& on = on_sm_[static_cast<std::size_t>(sm)];
  on.push_back(slot);
  moved_load(sm, on.size() - 1, on.size());
  Block& b = blocks_[static_cast<std::size_t>(slot)];
  b = Block{next_block_++, kernel, sm, static_cast<double>(k.shape.block_ps), now_ps, 0, 0, true};
  b.end_ps = now_ps + static_cast<uint64_t>(std::llround(b.work_ps / speed(sm)));
  push_end(slot);
  --free_;
  Owner& o = owner(k.shape.owner);
  if (o.on_sm[static_cast<std::size_t>(sm)]++ == 0) ++o.sms_held;
  if (k.resident++ == 0) ++resident_kernels_;
  if (p_.block_slowdown > 0) retime(now_ps, sm, before);
  return true;
}

// Earliest end first (ties by when they were asked: any order would do, advance() sorts).
bool SmScheduler::later(const End& a, const End& b) { return a.ps != b.ps ? a.ps > b.ps : a.seq > b.seq; }

void SmScheduler::push_end(int slot) {
  Block& b = blocks_[static_cast<std::size_t>(slot)];
  b.end_seq = next_seq_++;
  ends_.push_back({b.end_ps, b.end_seq, slot});
  std::push_heap(ends_.begin(), ends_.end(), later);
}

void SmScheduler::drop_stale() const {
  while (!ends_.empty()) {
    const End& top = ends_.front();
    const Block& b = blocks_[static_cast<std::size_t>(top.slot)];
    if (b.live && b.end_seq == top.seq) return;
    std::pop_heap(ends_.begin(), ends_.end(), later);
    ends_.pop_back();
  }
}

// The SM's load changed at `now_ps`: each of its blocks did its work at `old_speed` until now
// and does the rest at the new speed (its earlier end goes stale in ends_).
void SmScheduler::retime(uint64_t now_ps, int sm, double old_speed) {
  const double now_speed = speed(sm);
  for (const int slot : on_sm_[static_cast<std::size_t>(sm)]) {
    Block& b = blocks_[static_cast<std::size_t>(slot)];
    b.work_ps = std::max(0.0, b.work_ps - static_cast<double>(now_ps - b.since_ps) * old_speed);
    b.since_ps = now_ps;
    b.end_ps = now_ps + static_cast<uint64_t>(std::llround(b.work_ps / now_speed));
    push_end(slot);
  }
}

void SmScheduler::finish_block(int slot) {
  Block& b = blocks_[static_cast<std::size_t>(slot)];
  std::vector<int>& on = on_sm_[static_cast<std::size_t>(b.sm)];
  on.erase(std::find(on.begin(), on.end(), slot));
  moved_load(b.sm, on.size() + 1, on.size());
  Kernel& k = kernels_.at(b.kernel);
  Owner& o = owner(k.shape.owner);
  if (--o.on_sm[static_cast<std::size_t>(b.sm)] == 0) --o.sms_held;
  ++free_;
  if (--k.resident == 0) --resident_kernels_;
  b.live = false;
  spare_.push_back(slot);
}

std::vector<int> SmScheduler::advance(uint64_t now_ps) {
  if (now_ps < now_) throw std::invalid_argument("SmScheduler: time went backwards");
  std::vector<int> done;
  std::map<int, double> touched;  // SM -> its blocks' speed before these ends (with a slowdown)
  for (drop_stale(); !ends_.empty() && ends_.front().ps <= now_ps; drop_stale()) {
    const uint64_t t = ends_.front().ps;
    now_ = t;
    // Every block ending at t frees its slot before any waiting block takes one; kernels
    // complete in id order.
    ending_.clear();
    for (; !ends_.empty() && ends_.front().ps == t; drop_stale()) {
      const int slot = ends_.front().slot;
      std::pop_heap(ends_.begin(), ends_.end(), later);
      ends_.pop_back();
      ending_.emplace_back(blocks_[static_cast<std::size_t>(slot)].kernel, blocks_[static_cast<std::size_t>(slot)].id, slot);
    }
    std::sort(ending_.begin(), ending_.end());
    touched.clear();
    for (const auto& [kernel, id, slot] : ending_) {
      const int sm = blocks_[static_cast<std::size_t>(slot)].sm;
      if (p_.block_slowdown > 0) touched.emplace(sm, speed(sm));
      finish_block(slot);
      if (--kernels_.at(kernel).unfinished == 0) {
        done.push_back(kernel);
        kernels_.erase(kernel);
      }
    }
    for (const auto& [sm, old] : touched) retime(t, sm, old);
    dispatch(t);
  }
  now_ = now_ps;
  return done;
}

uint64_t SmScheduler::next_event_ps() const {
  drop_stale();
  return ends_.empty() ? std::numeric_limits<uint64_t>::max() : ends_.front().ps;
}

}  // namespace arbsim
