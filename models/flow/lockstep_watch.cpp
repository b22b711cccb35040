#include "models/flow/lockstep_watch.h"
#include <algorithm>
#include <cmath>
#include <iterator>

namespace arbsim::flow {

void LockstepWatch::started(int id, uint32_t flow, uint64_t bytes, uint64_t at_ps) {
  if (at_ps != at_ps_) {
    starts_.clear();
    unsettled_ = 0;
    at_ps_ = at_ps;
  }
  starts_.push_back({id, flow, bytes, false});
  ++unsettled_;
}

// The starts of this instant grouped by (holding link, size), so only those one link holds
// are paired: pairing every two starts of equal size made thousands of simultaneous equal
// copies (1,024 GPUs' 64 KiB blocks) millions of pairs. A pair is looked at once, with the
// rates of the first computation after the later of the two started, and counted at the
// first link that holds both.
void LockstepWatch::settle(uint64_t at_ps, const std::function<std::vector<int>(int)>& held,
                           const std::function<double(int)>& rate) {
  if (at_ps != at_ps_ || unsettled_ == 0) return;
  std::vector<std::vector<int>> holds(starts_.size());
  std::vector<double> rates(starts_.size());
  std::map<std::pair<int, uint64_t>, std::vector<std::size_t>> by_link;
  for (std::size_t i = 0; i < starts_.size(); ++i) {
    holds[i] = held(starts_[i].id);
    std::sort(holds[i].begin(), holds[i].end());
    rates[i] = rate(starts_[i].id);
    for (const int l : holds[i]) by_link[{l, starts_[i].bytes}].push_back(i);
  }
  for (const auto& [key, idx] : by_link)
    for (std::size_t x = 0; x < idx.size(); ++x)
      for (std::size_t y = x + 1; y < idx.size(); ++y) {
        const std::size_t a = idx[x], b = idx[y];
        if ((starts_[a].settled && starts_[b].settled) || starts_[a].flow == starts_[b].flow) continue;
        if (!(std::abs(rates[a] - rates[b]) <= 1e-9 * std::max(rates[a], rates[b]))) continue;  // one leads
        std::vector<int> both;
        std::set_intersection(holds[a].begin(), holds[a].end(), holds[b].begin(), holds[b].end(),
                              std::back_inserter(both));
        if (both.front() == key.first) tie(starts_[a], starts_[b], key.first);
      }
  for (Start& s : starts_) s.settled = true;
  unsettled_ = 0;
}

void LockstepWatch::tie(const Start& a, const Start& b, int link) {
  Seen& s = ties_[{std::min(a.flow, b.flow), std::max(a.flow, b.flow)}][link];
  if (s.times++ == 0) s.first_ns = static_cast<double>(at_ps_) / 1000.0;
  s.flows.insert({a.flow, b.flow});
}

std::map<int, LockstepWatch::Seen> LockstepWatch::ties() const {
  std::map<int, Seen> out;
  for (const auto& [pair, links] : ties_) {
    uint64_t times = 0;
    for (const auto& [link, s] : links) times += s.times;
    if (times < 2) continue;
    for (const auto& [link, s] : links) {
      Seen& o = out[link];
      o.first_ns = o.times ? std::min(o.first_ns, s.first_ns) : s.first_ns;
      o.times += s.times;
      o.flows.insert(s.flows.begin(), s.flows.end());
    }
  }
  return out;
}

}  // namespace arbsim::flow
