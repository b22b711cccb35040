#include "models/devices/device.h"
#include "models/common/sim_time.h"

namespace arbsim {

Device::Device(sc_core::sc_module_name name, DeviceContext ctx) : sc_core::sc_module(name), ctx_(std::move(ctx)) {}

void Device::dma(int engine, bool to_host, uint64_t bytes, int tc, double rate_GBps, std::function<void()> done) {
  dma(engine, to_host, bytes, tc, rate_GBps, std::move(done), sc_core::sc_time_stamp());
}

void Device::dma(int engine, bool to_host, uint64_t bytes, int tc, double rate_GBps, std::function<void()> done,
                 const sc_core::sc_time& issued) {
  CopyCommand c;
  c.kind = to_host ? CopyKind::Write : CopyKind::Read;
  c.bytes = bytes;
  c.tc = static_cast<uint8_t>(tc);
  c.remote = ctx_.host_memory;
  c.flow_id = ctx_.flow_id;
  c.rate_GBps = rate_GBps;
  const uint64_t handle = open_copies_.open(bytes);
  c.on_start = [this, handle](uint64_t transfer) {
    open_copies_.started(handle, transfer, sim_now_ns());
  };
  // The data rate after a warm-up (docs/results.md "Warm-up") counts what an operation issued
  // during it delivers after it: a DMA open at its end from then on (OpenCopies), one started
  // since in full (an NVMe read whose flash access straddled it: a drive at 80 us access
  // read 55.2 against its link's 56.0 Gb/s, at 400 us 48.7).
  const sc_core::sc_time opened = sc_core::sc_time_stamp();
  c.on_done = [this, handle, bytes, issued, opened, done = std::move(done)] {
    uint64_t carried = open_copies_.close(handle).carried;
    if (issued < measure_from_ && opened >= measure_from_) carried = bytes;
    stats_.carried.add(carried);
    if (done) done();
  };
  // Issued, whether or not it completes: a starved device then reads a throughput of 0, not
  // null as one that issued nothing (record() moves the first issue to the operation's own).
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (now >= measure_from_ && (!stats_.issued_any || now < stats_.first_issue)) stats_.first_issue = now;
  if (now >= measure_from_) stats_.issued_any = true;
  if (engine < 0 || engine >= static_cast<int>(ctx_.engines.size()))
    SC_REPORT_ERROR("arbsim/device", (std::string(name()) + ": DMA engine " + std::to_string(engine) +
                                      " does not exist: its node type declares " +
                                      std::to_string(ctx_.engines.size()) + " (EndpointType::engines)")
                                         .c_str());
  ctx_.engines[static_cast<std::size_t>(engine)]->submit(std::move(c));
}

void Device::record(uint64_t bytes, bool to_host, const sc_core::sc_time& issued) {
  done_any_ = sc_core::sc_time_stamp();  // the whole run's last completion, warm-up or not
  if (issued < measure_from_) return;  // issued during the warm-up
  (to_host ? stats_.bytes_to_host : stats_.bytes_from_host) += bytes;
  ++stats_.operations;
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  stats_.latencies_ns.push_back((now - issued).to_seconds() * 1e9);
  if (!stats_.issued_any || issued < stats_.first_issue) stats_.first_issue = issued;
  stats_.issued_any = true;
  stats_.last_done = now;
}

}  // namespace arbsim
