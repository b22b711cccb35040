#include "models/devices/nvme.h"
#include <cmath>

namespace arbsim {

NvmeDrive::NvmeDrive(sc_core::sc_module_name name, const NvmeParams& p, DeviceContext ctx)
    : Device(name, std::move(ctx)), p_(p), access_(at_ns(p.access_latency_ns)) {
  if (p.ios > 0) after(at_ns(p.start_ns), [this] { refill(); });
}

// Reads and writes spread evenly: I/O k is a read when the running count of reads,
// floor(k x read_fraction), steps up at k + 1.
bool NvmeDrive::is_read(int64_t io) const {
  return std::floor(static_cast<double>(io + 1) * p_.read_fraction) > std::floor(static_cast<double>(io) * p_.read_fraction);
}

void NvmeDrive::refill() {
  while (in_flight_ < p_.queue_depth && issued_ < p_.ios) start(issued_++);
}

void NvmeDrive::start(int64_t io) {
  ++in_flight_;
  const sc_core::sc_time issued = sc_core::sc_time_stamp();
  auto complete = [this, issued](bool read) {
    record(p_.io_bytes, read, issued);
    ++done_;
    --in_flight_;
    refill();
  };
  if (is_read(io)) {
    after(access_, [this, complete, issued] {
      dma(0, true, p_.io_bytes, p_.tc, p_.bandwidth_GBps, [complete] { complete(true); }, issued);
    });
  } else {
    dma(0, false, p_.io_bytes, p_.tc, p_.bandwidth_GBps, [this, complete] { after(access_, [complete] { complete(false); }); },
        issued);
  }
}

}  // namespace arbsim
