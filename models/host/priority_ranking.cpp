#include "models/host/priority_ranking.h"
#include <algorithm>

namespace arbsim {

int eq1_tc(int dest_gpu, int packet_type, int n_t) {
  // Eq. 1 names 4 GPUs x 2 types = the 8 TCs; more GPUs wrap around the 3-bit TC field.
  return (n_t * dest_gpu + packet_type) % kNumTcs;
}

int eq2_vc(int tc, int n_vc) { return tc % n_vc; }

double eq3_transfer_ns(uint64_t remaining_bytes, double bytes_per_ns) {
  return static_cast<double>(remaining_bytes) / bytes_per_ns;
}

std::vector<int> rank_destinations(const std::vector<DestinationLoad>& loads, RankOrder order) {
  std::vector<DestinationLoad> v = loads;
  std::stable_sort(v.begin(), v.end(), [order](const DestinationLoad& a, const DestinationLoad& b) {
    if (a.escalated != b.escalated) return a.escalated;
    const bool a_busy = a.remaining > 0, b_busy = b.remaining > 0;
    if (a_busy != b_busy) return a_busy;
    if (a.remaining != b.remaining)
      return order == RankOrder::SmallFirst ? a.remaining < b.remaining : a.remaining > b.remaining;
    return a.gpu < b.gpu;
  });
  std::vector<int> out;
  for (const DestinationLoad& d : v) out.push_back(d.gpu);
  return out;
}

std::array<uint8_t, kNumTcs> priority_vc_map(const std::vector<int>& ranking) {
  constexpr uint8_t kUnset = 0xFF;
  std::array<uint8_t, kNumTcs> map;
  map.fill(kUnset);
  const int half = kNumTcs / kPacketTypes;  // 4 response VCs above 4 request VCs
  for (std::size_t k = 0; k < ranking.size(); ++k) {
    const int rank = std::min<int>(static_cast<int>(k), half - 1);
    map[eq1_tc(ranking[k], 1)] = static_cast<uint8_t>(kNumTcs - 1 - rank);
    map[eq1_tc(ranking[k], 0)] = static_cast<uint8_t>(half - 1 - rank);
  }
  for (int tc = 1; tc < kNumTcs; ++tc)
    if (map[tc] == 0 && map[0] != kUnset) std::swap(map[tc], map[0]);
  for (uint8_t& vc : map)
    if (vc == kUnset) vc = 0;  // TCs of absent destinations: never used
  map[0] = 0;
  return map;
}

}  // namespace arbsim
