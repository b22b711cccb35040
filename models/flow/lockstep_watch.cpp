#include "models/flow/lockstep_watch.h"
#include <algorithm>
#include <cmath>
#include <iterator>

namespace arbsim::flow {

void LockstepWatch::started(int id, uint32_t flow, uint64_t bytes, uint64_t at_ps) {
  if (at_ps != at_ps_) {
    starts_.clear();
    pairs_.clear();
    at_ps_ = at_ps;
  }
  const Start s{id, flow, bytes};
  for (const Start& o : starts_)
    if (o.flow != flow && o.bytes == bytes) pairs_.emplace_back(o, s);
  starts_.push_back(s);
}

void LockstepWatch::settle(uint64_t at_ps, const std::function<std::vector<int>(int)>& held,
                           const std::function<double(int)>& rate) {
  if (at_ps != at_ps_) return;
  for (const auto& [a, b] : pairs_) {
    const double ra = rate(a.id), rb = rate(b.id);
    if (!(std::abs(ra - rb) <= 1e-9 * std::max(ra, rb))) continue;  // one leads: no tie
    std::vector<int> ha = held(a.id), hb = held(b.id);
    std::sort(ha.begin(), ha.end());
    std::sort(hb.begin(), hb.end());
    std::vector<int> both;
    std::set_intersection(ha.begin(), ha.end(), hb.begin(), hb.end(), std::back_inserter(both));
    if (both.empty()) continue;
    Seen& s = ties_[{std::min(a.flow, b.flow), std::max(a.flow, b.flow)}][both.front()];
    if (s.times++ == 0) s.first_ns = static_cast<double>(at_ps) / 1000.0;
    s.flows.insert({a.flow, b.flow});
  }
  pairs_.clear();  // looked at once, with the rates of their start
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
