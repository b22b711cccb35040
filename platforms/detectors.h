// Detectors (issue 16, docs/observability.md "Detectors"): an EgressObserver on the packet
// fabric's egress ports that names three ways a TLP waits for the wrong reason, each as
// episodes with time, place and the transfers involved (results.json `detectors`, the log).
//
//   head-of-line blocking  a TLP in a switch's FIFO ingress queue (PCIe Base Spec §6.3.3:
//       one queue per ingress VC unless the port has VOQs) is ready but held behind the
//       queue's head, which waits at another egress: from when both are ready to that head's
//       grant, one episode while TLPs of the same transfer stay held.
//   priority inversion     a head of TC h waits because of a TC l < h: it lost port
//       arbitration to it on the VC they share (the TC/VC map put both on one VC), lost VC
//       arbitration to it under strict priority without a guard (a map that ranks l's VC
//       higher), or lacks credits on its VC while TLPs of TC l sent on that VC still hold the
//       receiver's buffers (§2.6: credits are per VC, not per TC). Losses a policy intends
//       (round robin, WRR, a starvation guard's turn) are not inversions. From the first
//       such arbitration to the head's grant.
//   starvation             a head waited from ready to grant (or to the end) longer than the
//       bound (--starvation-bound).
//
// Plain C++; a port without an observer pays nothing more (egress_observer.h).
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>
#include "models/pcie/egress_observer.h"
#include "models/pcie/egress_port.h"
#include "platforms/fabric.h"

namespace arbsim {

class Detectors : public EgressObserver {
 public:
  explicit Detectors(double starvation_bound_ns);

  void attach(const EgressPort& port, const std::string& name);
  // The episodes, sorted by start, place and transfers (complete after every port's finish()).
  const std::vector<Detection>& found() const;

  void on_grant(const EgressPort& port, const TlpQueue& q, const TlpExtension& x, uint32_t payload, int vc,
                const sc_core::sc_time& ready, const sc_core::sc_time& start, const sc_core::sc_time& end) override;
  void on_waits(const EgressPort& port, const sc_core::sc_time& now, const HeadWait* waits, std::size_t n) override;
  void on_credits(const EgressPort&, const sc_core::sc_time&, int, int64_t, int64_t) override {}
  void on_window_end(const EgressPort& port, const sc_core::sc_time& end, const HeadWait* waits,
                     std::size_t n) override;

 private:
  struct Open {  // an episode under way, until its head is granted
    const TlpExtension* head = nullptr;
    Detection d;
  };
  using Key = std::tuple<const EgressPort*, const TlpQueue*, int>;  // port, queue, kind
  struct LastGrant {
    uint64_t transfer = 0;
    uint32_t flow = 0;
    std::string requester;
  };

  DetectedTlp tlp(const EgressPort& port, int slot, const TlpExtension& x) const;
  void look_for_hol(const EgressPort& port, const TlpQueue& q, std::size_t first, const TlpExtension& head,
                    int64_t head_ready, int64_t until, bool to_end);
  void look_for_credit_inversion(const EgressPort& port, const HeadWait& w, int64_t now);
  void inversion_by_loss(const EgressPort& port, const HeadWait& w, const TlpQueue& q, const TlpExtension& x,
                         int64_t now);
  void open(const Key& k, const TlpExtension* head, Detection d);
  void close_all(const EgressPort& port, const TlpQueue* q, const TlpExtension* head, int64_t at, bool to_end);
  void starvation(const EgressPort& port, int slot, const TlpExtension& x, int64_t ready, int64_t until, bool to_end);

  int64_t bound_ps_;
  std::unordered_map<const EgressPort*, std::string> names_;
  std::map<Key, Open> open_;
  std::vector<HeadWait> lost_;  // the last on_waits' losses, resolved by the grant that follows
  // [port][vc][tc]: the last TLP granted there (the holder of credits a higher TC lacks).
  std::unordered_map<const EgressPort*, std::array<std::array<LastGrant, kNumTcs>, kLinkStatsVcs>> last_;
  mutable std::vector<Detection> found_;
  mutable std::vector<Detection> hol_;  // merged as they grow, then moved to found_
  mutable std::map<std::pair<const EgressPort*, const TlpQueue*>, std::size_t> hol_last_;  // its latest in hol_
  mutable bool sorted_ = true;
};

}  // namespace arbsim
