// A NIC on a PCIe switch (a GPU server's network adapter, docs/pcie-reference.md §8): packets
// arrive from the network (rx) and are sent to it (tx) at the line rate, each one DMA of
// `message_bytes` - rx writes host memory (MWr, engine 0), tx reads it (MRd and CplD,
// engine 1). Arrivals do not wait for PCIe: when the fabric is slower than the line, DMAs
// queue in the engine and each packet's latency (arrival -> data delivered) grows, which is
// what an architect sizing a NIC beside GPUs looks at; a packet arriving while `ring` DMAs
// of its direction are in flight is dropped and counted (a NIC's exhausted descriptor
// ring). It stops after `messages` arrivals per direction.
#pragma once
#include "models/devices/device.h"
#include "models/devices/device_params.h"

namespace arbsim {

class Nic : public Device {
 public:
  SC_HAS_PROCESS(Nic);
  Nic(sc_core::sc_module_name name, const NicParams& p, DeviceContext ctx);
  bool finished() const override;

 private:
  struct Lane {
    bool to_host = true;
    int engine = 0;
    bool on = false;
    int64_t arrived = 0, accepted = 0, done = 0, dropped = 0;
    sc_core::sc_event tick;
  };
  void rx_tick() { arrive(rx_); }
  void tx_tick() { arrive(tx_); }
  void arrive(Lane& l);

  const NicParams p_;
  const sc_core::sc_time interval_;  // one message at the offered rate
  Lane rx_, tx_;
};

}  // namespace arbsim
