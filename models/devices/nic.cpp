#include "models/devices/nic.h"

namespace arbsim {

Nic::Nic(sc_core::sc_module_name name, const NicParams& p, DeviceContext ctx)
    : Device(name, std::move(ctx)),
      p_(p),
      interval_(at_ns(static_cast<double>(p.message_bytes) / (p.line_rate_GBps * p.load))) {
  rx_.on = p.direction != NicParams::Direction::Tx;
  tx_.to_host = false;
  tx_.engine = 1;
  tx_.on = p.direction != NicParams::Direction::Rx;
  SC_METHOD(rx_tick);
  sensitive << rx_.tick;
  dont_initialize();
  SC_METHOD(tx_tick);
  sensitive << tx_.tick;
  dont_initialize();
  if (rx_.on && p.messages > 0) rx_.tick.notify(at_ns(p.start_ns));
  if (tx_.on && p.messages > 0) tx_.tick.notify(at_ns(p.start_ns));
}

// One packet arrives (rx) or is due to leave (tx): its DMA is submitted now, the next
// packet follows one interval later.
void Nic::arrive(Lane& l) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  ++l.arrived;
  if (l.accepted - l.done >= p_.ring) {
    ++l.dropped;
    ++stats_.dropped;
  } else {
    ++l.accepted;
    dma(l.engine, l.to_host, p_.message_bytes, p_.tc, 0, [this, &l, now] {
      ++l.done;
      record(p_.message_bytes, l.to_host, now);
    });
  }
  if (l.arrived < p_.messages) l.tick.notify(interval_);
}

bool Nic::finished() const {
  auto lane_done = [this](const Lane& l) { return !l.on || l.done + l.dropped >= p_.messages; };
  return lane_done(rx_) && lane_done(tx_);
}

}  // namespace arbsim
