// What an egress port tells an observer while one watches (docs/observability.md): each TLP
// it puts on the wire, and at each arbitration every ready head it did not grant, with the
// reason. Plain C++ (the transaction trace and the "why not granted" summary implement it in
// platforms/observe/); a port without an observer pays one pointer test per arbitration.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include <systemc>
#include "models/pcie/tlp.h"
#include "models/pcie/tlp_queue.h"

namespace arbsim {

class EgressPort;

// Why a ready head was not granted at an arbitration (PCIe Base Spec §6.3.3: VC arbitration,
// then port arbitration inside the VC; §2.6 flow control; docs/arbiters.md).
enum class WaitReason : uint8_t {
  LinkBusy,     // became ready while the link carried another TLP (reported at the next arbitration)
  NoCredits,    // the receiver has too few credits of its class on its VC
  LostVc,       // VC arbitration granted another VC
  LostPort,     // port arbitration inside its VC granted another requester
  RemapHeld,    // its TC is moving to another VC and waits for the old one to drain
};

struct HeadWait {
  const TlpQueue* queue = nullptr;  // the head's queue: its identity between arbitrations
  const TlpExtension* head = nullptr;
  int slot = 0, vc = 0;             // requester slot at this port, egress VC
  sc_core::sc_time ready;           // eligible since
  WaitReason reason = WaitReason::LinkBusy;
  int winner_vc = -1, winner_slot = -1;  // LostVc / LostPort: who was granted
  bool guard = false;               // LostVc: the starvation guard gave the turn to a lower VC
};

class EgressObserver {
 public:
  virtual ~EgressObserver() = default;
  // A TLP of queue `q` (requester q.slot()), ready since `ready`, granted on `vc` at `start`,
  // on the wire until `end`.
  virtual void on_grant(const EgressPort& port, const TlpQueue& q, const TlpExtension& x, uint32_t payload, int vc,
                        const sc_core::sc_time& ready, const sc_core::sc_time& start, const sc_core::sc_time& end) = 0;
  // One arbitration at `now`: the ready heads not granted (`n` of them).
  virtual void on_waits(const EgressPort& port, const sc_core::sc_time& now, const HeadWait* waits, std::size_t n) = 0;
  // The receiver's data credits of `vc` changed (a grant took some, a return gave some back).
  virtual void on_credits(const EgressPort& port, const sc_core::sc_time& now, int vc, int64_t posted_data,
                          int64_t cpl_data) = 0;
  // The watched window opened at `start` (reported before anything inside it): `waits` are the
  // heads waiting then, with why they lost the last arbitration before it (none: nothing
  // waited at that arbitration; a head ready since is seen at the next one).
  virtual void on_window_start(const EgressPort& /*port*/, const sc_core::sc_time& /*start*/,
                               const HeadWait* /*waits*/, std::size_t /*n*/) {}
  // The watched window closed (or the run ended inside it) at `end`; `waits` are the heads
  // ready and waiting then (`reason` unset: whatever they last lost for, or the busy link).
  virtual void on_window_end(const EgressPort& port, const sc_core::sc_time& end, const HeadWait* waits,
                             std::size_t n) = 0;
};

// Several observers of the same ports (the transaction trace and the detectors), each told
// everything in the order they were added.
class EgressObserverFanout : public EgressObserver {
 public:
  void add(EgressObserver* o) { all_.push_back(o); }
  void on_grant(const EgressPort& port, const TlpQueue& q, const TlpExtension& x, uint32_t payload, int vc,
                const sc_core::sc_time& ready, const sc_core::sc_time& start, const sc_core::sc_time& end) override {
    for (EgressObserver* o : all_) o->on_grant(port, q, x, payload, vc, ready, start, end);
  }
  void on_waits(const EgressPort& port, const sc_core::sc_time& now, const HeadWait* waits, std::size_t n) override {
    for (EgressObserver* o : all_) o->on_waits(port, now, waits, n);
  }
  void on_credits(const EgressPort& port, const sc_core::sc_time& now, int vc, int64_t posted_data,
                  int64_t cpl_data) override {
    for (EgressObserver* o : all_) o->on_credits(port, now, vc, posted_data, cpl_data);
  }
  void on_window_start(const EgressPort& port, const sc_core::sc_time& start, const HeadWait* waits,
                       std::size_t n) override {
    for (EgressObserver* o : all_) o->on_window_start(port, start, waits, n);
  }
  void on_window_end(const EgressPort& port, const sc_core::sc_time& end, const HeadWait* waits,
                     std::size_t n) override {
    for (EgressObserver* o : all_) o->on_window_end(port, end, waits, n);
  }

 private:
  std::vector<EgressObserver*> all_;
};

}  // namespace arbsim
