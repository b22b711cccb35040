// The ranking logic of seed 000's schedulers, as plain functions (no SystemC), so every
// rule is unit-tested on hand-worked cases.
//   Eq. 1: TC = N_T * ID_D + ID_T  (ID_D destination GPU, ID_T 0 request / 1 response)
//   Eq. 2: VC = TC mod N_VC                       (the round-robin baseline's mapping)
//   Eq. 3: T_trans = B_R / BW                     (QoS: predicted time to finish)
// TOS (§3.2): strict priority, VC7 highest; responses above requests; destinations ranked
// by remaining transfer bytes, fewest first (Priority_S) or most first (Priority_L).
// QoOS (§3.3): a QoS destination whose transfer is predicted to miss its deadline is
// raised to the top.
#pragma once
#include <array>
#include <cstdint>
#include <vector>
#include "models/pcie/tlp_types.h"

namespace arbsim {

constexpr int kPacketTypes = 2;  // N_T

int eq1_tc(int dest_gpu, int packet_type, int n_t = kPacketTypes);
int eq2_vc(int tc, int n_vc);
double eq3_transfer_ns(uint64_t remaining_bytes, double bytes_per_ns);

struct DestinationLoad {
  int gpu = 0;                // ID_D
  uint64_t remaining = 0;     // B_R summed over its commands
  bool escalated = false;     // QoS: predicted deadline miss
};

enum class RankOrder { SmallFirst, LargeFirst };

// Destinations in priority order, highest first: escalated first, then by remaining bytes
// (only those with bytes left), ties by GPU index; destinations with nothing left last.
std::vector<int> rank_destinations(const std::vector<DestinationLoad>& loads, RankOrder order);

// The 8-VC map for a ranking over `gpus` destinations: the response TC of the k-th ranked
// destination gets VC 7-k, its request TC VC 3-k (N_T = 2, up to 4 destinations; more
// destinations share the lowest VCs). TC0 is hard-wired to VC0 (PCIe), so whichever TC
// the ranking put on VC0 trades places with TC0.
std::array<uint8_t, kNumTcs> priority_vc_map(const std::vector<int>& ranking);

}  // namespace arbsim
