// The transaction trace and the "why not granted" summary (docs/observability.md): an
// EgressObserver on the packet fabric's egress ports that match a filter, inside a time
// window. It writes Chrome trace-event JSON (opens in ui.perfetto.dev and chrome://tracing):
// per link direction a process, per VC a track of TLP slices on the wire, flow arrows that
// follow each transfer across its hops, per requester a track of its head's waits named by
// their reason, and counters of credits and waiting heads. It also totals, per requester, VC
// and reason, how many arbitrations a head lost and how long it waited (results.json
// arbiters[].why_not_granted).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>
#include "models/pcie/egress_observer.h"
#include "models/pcie/egress_port.h"
#include "platforms/fabric.h"

namespace arbsim {

class TransactionTrace : public EgressObserver {
 public:
  explicit TransactionTrace(const ObserveOptions& o);

  // Watches `port` (named `name`, e.g. "sw0->rc0", walk direction `dir`); the port must
  // report to it (EgressPort::observe) over the options' window.
  void attach(const EgressPort& port, const std::string& name, int dir);
  // The totals of walk direction `dir` (nullopt when it was not watched), sorted by
  // requester slot, VC and reason.
  std::optional<std::vector<WaitTotal>> totals(int dir) const;
  // The whole trace as JSON text (complete after every port's finish()).
  std::string json() const;

  void on_grant(const EgressPort& port, const TlpQueue& q, const TlpExtension& x, uint32_t payload, int vc,
                const sc_core::sc_time& ready, const sc_core::sc_time& start, const sc_core::sc_time& end) override;
  void on_waits(const EgressPort& port, const sc_core::sc_time& now, const HeadWait* waits, std::size_t n) override;
  void on_credits(const EgressPort& port, const sc_core::sc_time& now, int vc, int64_t posted_data,
                  int64_t cpl_data) override;
  void on_window_start(const EgressPort& port, const sc_core::sc_time& start, const HeadWait* waits,
                       std::size_t n) override;
  void on_window_end(const EgressPort& port, const sc_core::sc_time& end, const HeadWait* waits,
                     std::size_t n) override;

 private:
  struct Wait {  // a head's current wait
    const TlpExtension* head = nullptr;
    int slot = 0, vc = 0;
    std::string reason;
    int64_t since = 0;        // ps: start of the current reason's interval
    int64_t slice_since = 0;  // ps: start of the trace slice (same reason, merged)
    uint64_t lost = 0;        // arbitrations lost in the slice
  };
  struct Port {
    std::string name;
    int pid = 0, dir = 0;
    std::map<int, Wait> waits;  // by queue (slot * 8 + ingress VC): a deterministic order
    std::map<std::tuple<int, int, std::string>, WaitTotal> totals;  // (slot, vc, reason)
    std::set<int> vc_tracks, wait_tracks;
    std::set<uint64_t> flows;  // transfers with an arrow here already
  };

  Port& port_of(const EgressPort& p) { return ports_.at(&p); }
  std::string reason_text(const EgressPort& p, const HeadWait& w) const;
  Wait& wait_of(Port& pt, const HeadWait& hw);
  void account(Port& pt, const EgressPort& p, Wait& w, int64_t until, const std::string& next_reason);
  void close(Port& pt, const EgressPort& p, Wait& w, int64_t until);
  void event(const std::string& text);  // one more trace event (a JSON object's text)
  void thread_name(int pid, int tid, const std::string& name);

  ObserveOptions opt_;
  int64_t from_ps_ = 0;
  std::unordered_map<const EgressPort*, Port> ports_;
  std::set<uint64_t> transfers_seen_;
  std::string events_;  // the events so far, comma-separated
};

}  // namespace arbsim
