#include "models/pcie/credits.h"
#include <stdexcept>
#include <string>

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

// Always-on run check: credits stay within [0, advertised]. A TLP sent without credits, or
// credits returned twice, is a model fault; it stops the run instead of skewing it.
void CreditCounter::consume(int vc, CreditClass c, const CreditCost& cost) {
  const int i = static_cast<int>(c);
  if (limits_.header[i] >= 0) vc_[vc].hdr_avail[i] -= cost.header;
  if (limits_.data[i] >= 0) vc_[vc].data_avail[i] -= cost.data;
  if (vc_[vc].hdr_avail[i] < 0 && limits_.header[i] >= 0) fault("below 0", vc, i);
  if (vc_[vc].data_avail[i] < 0 && limits_.data[i] >= 0) fault("below 0", vc, i);
}

void CreditCounter::restore(int vc, CreditClass c, const CreditCost& cost) {
  const int i = static_cast<int>(c);
  if (limits_.header[i] >= 0) vc_[vc].hdr_avail[i] += cost.header;
  if (limits_.data[i] >= 0) vc_[vc].data_avail[i] += cost.data;
  if (limits_.header[i] >= 0 && vc_[vc].hdr_avail[i] > limits_.header[i]) fault("above the advertised limit", vc, i);
  if (limits_.data[i] >= 0 && vc_[vc].data_avail[i] > limits_.data[i]) fault("above the advertised limit", vc, i);
}

void CreditCounter::fault(const char* what, int vc, int cls) {
  static const char* names[] = {"posted", "non-posted", "completion"};
  throw std::logic_error(std::string("run check: ") + names[cls] + " credits of VC" + std::to_string(vc) + " went " + what);
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
