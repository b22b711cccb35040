// A TC/VC map (the VC Resource Control TC/VC Map bits of every VC of a link, PCIe Base Spec
// §7.9.1.7; docs/pcie-reference.md §4) given for 8 VCs and applied to a link with fewer: the
// order of the VCs is kept (vc * n / 8), so TC0 stays on VC0. Plain C++.
#pragma once
#include <array>
#include <cstdint>
#include "models/pcie/tlp_types.h"

namespace arbsim {

using TcVcMap = std::array<uint8_t, kNumTcs>;  // [tc] its VC

// Scales an 8-VC map's VC to a link with n VCs, keeping the order (vc * n / 8).
uint8_t scale_vc(uint8_t vc8, int n_vc);
// A whole 8-VC map scaled to a link with n VCs.
TcVcMap scale_map(const TcVcMap& vc8, int n_vc);

}  // namespace arbsim
