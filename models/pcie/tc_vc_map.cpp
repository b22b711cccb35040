#include "models/pcie/tc_vc_map.h"

namespace arbsim {

uint8_t scale_vc(uint8_t vc8, int n_vc) { return static_cast<uint8_t>(vc8 * n_vc / kNumTcs); }

TcVcMap scale_map(const TcVcMap& vc8, int n_vc) {
  TcVcMap m;
  for (int tc = 0; tc < kNumTcs; ++tc) m[tc] = scale_vc(vc8[tc], n_vc);
  return m;
}

}  // namespace arbsim
