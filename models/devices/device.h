// The base of an endpoint device's behaviour (a NIC, an NVMe drive, or a user's own module):
// a SystemC module that moves data through the DMA engines of its endpoint. The engines are
// CopyExecutors, so a device runs unchanged in both fidelities: the packet fabric's endpoint
// turns its copies into TLPs, the flow fabric into flows. The platform attaches a device to
// every node of a registered type (platforms/device_registry.h, docs/api.md).
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>
#include <systemc>
#include "models/common/copy_executor.h"
#include "models/common/progress_guard.h"
#include "models/common/open_copies.h"

namespace arbsim {

// What a device is given: its endpoint's engines and where its host memory is.
struct DeviceContext {
  std::string node;                   // its node's name
  std::vector<CopyExecutor*> engines; // its endpoint's DMA engines
  int endpoint = -1;                  // its own endpoint index (as a completer)
  int host_memory = -1;               // endpoint index of its socket's host memory
  uint32_t flow_id = 0;               // tags its transfers (ordering checks)
};

struct DeviceStats {
  uint64_t bytes_to_host = 0, bytes_from_host = 0, operations = 0;
  uint64_t dropped = 0;               // operations the device gave up (a NIC's full ring)
  std::vector<double> latencies_ns;   // per operation: issued -> data delivered (or I/O done)
  sc_core::sc_time first_issue, last_done;
  bool issued_any = false;
  // After a warm-up, as AppStats: DMAs open at its end count in the data rate only, with the
  // bytes they delivered inside the window.
  Carried carried;
};

class Device : public sc_core::sc_module {
 public:
  Device(sc_core::sc_module_name name, DeviceContext ctx);
  const DeviceStats& stats() const { return stats_; }
  const DeviceContext& context() const { return ctx_; }
  // Done with all it was configured to do (the run may end without it: time_ns).
  virtual bool finished() const = 0;
  // The end of the warm-up (sim.warmup_ns): statistics start again, counting operations
  // issued from now on, and in the data rate what the DMAs open now deliver from now on
  // (`delivered`: of a fabric transfer, so far).
  void restart_stats(const OpenCopies::Delivered& delivered) {
    stats_ = DeviceStats{};
    measure_from_ = sc_core::sc_time_stamp();
    stats_.carried.from = measure_from_;
    stats_.carried.open_at_start = open_copies_.start_window(delivered);
  }
  // Its last completion, warm-up included (makespan_ns): of an operation issued in the
  // warm-up too (they count in no statistic; makespan_ns lost a drive's 20 I/Os issued at 0
  // under a 1 us warm-up: 2.6 us for a 379.5 us run).
  sc_core::sc_time last_done_whole_run() const { return done_any_; }

 protected:
  // One DMA through engine `engine`: to host memory (a write) or from it (a read); `done`
  // when its last byte is delivered. `issued`: when its operation was (now where not given):
  // a DMA after the warm-up of an operation issued during it counts in the data rate only.
  void dma(int engine, bool to_host, uint64_t bytes, int tc, double rate_GBps, std::function<void()> done);
  void dma(int engine, bool to_host, uint64_t bytes, int tc, double rate_GBps, std::function<void()> done,
           const sc_core::sc_time& issued);
  void record(uint64_t bytes, bool to_host, const sc_core::sc_time& issued);
  // A config time in ns as a kernel time, rounded to the picosecond resolution.
  static sc_core::sc_time at_ns(double ns) {
    return sc_core::sc_time::from_value(static_cast<uint64_t>(ns * 1000.0 + 0.5));
  }

  const DeviceContext ctx_;
  DeviceStats stats_;

 private:
  sc_core::sc_time measure_from_;  // SC_ZERO_TIME: no warm-up
  sc_core::sc_time done_any_;      // the last completion of any operation
  OpenCopies open_copies_;        // its open DMAs, for the window's data rate
};

}  // namespace arbsim
