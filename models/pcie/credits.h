// Flow-control credits of one link direction, kept by the transmitter (PCIe Base Spec
// §2.6.1; docs/pcie-reference.md §3): per VC and per class (P, NP, Cpl) a header and a data count.
// One header credit per TLP, ceil(payload/16) data credits. A limit < 0 means infinite
// (advertised as 0 in InitFC). Plain C++: no SystemC.
#pragma once
#include <array>
#include <cstdint>
#include "models/pcie/tlp_types.h"

namespace arbsim {

struct CreditLimits {
  // [class] header and data credits advertised per VC; < 0 = infinite.
  std::array<int64_t, kCreditClasses> header{{-1, -1, -1}};
  std::array<int64_t, kCreditClasses> data{{-1, -1, -1}};
};

// What a config gets when it gives no credits: docs/pcie-reference.md §3 (x16 ports advertise
// tens to a few hundred header and 1-4 K data credits per VC); completions infinite, as
// endpoints must advertise them.
inline CreditLimits typical_credit_limits() {
  CreditLimits c;
  c.header = {128, 128, -1};
  c.data = {2048, 128, -1};
  return c;
}

struct CreditCost {
  int header = 1;
  int64_t data = 0;
};

inline CreditCost credit_cost(TlpType type, uint32_t payload_bytes) {
  return {1, carries_data(type) ? (payload_bytes + kCreditUnitBytes - 1) / kCreditUnitBytes : 0};
}

class CreditCounter {
 public:
  void configure(int vcs, const CreditLimits& limits);
  bool can_send(int vc, CreditClass c, const CreditCost& cost) const;
  // Both throw std::logic_error when a count would leave [0, advertised] (a model fault).
  void consume(int vc, CreditClass c, const CreditCost& cost);
  void restore(int vc, CreditClass c, const CreditCost& cost);
  // Data credits still available (for waveforms); -1 when infinite.
  int64_t data_available(int vc, CreditClass c) const;
  int64_t header_available(int vc, CreditClass c) const;

 private:
  [[noreturn]] static void fault(const char* what, int vc, int cls);
  struct PerVc {
    std::array<int64_t, kCreditClasses> hdr_avail{}, data_avail{};
  };
  CreditLimits limits_;
  std::array<PerVc, kMaxVcs> vc_{};
};

}  // namespace arbsim
