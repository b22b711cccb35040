#include "models/gpu/gpu.h"

namespace arbsim {

Gpu::Gpu(sc_core::sc_module_name name, const EndpointParams& p, const PortSpec& port, TransferTracker& tracker)
    : Endpoint(name, p, port, tracker), compute_("compute", this->name()) {}

void Gpu::trace(sc_core::sc_trace_file* tf) {
  Endpoint::trace(tf);
  compute_.trace(tf);
}

}  // namespace arbsim
