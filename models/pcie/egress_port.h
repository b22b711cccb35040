// One egress port: the transmit side of a link direction. It arbitrates among the queues
// whose head TLP is routed here (VC arbitration across VCs, then port arbitration across
// requesters inside the chosen VC: PCIe Base Spec §6.3.3, pcie-facts.md §4), checks the
// receiver's flow-control credits (§3), and serialises the winner onto the link.
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
#include "models/pcie/arbiters/arbiter.h"
#include "models/pcie/credits.h"
#include "models/pcie/link_direction.h"
#include "models/pcie/tlp_queue.h"

namespace arbsim {

struct EgressConfig {
  LinkDirection link;
  int vcs = 1;                              // VCs enabled on this link direction
  std::array<uint8_t, kNumTcs> tc_to_vc{};  // TC -> VC on this link (TC0 -> VC0)
  CreditLimits credits;                     // advertised by the receiver, per VC
  double fc_latency_ns = 0;                 // receiver frees a buffer -> UpdateFC sent
  ArbiterSpec vc_arbiter;
  ArbiterSpec port_arbiter;
  int slots = 1;                            // requesters for the port arbiter
};

struct EgressStats {
  uint64_t tlps = 0, payload_bytes = 0, wire_bytes = 0;
  double busy_ps = 0, credit_stall_ps = 0;
  std::array<uint64_t, kMaxVcs> vc_bytes{}, vc_grants{};
  std::array<double, kMaxVcs> vc_max_head_wait_ps{};
};

class EgressPort : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(EgressPort);
  tlm_utils::simple_initiator_socket<EgressPort> out;

  EgressPort(sc_core::sc_module_name name, const EgressConfig& cfg);

  // The head of `q` is routed to this port (it becomes eligible at its ready_at).
  void offer(TlpQueue& q);
  const EgressConfig& config() const { return cfg_; }
  const EgressStats& stats() const { return stats_; }
  int vc_of(uint8_t tc) const { return cfg_.tc_to_vc[tc]; }
  // Reprograms the TC/VC map at run time (seed 000 §3.2 remapping). TLPs already sent keep
  // the VC they were sent on (credits return to that VC); queued ones take the new map at
  // their next arbitration.
  void set_tc_map(const std::array<uint8_t, kNumTcs>& tc_to_vc) { cfg_.tc_to_vc = tc_to_vc; }
  std::string vc_arbiter_name() const { return vc_arb_->describe(); }
  void trace(sc_core::sc_trace_file* tf, const std::string& prefix);
  // Closes any open credit-stall interval at the end of simulation.
  void finish();

  static uint64_t total_hops();  // TLP link traversals, all ports

 private:
  struct CreditReturn {
    sc_core::sc_time at;
    uint8_t vc;
    CreditClass cls;
    CreditCost cost;
  };
  struct Candidates {
    uint32_t vc_mask = 0;                      // egress VCs with a grantable head
    std::array<uint32_t, kMaxVcs> slot_mask{}; // per VC: slots with a grantable head
    bool credit_blocked = false;               // a ready head lacks credits
    sc_core::sc_time next_ready = sc_core::SC_ZERO_TIME;  // earliest not-yet-ready head
    bool has_future = false;
  };

  void run();
  void apply_credit_returns(const sc_core::sc_time& now);
  Candidates collect(const sc_core::sc_time& now);
  void transmit(TlpQueue& q, const sc_core::sc_time& now);
  void account_stall(bool stalled, const sc_core::sc_time& now);
  void trace_credits(int vc);
  sc_core::sc_time serialization(uint32_t wire);
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                     sc_core::sc_time& delay);

  EgressConfig cfg_;
  std::unique_ptr<Arbiter> vc_arb_;
  std::vector<std::unique_ptr<Arbiter>> port_arb_;  // one per VC
  CreditCounter credits_;
  std::deque<CreditReturn> returns_;
  // offered_[slot][sub]: queue whose head is routed here, or nullptr.
  std::vector<std::array<TlpQueue*, kMaxVcs>> offered_;
  uint32_t offered_slots_ = 0;
  std::vector<uint8_t> offered_subs_;
  // choice_[vc][slot]: the queue collect() found grantable for that VC and slot.
  std::array<std::array<TlpQueue*, Arbiter::kMaxRequesters>, kMaxVcs> choice_{};
  sc_core::sc_time propagation_;
  sc_core::sc_event wake_;
  sc_core::sc_time busy_until_;
  bool credit_blocked_ = false;
  bool stalling_ = false;
  sc_core::sc_time stall_since_;
  EgressStats stats_;
  // Most TLPs on a link have the same size: keep the last serialisation time.
  uint32_t last_wire_ = 0;
  sc_core::sc_time last_ser_;
  // Traced in VCD (credit values are only kept up to date when tracing).
  bool tracing_ = false;
  bool busy_trace_ = false;
  int grant_vc_trace_ = -1;
  std::array<int64_t, kMaxVcs> posted_data_credits_trace_{};
  std::array<int64_t, kMaxVcs> cpl_data_credits_trace_{};
};

}  // namespace arbsim
