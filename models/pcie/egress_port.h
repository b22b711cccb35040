// One egress port: the transmit side of a link direction. It arbitrates among the queues
// whose head TLP is routed here (VC arbitration across VCs, then port arbitration across
// requesters inside the chosen VC: PCIe Base Spec §6.3.3, docs/pcie-reference.md §4), checks
// the receiver's flow-control credits (§3), and serialises the winner onto the link.
//
// Hot path: one SC_METHOD and one pending sc_event per port (not per TLP). The method runs
// when a head becomes ready, when the link frees, or when credits return; it arbitrates at
// most once per run and schedules itself for the next moment anything can change.
#pragma once
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include "models/common/link_stats.h"
#include "models/common/progress_guard.h"
#include "models/pcie/egress_observer.h"
#include "models/pcie/port_config.h"
#include "models/pcie/tlp_queue.h"

namespace arbsim {

static_assert(kLinkStatsVcs == kMaxVcs, "link statistics hold one entry per VC");

class EgressPort : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(EgressPort);
  tlm_utils::simple_initiator_socket<EgressPort> out;

  EgressPort(sc_core::sc_module_name name, const EgressConfig& cfg);

  // The head of `q` is routed to this port (it becomes eligible at eligible_at()).
  void offer(TlpQueue& q);
  const EgressConfig& config() const { return cfg_; }
  const EgressStats& stats() const { return stats_; }
  int vc_of(uint8_t tc) const { return cfg_.tc_to_vc[tc]; }
  // TLPs of traffic class `tc` and credit class `c` sent whose credits the receiver has not
  // returned yet.
  uint32_t in_flight(int tc, CreditClass c) const { return in_flight_class_[tc][static_cast<int>(c)]; }
  // Reprograms the TC/VC map at run time (seed 000 §3.2 remapping). A TC moves to its new VC
  // only once no TLP of it sent on the old VC is still in the receiver's buffers (its
  // credits have all returned), and new TLPs of that TC wait until then: the TC/VC map of a
  // VC may change only when no transactions of the TCs it loses are outstanding (PCIe Base
  // Spec §7.9.1.7; docs/pcie-reference.md §4), which keeps a transfer's writes in order.
  void set_tc_map(const std::array<uint8_t, kNumTcs>& tc_to_vc);
  // Reloads every VC's port arbitration table from one weight per slot (a WRR port arbiter;
  // driver.share_control acting on PCIe shares by WRR weights). Takes effect at the next
  // arbitration; sc_report error if the port arbiter has no weights (config checks prevent it).
  void set_port_weights(const std::vector<int>& weights);
  std::string vc_arbiter_name() const { return vc_arb_->describe(); }
  // Reports grants, waits and credits to `o` for arbitrations in [from, to) (nullptr: none;
  // the default, which costs one test per arbitration). docs/observability.md.
  void observe(EgressObserver* o, const sc_core::sc_time& from, const sc_core::sc_time& to);
  std::string slot_name(int slot) const;
  void trace(sc_core::sc_trace_file* tf, const std::string& prefix);
  // Closes the accounting at the end of the run (`end`): stall intervals, the busy time and
  // TLP still on the wire beyond the end, and the heads still waiting (their age).
  void finish();
  // For a time series (sim.stats_period_ns), read at a pause of the kernel: the busy time up
  // to now (stats().busy_ps counts a TLP's whole time at its grant), the TLPs queued at the
  // requesters whose head is routed here, and the receiver's posted data credits on `vc`.
  double busy_ps_now() const;
  std::size_t queued_tlps() const;
  int64_t posted_data_credits(int vc) const { return credits_.data_available(vc, CreditClass::Posted); }
  // The end of the warm-up (sim.warmup_ns, docs/results.md "Warm-up"): statistics start
  // again from nothing, as if the run began now with the TLP on the wire in it.
  void restart_stats();
  // What waits here when nothing else can happen (a deadlock report); "" when nothing waits.
  std::string waiting() const;

  static uint64_t total_hops();  // TLP link traversals, all ports

 private:
  struct CreditReturn {
    sc_core::sc_time at;
    uint8_t vc, tc;
    CreditClass cls;
    CreditCost cost;
  };
  struct Candidates {
    uint32_t vc_mask = 0;                // egress VCs with a grantable head (slot_mask_ holds who)
    bool credit_blocked = false;         // a ready head lacks credits
    bool held = false;                   // a ready head waits for its TC's remap to drain
    sc_core::sc_time next_ready = sc_core::SC_ZERO_TIME;  // earliest not-yet-eligible head
    bool has_future = false;
  };
  struct LastGrant {
    sc_core::sc_time at, end;
    uint32_t payload = 0, wire = 0;
    int vc = 0;
  };

