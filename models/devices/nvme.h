// An NVMe drive on a PCIe switch (docs/pcie-reference.md §8): `queue_depth` I/Os in flight,
// `ios` in all. A read I/O waits the flash access latency, then writes its data to host
// memory; a write I/O reads its data from host memory, then waits the flash program
// latency. Data moves through the drive's one DMA engine no faster than its bandwidth, so
// the drive delivers at most min(bandwidth, what the fabric gives it).
#pragma once
#include "models/common/timers.h"
#include "models/devices/device.h"
#include "models/devices/device_params.h"

namespace arbsim {

class NvmeDrive : public Device {
 public:
  SC_HAS_PROCESS(NvmeDrive);
  NvmeDrive(sc_core::sc_module_name name, const NvmeParams& p, DeviceContext ctx);
  bool finished() const override { return done_ >= p_.ios; }

 private:
  void refill();     // keeps queue_depth I/Os in flight
  void start(int64_t io);
  bool is_read(int64_t io) const;
  void after(const sc_core::sc_time& delay, std::function<void()> f) { timers_.after(delay, std::move(f)); }

  const NvmeParams p_;
  const sc_core::sc_time access_;
  int64_t issued_ = 0, done_ = 0;
  int in_flight_ = 0;
  Timers timers_{"timers"};
};

}  // namespace arbsim
