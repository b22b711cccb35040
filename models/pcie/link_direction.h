// Timing of one direction of a link: serialisation of a TLP and propagation latency.
// A PCIe link charges payload + per-TLP overhead at the TLP-level bandwidth (DLLP and SKP
// overhead amortised as a rate reduction: docs/link-model.md, docs/pcie-reference.md §2).
// A raw link (host memory port, inter-socket link) moves payload bytes at a set bandwidth.
#pragma once
#include <array>
#include <cmath>
#include "models/pcie/link_timing.h"

namespace arbsim {

struct LinkDirection {
  bool is_pcie = true;
  PcieLinkParams pcie;
  double gbytes_per_s = 0;       // payload+overhead bytes per ns
  double propagation_ns = 0;
  std::array<int, 4> overhead{};  // per TlpType

  static LinkDirection make_pcie(const PcieLinkParams& p, double propagation_ns) {
    LinkDirection d;
    d.is_pcie = true;
    d.pcie = p;
    d.gbytes_per_s = tlp_bandwidth_gbps(p) / 8.0;
    d.propagation_ns = propagation_ns;
    for (TlpType t : {TlpType::MRd, TlpType::MWr, TlpType::CplD, TlpType::Cpl})
      d.overhead[static_cast<int>(t)] = tlp_overhead_bytes(t, p);
    return d;
  }
  static LinkDirection make_raw(double gbytes_per_s, double propagation_ns) {
    LinkDirection d;
    d.is_pcie = false;
    d.gbytes_per_s = gbytes_per_s;
    d.propagation_ns = propagation_ns;
    return d;
  }
  uint32_t wire_bytes(TlpType t, uint32_t payload) const {
    return payload + static_cast<uint32_t>(overhead[static_cast<int>(t)]);
  }
  // Serialisation time in picoseconds (the kernel's resolution), rounded to nearest.
  double serialize_ps(uint32_t wire) const { return std::round(wire * 1000.0 / gbytes_per_s); }
};

}  // namespace arbsim
