#include "models/pcie/root_complex.h"
#include <algorithm>

namespace arbsim {

RootComplex::RootComplex(sc_core::sc_module_name name, const SwitchParams& sp, const std::vector<PortSpec>& ports,
                         const RootComplexParams& p, TransferTracker& tracker)
    : Switch(name, sp, ports), params_(p), tracker_(tracker) {
  for (int e = 0; e < p.engines; ++e)
    engines_.push_back(std::make_unique<DmaEngine>(*this, static_cast<int>(ports.size()) + e, e * p.dma.tags, p.dma));
}

void RootComplex::offer(TlpQueue& q) {
  TlpExtension& x = q.front()->x();
  x.head_since = std::max(sc_core::sc_time_stamp(), x.ready_at);
  egress(route(x)).offer(q);
}

}  // namespace arbsim
