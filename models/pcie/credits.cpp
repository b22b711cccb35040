#include "models/pcie/credits.h"

namespace arbsim {

void CreditCounter::configure(int vcs, const CreditLimits& limits) {
  limits_ = limits;
  for (int v = 0; v < vcs && v < kMaxVcs; ++v)
    for (int c = 0; c < kCreditClasses; ++c) {
      vc_[v].hdr_avail[c] = limits.header[c];
      vc_[v].data_avail[c] = limits.data[c];
    }
}

bool CreditCounter::can_send(int vc, CreditClass c, const CreditCost& cost) const {
  const int i = static_cast<int>(c);
  const PerVc& s = vc_[vc];
  const bool hdr_ok = limits_.header[i] < 0 || s.hdr_avail[i] >= cost.header;
  const bool data_ok = limits_.data[i] < 0 || s.data_avail[i] >= cost.data;
  return hdr_ok && data_ok;
}

void CreditCounter::consume(int vc, CreditClass c, const CreditCost& cost) {
  const int i = static_cast<int>(c);
  if (limits_.header[i] >= 0) vc_[vc].hdr_avail[i] -= cost.header;
  if (limits_.data[i] >= 0) vc_[vc].data_avail[i] -= cost.data;
}

void CreditCounter::restore(int vc, CreditClass c, const CreditCost& cost) {
  const int i = static_cast<int>(c);
  if (limits_.header[i] >= 0) vc_[vc].hdr_avail[i] += cost.header;
  if (limits_.data[i] >= 0) vc_[vc].data_avail[i] += cost.data;
}

int64_t CreditCounter::data_available(int vc, CreditClass c) const {
  const int i = static_cast<int>(c);
  return limits_.data[i] < 0 ? -1 : vc_[vc].data_avail[i];
}

int64_t CreditCounter::header_available(int vc, CreditClass c) const {
  const int i = static_cast<int>(c);
  return limits_.header[i] < 0 ? -1 : vc_[vc].hdr_avail[i];
}

}  // namespace arbsim