  void run();
  void apply_credit_returns(const sc_core::sc_time& now);
  Candidates collect(const sc_core::sc_time& now);
  sc_core::sc_time eligible_at(const TlpExtension& x);
  // When head x of queue q starts to wait here: at the head of its queue and ready, eligible,
  // and its own queue's previous TLP off this link. A head cannot go before that one has
  // left: serialisation, not a wait, whether it queued behind it or arrived while it was on
  // the wire (max_head_wait_ns read 16.6 us on an idle Gen1 x1 link with 4 KiB TLPs, and
  // --detect called it starvation). TlpExtension::head_since keeps when it became head: the
  // time it holds up what queues behind it (head-of-line blocking) includes that.
  sc_core::sc_time wait_start(const TlpQueue& q, const TlpExtension& x) {
    return std::max({eligible_at(x), x.head_since, sent_end_[q.slot()][q.sub()]});
  }
  void transmit(TlpQueue& q, const sc_core::sc_time& now);
  void account_stall(bool stalled, const sc_core::sc_time& now);
  void apply_remap(int tc);
  void record_waiting_heads(const sc_core::sc_time& end);
  bool observing(const sc_core::sc_time& now) const { return observer_ && now >= observe_from_ && now < observe_to_; }
  void watch_arbitration(const sc_core::sc_time& now, const TlpQueue* granted, int granted_vc);
  void find_waits(const sc_core::sc_time& now, const TlpQueue* granted, int granted_vc);
  void open_window();
  void close_window(const sc_core::sc_time& at);
  // Credits changed on `vc`: the observer and the VCD hear of it (inline: the common case,
  // neither, costs two tests and no call).
  void trace_credits(int vc) {
    if (observer_ || tracing_) report_credits(vc);
  }
  void report_credits(int vc);
  sc_core::sc_time serialization(uint32_t wire);
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                     sc_core::sc_time& delay);

  EgressConfig cfg_;
  int words_ = 1;  // 64-bit words of a slot mask
  std::unique_ptr<Arbiter> vc_arb_;
  std::vector<std::unique_ptr<Arbiter>> port_arb_;  // one per VC
  CreditCounter credits_;
  std::deque<CreditReturn> returns_;
  // offered_[slot][sub]: queue whose head is routed here, or nullptr.
  std::vector<std::array<TlpQueue*, kMaxVcs>> offered_;
  std::vector<uint64_t> offered_slots_;  // slots with an offered queue, a bit each
  std::vector<uint8_t> offered_subs_;
  std::vector<uint64_t> slot_mask_;      // [vc * words_ + w]: slots with a grantable head on vc
  std::vector<TlpQueue*> choice_;        // [vc * slots + slot]: the queue collect() found grantable
  std::vector<uint64_t> slot_grants_;    // [vc * slots + slot]: grants so far
  // TC remapping: the VC a TC moves to once its TLPs in flight drain (-1: none pending).
  std::array<int, kNumTcs> pending_vc_;
  std::array<uint32_t, kNumTcs> in_flight_{};  // TLPs sent whose credits have not returned
  std::array<std::array<uint32_t, kCreditClasses>, kNumTcs> in_flight_class_{};  // the same by credit class
  bool held_ = false;
  sc_core::sc_time propagation_;
  sc_core::sc_event wake_;
  ProgressGuard guard_;
  sc_core::sc_time busy_until_;
  // [slot][sub]: when the last TLP this port sent from that queue left the link (wait_start()).
  std::vector<std::array<sc_core::sc_time, kMaxVcs>> sent_end_;
  bool credit_blocked_ = false;
  bool stalling_ = false;
  sc_core::sc_time stall_since_;
  EgressStats stats_;
  LastGrant last_;
  // Most TLPs on a link have the same size: keep the last serialisation time.
  uint32_t last_wire_ = 0;
  sc_core::sc_time last_ser_;
  // The observer (docs/observability.md) and its window.
  EgressObserver* observer_ = nullptr;
  sc_core::sc_time observe_from_, observe_to_;
  bool window_opened_ = false, window_closed_ = false;
  std::vector<HeadWait> waits_;  // reused at every observed arbitration
  // The heads not granted at the last arbitration before the window, and why: a head waiting
  // across the window's start waits inside it for that reason, not "link busy".
  std::vector<HeadWait> before_;
  // Traced in VCD (credit values are only kept up to date when tracing).
  bool tracing_ = false;
  bool busy_trace_ = false;
  int grant_vc_trace_ = -1;
  std::array<int64_t, kMaxVcs> posted_data_credits_trace_{};
  std::array<int64_t, kMaxVcs> cpl_data_credits_trace_{};
};

}  // namespace arbsim
