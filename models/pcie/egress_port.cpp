#include "models/pcie/egress_port.h"
#include <algorithm>

namespace arbsim {

using sc_core::sc_time;
using sc_core::SC_PS;

namespace {
uint64_t g_hops = 0;
// The kernel runs at its default 1 ps resolution (checked in the constructor), so a time's
// value is picoseconds: cheaper than sc_time's double/unit constructor on the hot path.
inline double ps(const sc_time& t) { return static_cast<double>(t.value()); }
inline sc_time from_ps(double v) { return sc_time::from_value(static_cast<sc_time::value_type>(v)); }
}  // namespace

uint64_t EgressPort::total_hops() { return g_hops; }

EgressPort::EgressPort(sc_core::sc_module_name name, const EgressConfig& cfg)
    : sc_core::sc_module(name), out("out"), cfg_(cfg) {
  vc_arb_ = make_arbiter(cfg_.vc_arbiter, cfg_.vcs);
  for (int v = 0; v < cfg_.vcs; ++v) port_arb_.push_back(make_arbiter(cfg_.port_arbiter, cfg_.slots));
  credits_.configure(cfg_.vcs, cfg_.credits);
  if (sc_core::sc_get_time_resolution() != sc_time(1, SC_PS))
    SC_REPORT_FATAL("arbsim/egress", "the model needs the default 1 ps time resolution");
  propagation_ = from_ps(std::round(cfg_.link.propagation_ns * 1000.0));
  offered_.assign(cfg_.slots, {});
  offered_subs_.assign(cfg_.slots, 0);
  out.register_nb_transport_bw(this, &EgressPort::nb_transport_bw);
  SC_METHOD(run);
  sensitive << wake_;
  dont_initialize();
  for (int v = 0; v < cfg_.vcs; ++v) {
    posted_data_credits_trace_[v] = credits_.data_available(v, CreditClass::Posted);
    cpl_data_credits_trace_[v] = credits_.data_available(v, CreditClass::Completion);
  }
}

void EgressPort::offer(TlpQueue& q) {
  offered_[q.slot()][q.sub()] = &q;
  offered_slots_ |= 1u << q.slot();
  offered_subs_[q.slot()] |= static_cast<uint8_t>(1u << q.sub());
  const sc_time now = sc_core::sc_time_stamp();
  const sc_time at = std::max(now, q.front()->x().ready_at);
  // A busy link wakes the port when it frees; no earlier wake is useful then.
  if (at >= busy_until_) wake_.notify(at - now);
}

void EgressPort::run() {
  const sc_time now = sc_core::sc_time_stamp();
  apply_credit_returns(now);
  if (now < busy_until_) {
    wake_.notify(busy_until_ - now);
    return;
  }
  busy_trace_ = false;
  const Candidates c = collect(now);
  credit_blocked_ = c.credit_blocked && c.vc_mask == 0;
  account_stall(credit_blocked_, now);
  if (c.vc_mask) {
    const int vc = vc_arb_->grant(c.vc_mask);
    const int slot = port_arb_[vc]->grant(c.slot_mask[vc]);
    transmit(*choice_[vc][slot], now);
  } else if (credit_blocked_ && !returns_.empty()) {
    wake_.notify(returns_.front().at - now);
  }
  // After a grant the port wakes when the link frees; a head ready before then waits anyway.
  if (c.has_future && c.next_ready >= busy_until_) wake_.notify(c.next_ready - now);
}

void EgressPort::apply_credit_returns(const sc_time& now) {
  while (!returns_.empty() && returns_.front().at <= now) {
    const CreditReturn& r = returns_.front();
    credits_.restore(r.vc, r.cls, r.cost);
    trace_credits(r.vc);
    returns_.pop_front();
  }
}

// Ingress VCs of a slot are visited lowest first, so a later (higher) one that maps onto
// the same egress VC overwrites choice_: the highest ingress VC goes first (a fixed,
// documented tie-break, docs/architecture.md).
EgressPort::Candidates EgressPort::collect(const sc_time& now) {
  Candidates c;
  for (uint32_t slots = offered_slots_; slots; slots &= slots - 1) {
    const int slot = __builtin_ctz(slots);
    for (uint32_t subs = offered_subs_[slot]; subs; subs &= subs - 1) {
      TlpQueue* q = offered_[slot][__builtin_ctz(subs)];
      const TlpExtension& x = q->front()->x();
      if (x.ready_at > now) {
        if (!c.has_future || x.ready_at < c.next_ready) c.next_ready = x.ready_at;
        c.has_future = true;
        continue;
      }
      const int vc = vc_of(x.tc);
      if (!credits_.can_send(vc, credit_class(x.type),
                             credit_cost(x.type, carries_data(x.type) ? x.byte_count : 0))) {
        c.credit_blocked = true;
        continue;
      }
      c.vc_mask |= 1u << vc;
      c.slot_mask[vc] |= 1u << slot;
      choice_[vc][slot] = q;
    }
  }
  return c;
}

void EgressPort::transmit(TlpQueue& q, const sc_time& now) {
  offered_[q.slot()][q.sub()] = nullptr;
  offered_subs_[q.slot()] &= static_cast<uint8_t>(~(1u << q.sub()));
  if (!offered_subs_[q.slot()]) offered_slots_ &= ~(1u << q.slot());

  Tlp* t = q.pop();
  TlpExtension& x = t->x();
  const int vc = vc_of(x.tc);
  const uint32_t payload = t->payload_bytes();
  credits_.consume(vc, credit_class(x.type), credit_cost(x.type, payload));
  trace_credits(vc);

  const uint32_t wire = cfg_.link.wire_bytes(x.type, payload);
  // Cut-through: the tail cannot leave before it has arrived (docs/architecture.md).
  const sc_time end = std::max(now + serialization(wire), x.tail_at);
  busy_until_ = end;
  busy_trace_ = true;
  grant_vc_trace_ = vc;
  ++g_hops;
  ++stats_.tlps;
  stats_.payload_bytes += payload;
  stats_.wire_bytes += wire;
  stats_.busy_ps += ps(end - now);
  stats_.vc_bytes[vc] += payload;
  ++stats_.vc_grants[vc];
  stats_.vc_max_head_wait_ps[vc] = std::max(stats_.vc_max_head_wait_ps[vc], ps(now - x.head_since));

  q.owner()->on_pop(q, t);  // return credits upstream, refill, or present the next head

  x.in_vc = static_cast<uint8_t>(vc);
  x.head_at = now + propagation_;
  x.tail_at = end + propagation_;
  sc_time delay = x.tail_at - now;
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  out->nb_transport_fw(*t, phase, delay);
  wake_.notify(end - now);
}

sc_time EgressPort::serialization(uint32_t wire) {
  if (wire != last_wire_) {
    last_wire_ = wire;
    last_ser_ = from_ps(cfg_.link.serialize_ps(wire));
  }
  return last_ser_;
}

void EgressPort::trace_credits(int vc) {
  if (!tracing_) return;
  posted_data_credits_trace_[vc] = credits_.data_available(vc, CreditClass::Posted);
  cpl_data_credits_trace_[vc] = credits_.data_available(vc, CreditClass::Completion);
}

void EgressPort::account_stall(bool stalled, const sc_time& now) {
  if (stalled && !stalling_) {
    stalling_ = true;
    stall_since_ = now;
  } else if (!stalled && stalling_) {
    stalling_ = false;
    stats_.credit_stall_ps += ps(now - stall_since_);
  }
}

void EgressPort::finish() { account_stall(false, sc_core::sc_time_stamp()); }

// END_REQ from the receiver: it freed the buffer space of `gp`; the credits arrive here
// after `delay` (UpdateFC latency plus the DLLP's flight back: docs/architecture.md).
tlm::tlm_sync_enum EgressPort::nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                               sc_time& delay) {
  sc_assert(ph == tlm::END_REQ);
  (void)ph;
  const TlpExtension& x = as_tlp(gp)->x();
  // x.in_vc is the VC this port sent it on (the receiver returns credits before the TLP's
  // next hop rewrites it), which stays right when the TC/VC map changes meanwhile.
  CreditReturn r{sc_core::sc_time_stamp() + delay, x.in_vc,
                 credit_class(x.type), credit_cost(x.type, as_tlp(gp)->payload_bytes())};
  auto it = returns_.end();
  while (it != returns_.begin() && std::prev(it)->at > r.at) --it;
  returns_.insert(it, r);
  if (credit_blocked_) wake_.notify(delay);
  return tlm::TLM_ACCEPTED;
}

void EgressPort::trace(sc_core::sc_trace_file* tf, const std::string& p) {
  tracing_ = true;
  sc_core::sc_trace(tf, busy_trace_, p + ".busy");
  sc_core::sc_trace(tf, grant_vc_trace_, p + ".grant_vc");
  for (int v = 0; v < cfg_.vcs; ++v) {
    const std::string vc = ".vc" + std::to_string(v);
    sc_core::sc_trace(tf, posted_data_credits_trace_[v], p + vc + ".credits_posted_data");
    sc_core::sc_trace(tf, cpl_data_credits_trace_[v], p + vc + ".credits_cpl_data");
  }
}

}  // namespace arbsim
