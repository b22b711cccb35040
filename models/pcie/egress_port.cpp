#include "models/pcie/egress_port.h"
#include "models/common/model_log.h"
#include <algorithm>
#include "models/common/sc_progress.h"
#include "models/pcie/arbiters/catalogue.h"

namespace arbsim {

using sc_core::sc_time;
using sc_core::SC_PS;

namespace {
uint64_t g_hops = 0;
// The kernel runs at its default 1 ps resolution (checked in the constructor), so a time's
// value is picoseconds: cheaper than sc_time's double/unit constructor on the hot path.
inline double ps(const sc_time& t) { return static_cast<double>(t.value()); }
inline sc_time from_ps(double v) { return sc_time::from_value(static_cast<sc_time::value_type>(v)); }
inline void set_bit(uint64_t* words, int i) { words[i >> 6] |= 1ull << (i & 63); }
inline void clear_bit(uint64_t* words, int i) { words[i >> 6] &= ~(1ull << (i & 63)); }
}  // namespace

uint64_t EgressPort::total_hops() { return g_hops; }

EgressPort::EgressPort(sc_core::sc_module_name name, const EgressConfig& cfg)
    : sc_core::sc_module(name), out("out"), cfg_(cfg), words_((cfg.slots + 63) / 64) {
  vc_arb_ = make_arbiter(cfg_.vc_arbiter, cfg_.vcs);
  for (int v = 0; v < cfg_.vcs; ++v) port_arb_.push_back(make_arbiter(cfg_.port_arbiter, cfg_.slots));
  credits_.configure(cfg_.vcs, cfg_.credits);
  if (sc_core::sc_get_time_resolution() != sc_time(1, SC_PS))
    SC_REPORT_FATAL("arbsim/egress", "the model needs the default 1 ps time resolution");
  propagation_ = from_ps(std::round(cfg_.link.propagation_ns * 1000.0));
  offered_.assign(cfg_.slots, {});
  sent_end_.assign(cfg_.slots, {});
  offered_slots_.assign(words_, 0);
  offered_subs_.assign(cfg_.slots, 0);
  slot_mask_.assign(static_cast<std::size_t>(kMaxVcs) * words_, 0);
  choice_.assign(static_cast<std::size_t>(cfg_.vcs) * cfg_.slots, nullptr);
  slot_grants_.assign(static_cast<std::size_t>(cfg_.vcs) * cfg_.slots, 0);
  pending_vc_.fill(-1);
  out.register_nb_transport_bw(this, &EgressPort::nb_transport_bw);
  SC_METHOD(run);
  sensitive << wake_;
  dont_initialize();
  for (int v = 0; v < cfg_.vcs; ++v) {
    posted_data_credits_trace_[v] = credits_.data_available(v, CreditClass::Posted);
    cpl_data_credits_trace_[v] = credits_.data_available(v, CreditClass::Completion);
  }
}

// A cut-through node forwards a TLP from its head, but a transmitter cannot pause inside a
// TLP (PCIe Base Spec §4.2: a TLP is sent as one contiguous framed unit; docs/pcie-reference.md
// §5). Onto a link faster than the one it arrives on, the TLP therefore starts only when its
// tail can no longer underrun: at tail_ready - serialisation, where tail_ready is when the
// tail is through the node (its arrival plus the forwarding latency). Onto a link as fast or
// slower, that moment is never later than the head's, so cut-through is unchanged.
sc_time EgressPort::eligible_at(const TlpExtension& x) {
  if (x.tail_ready_at <= x.ready_at) return x.ready_at;
  const uint32_t wire = cfg_.link.wire_bytes(x.type, carries_data(x.type) ? x.byte_count : 0);
  const sc_time ser = serialization(wire);
  if (x.tail_ready_at <= ser) return x.ready_at;
  return std::max(x.ready_at, x.tail_ready_at - ser);
}

void EgressPort::offer(TlpQueue& q) {
  offered_[q.slot()][q.sub()] = &q;
  set_bit(offered_slots_.data(), q.slot());
  offered_subs_[q.slot()] |= static_cast<uint8_t>(1u << q.sub());
  const sc_time now = sc_core::sc_time_stamp();
  const sc_time at = std::max(now, eligible_at(q.front()->x()));
  // A busy link wakes the port when it frees; no earlier wake is useful then.
  if (at >= busy_until_) wake_.notify(at - now);
}

void EgressPort::run() {
  guard_progress(guard_, *this);
  const sc_time now = sc_core::sc_time_stamp();
  apply_credit_returns(now);
  if (now < busy_until_) {
    wake_.notify(busy_until_ - now);
    return;
  }
  busy_trace_ = false;
  if (observer_ && !window_closed_ && now >= observe_to_) close_window(observe_to_);
  const Candidates c = collect(now);
  credit_blocked_ = c.credit_blocked && c.vc_mask == 0;
  held_ = c.held && c.vc_mask == 0;
  account_stall(credit_blocked_, now);
  if (c.vc_mask) {
    const int vc = vc_arb_->grant(static_cast<uint64_t>(c.vc_mask));
    const int slot = port_arb_[vc]->grant(Requests(&slot_mask_[static_cast<std::size_t>(vc) * words_], words_));
    TlpQueue& q = *choice_[static_cast<std::size_t>(vc) * cfg_.slots + slot];
    if (observer_) watch_arbitration(now, &q, vc);
    transmit(q, now);
  } else if (observer_) {
    watch_arbitration(now, nullptr, -1);
  }
  if (!c.vc_mask && (credit_blocked_ || held_) && !returns_.empty()) wake_.notify(returns_.front().at - now);
  // After a grant the port wakes when the link frees; a head ready before then waits anyway.
  if (c.has_future && c.next_ready >= busy_until_) wake_.notify(c.next_ready - now);
}

void EgressPort::apply_credit_returns(const sc_time& now) {
  while (!returns_.empty() && returns_.front().at <= now) {
    const CreditReturn& r = returns_.front();
    credits_.restore(r.vc, r.cls, r.cost);
    trace_credits(r.vc);
    --in_flight_class_[r.tc][static_cast<int>(r.cls)];
    if (--in_flight_[r.tc] == 0 && pending_vc_[r.tc] >= 0) apply_remap(r.tc);
    returns_.pop_front();
  }
}

void EgressPort::apply_remap(int tc) {
  cfg_.tc_to_vc[tc] = static_cast<uint8_t>(pending_vc_[tc]);
  pending_vc_[tc] = -1;
}

void EgressPort::set_tc_map(const std::array<uint8_t, kNumTcs>& tc_to_vc) {
  ARBSIM_LOG_DEBUG(*this, [&] {
    std::string m = "TC/VC map";
    for (int tc = 0; tc < kNumTcs; ++tc) m += " " + std::to_string(tc_to_vc[tc]);
    return m;
  }());
  bool released = false;
  for (int tc = 0; tc < kNumTcs; ++tc) {
    const bool was_held = pending_vc_[tc] >= 0;
    pending_vc_[tc] = tc_to_vc[tc] == cfg_.tc_to_vc[tc] ? -1 : tc_to_vc[tc];
    if (pending_vc_[tc] >= 0 && in_flight_[tc] == 0) apply_remap(tc);
    released = released || (was_held && pending_vc_[tc] < 0);
  }
  if (released) wake_.notify(sc_core::SC_ZERO_TIME);  // a held head may go now
}

// Every VC's port arbiter gets the same table, as the config gives every VC the same spec.
void EgressPort::set_port_weights(const std::vector<int>& weights) {
  for (auto& a : port_arb_)
    if (!a->set_weights(weights))
      SC_REPORT_ERROR("arbsim/egress", (std::string(name()) + ": port arbiter " + a->describe() +
                                        " has no weights to set at run time").c_str());
}

// Ingress VCs of a slot are visited lowest first, so a later (higher) one that maps onto
// the same egress VC overwrites choice_: the highest ingress VC goes first (a fixed,
// documented tie-break, docs/architecture.md).
EgressPort::Candidates EgressPort::collect(const sc_time& now) {
  Candidates c;
  std::fill(slot_mask_.begin(), slot_mask_.begin() + static_cast<std::ptrdiff_t>(cfg_.vcs) * words_, 0);
  for (int w = 0; w < words_; ++w)
    for (uint64_t slots = offered_slots_[w]; slots; slots &= slots - 1) {
      const int slot = (w << 6) + __builtin_ctzll(slots);
      for (uint32_t subs = offered_subs_[slot]; subs; subs &= subs - 1) {
        TlpQueue* q = offered_[slot][__builtin_ctz(subs)];
        const TlpExtension& x = q->front()->x();
        const sc_time at = eligible_at(x);
        if (at > now) {
          if (!c.has_future || at < c.next_ready) c.next_ready = at;
          c.has_future = true;
          continue;
        }
        if (pending_vc_[x.tc] >= 0) {  // its TC moves to another VC once its TLPs drain
          c.held = true;
          continue;
        }
        const int vc = vc_of(x.tc);
        if (!credits_.can_send(vc, credit_class(x.type),
                               credit_cost(x.type, carries_data(x.type) ? x.byte_count : 0))) {
          c.credit_blocked = true;
          continue;
        }
        c.vc_mask |= 1u << vc;
        set_bit(&slot_mask_[static_cast<std::size_t>(vc) * words_], slot);
        choice_[static_cast<std::size_t>(vc) * cfg_.slots + slot] = q;
      }
    }
  return c;
}

void EgressPort::transmit(TlpQueue& q, const sc_time& now) {
  offered_[q.slot()][q.sub()] = nullptr;
  offered_subs_[q.slot()] &= static_cast<uint8_t>(~(1u << q.sub()));
  if (!offered_subs_[q.slot()]) clear_bit(offered_slots_.data(), q.slot());

  Tlp* t = q.pop();
  TlpExtension& x = t->x();
  const int vc = vc_of(x.tc);
  const uint32_t payload = t->payload_bytes();
  credits_.consume(vc, credit_class(x.type), credit_cost(x.type, payload));
  ++in_flight_[x.tc];
  ++in_flight_class_[x.tc][static_cast<int>(credit_class(x.type))];
  trace_credits(vc);

  const uint32_t wire = cfg_.link.wire_bytes(x.type, payload);
  // The tail leaves no earlier than it is through this node (eligible_at() made sure).
  const sc_time end = std::max(now + serialization(wire), x.tail_ready_at);
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
  ++slot_grants_[static_cast<std::size_t>(vc) * cfg_.slots + q.slot()];
  const sc_time waited_from = wait_start(q, x);
  stats_.vc_max_head_wait_ps[vc] = std::max(stats_.vc_max_head_wait_ps[vc], ps(now - waited_from));
  last_ = {now, end, payload, wire, vc};
  ARBSIM_LOG_TRACE(*this, std::string("grant ") + to_string(x.type) + " " + std::to_string(payload) + " B TC" +
                              std::to_string(x.tc) + " VC" + std::to_string(vc) + " from " + slot_name(q.slot()) +
                              " (transfer " + std::to_string(x.transfer_id) + "), on the wire for " +
                              std::to_string(ps(end - now) / 1000.0) + " ns");
  if (observing(now)) {
    open_window();
    observer_->on_grant(*this, q, x, payload, vc, waited_from, now, end);
  }

  sent_end_[q.slot()][q.sub()] = end;
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

void EgressPort::report_credits(int vc) {
  if (observer_) {
    const sc_time now = sc_core::sc_time_stamp();
    if (observing(now))
      observer_->on_credits(*this, now, vc, credits_.data_available(vc, CreditClass::Posted),
                            credits_.data_available(vc, CreditClass::Completion));
  }
  if (!tracing_) return;
  posted_data_credits_trace_[vc] = credits_.data_available(vc, CreditClass::Posted);
  cpl_data_credits_trace_[vc] = credits_.data_available(vc, CreditClass::Completion);
}

void EgressPort::account_stall(bool stalled, const sc_time& now) {
  if (stalled && !stalling_) {
    stalling_ = true;
    stall_since_ = now;
    ARBSIM_LOG_DEBUG(*this, "credit stall: ready heads, no credits for any");
  } else if (!stalled && stalling_) {
    stalling_ = false;
    stats_.credit_stall_ps += ps(now - stall_since_);
  }
}

void EgressPort::observe(EgressObserver* o, const sc_time& from, const sc_time& to) {
  observer_ = o;
  observe_from_ = from;
  observe_to_ = to;
}

// An arbitration while an observer watches: inside the window its heads not granted are
// reported; before it they are kept (the last such arbitration's are why the heads waiting at
// the window's start wait: docs/observability.md).
void EgressPort::watch_arbitration(const sc_time& now, const TlpQueue* granted, int granted_vc) {
  if (now >= observe_to_) return;
  find_waits(now, granted, granted_vc);
  if (now < observe_from_) {
    std::swap(before_, waits_);
    return;
  }
  open_window();
  observer_->on_waits(*this, now, waits_.data(), waits_.size());
}

void EgressPort::open_window() {
  if (window_opened_) return;
  window_opened_ = true;
  observer_->on_window_start(*this, observe_from_, before_.data(), before_.size());
  before_.clear();
}

// Every ready head not granted at this arbitration, and why (docs/observability.md), into
// waits_. Heads not yet eligible are not waiting here yet; `granted` is nullptr when nothing
// could go.
void EgressPort::find_waits(const sc_time& now, const TlpQueue* granted, int granted_vc) {
  waits_.clear();
  const bool guarded = cfg_.vc_arbiter.type == &kStrictPriorityType && cfg_.vc_arbiter.starvation_threshold > 0;
  for (int slot = 0; slot < cfg_.slots; ++slot)
    for (uint32_t subs = offered_subs_[slot]; subs; subs &= subs - 1) {
      const TlpQueue* q = offered_[slot][__builtin_ctz(subs)];
      if (q == granted) continue;
      const TlpExtension& x = q->front()->x();
      const sc_time eligible = eligible_at(x);
      if (eligible > now) continue;
      // Waiting here since it was both at the head of its queue and eligible.
      HeadWait w{q, &x, slot, vc_of(x.tc), wait_start(*q, x)};
      if (pending_vc_[x.tc] >= 0) {
        w.reason = WaitReason::RemapHeld;
      } else if (!credits_.can_send(w.vc, credit_class(x.type),
                                    credit_cost(x.type, carries_data(x.type) ? x.byte_count : 0))) {
        w.reason = WaitReason::NoCredits;
      } else {
        w.reason = w.vc != granted_vc ? WaitReason::LostVc : WaitReason::LostPort;
        w.winner_vc = granted_vc;
        w.winner_slot = granted->slot();
        w.guard = guarded && granted_vc < w.vc;
      }
      waits_.push_back(w);
    }
}

// The window's end: the heads ready and waiting at `at` (its end, or the run's), so that
// their waits are charged up to it.
void EgressPort::close_window(const sc_time& at) {
  open_window();
  window_closed_ = true;
  waits_.clear();
  for (int slot = 0; slot < cfg_.slots; ++slot)
    for (uint32_t subs = offered_subs_[slot]; subs; subs &= subs - 1) {
      const TlpQueue* q = offered_[slot][__builtin_ctz(subs)];
      const TlpExtension& x = q->front()->x();
      const sc_time ready = wait_start(*q, x);
      if (ready < at) waits_.push_back(HeadWait{q, &x, slot, vc_of(x.tc), ready});
    }
  observer_->on_window_end(*this, at, waits_.data(), waits_.size());
}

// Only what happened inside the run counts: a TLP still on the wire at the end is not
// counted as sent, and the link is busy only up to the end.
void EgressPort::finish() {
  const sc_time end = sc_core::sc_time_stamp();
  account_stall(false, end);
  if (busy_until_ > end) {
    stats_.busy_ps -= ps(busy_until_ - end);
    --stats_.tlps;
    stats_.payload_bytes -= last_.payload;
    stats_.wire_bytes -= last_.wire;
    stats_.vc_bytes[last_.vc] -= last_.payload;
    busy_until_ = end;
  }
  record_waiting_heads(end);
  if (observer_ && !window_closed_ && end >= observe_from_) close_window(std::min(end, observe_to_));
}

double EgressPort::busy_ps_now() const {
  const sc_time now = sc_core::sc_time_stamp();
  return stats_.busy_ps - (busy_until_ > now ? ps(busy_until_ - now) : 0.0);
}

std::size_t EgressPort::queued_tlps() const {
  std::size_t n = 0;
  for (int slot = 0; slot < cfg_.slots; ++slot)
    for (uint32_t subs = offered_subs_[slot]; subs; subs &= subs - 1) n += offered_[slot][__builtin_ctz(subs)]->size();
  return n;
}

// A TLP on the wire at the end of the warm-up ends inside the window: it counts, and the
// link is busy for what is left of it (finish() treats the run's end the same way round).
// A credit stall under way counts from now.
void EgressPort::restart_stats() {
  const sc_time now = sc_core::sc_time_stamp();
  stats_ = EgressStats{};
  std::fill(slot_grants_.begin(), slot_grants_.end(), 0);
  if (stalling_) stall_since_ = now;
  if (busy_until_ > now) {
    stats_.tlps = 1;
    stats_.payload_bytes = last_.payload;
    stats_.wire_bytes = last_.wire;
    stats_.vc_bytes[last_.vc] = last_.payload;
    stats_.busy_ps = ps(busy_until_ - now);
  }
}

// A head still waiting at the end has waited end - wait_start() so far; one whose requester
// has never been granted on its VC is starved to the cut-off, and listed.
void EgressPort::record_waiting_heads(const sc_time& end) {
  for (int slot = 0; slot < cfg_.slots; ++slot)
    for (uint32_t subs = offered_subs_[slot]; subs; subs &= subs - 1) {
      const TlpQueue& q = *offered_[slot][__builtin_ctz(subs)];
      const TlpExtension& x = q.front()->x();
      const sc_time from = wait_start(q, x);
      if (from > end) continue;
      const int vc = vc_of(x.tc);
      const double wait = ps(end - from);
      stats_.vc_max_head_wait_ps[vc] = std::max(stats_.vc_max_head_wait_ps[vc], wait);
      if (slot_grants_[static_cast<std::size_t>(vc) * cfg_.slots + slot] > 0) continue;
      const bool listed = std::any_of(stats_.never_granted.begin(), stats_.never_granted.end(),
                                      [&](const NeverGranted& n) { return n.requester == slot_name(slot) && n.vc == vc; });
      if (!listed) stats_.never_granted.push_back({slot_name(slot), vc, wait});
    }
}

std::string EgressPort::slot_name(int slot) const {
  return slot < static_cast<int>(cfg_.slot_names.size()) ? cfg_.slot_names[slot] : "requester" + std::to_string(slot);
}

std::string EgressPort::waiting() const {
  std::string s;
  int heads = 0;
  for (int slot = 0; slot < cfg_.slots; ++slot)
    for (uint32_t subs = offered_subs_[slot]; subs; subs &= subs - 1) {
      const TlpExtension& x = offered_[slot][__builtin_ctz(subs)]->front()->x();
      const int vc = vc_of(x.tc);
      const CreditClass cls = credit_class(x.type);
      const CreditCost need = credit_cost(x.type, carries_data(x.type) ? x.byte_count : 0);
      ++heads;
      if (s.size() > 400) continue;  // enough to see the pattern
      s += std::string(s.empty() ? "" : "; ") + slot_name(slot) + " " + to_string(x.type) + " TC" +
           std::to_string(x.tc) + " on VC" + std::to_string(vc);
      if (pending_vc_[x.tc] >= 0) s += " (held: TC remap draining)";
      else if (!credits_.can_send(vc, cls, need))
        s += " (needs " + std::to_string(need.header) + " header + " + std::to_string(need.data) +
             " data credits, has " + std::to_string(credits_.header_available(vc, cls)) + " + " +
             std::to_string(credits_.data_available(vc, cls)) + ")";
    }
  return heads == 0 ? "" : std::string(name()) + ": " + std::to_string(heads) + " head(s) waiting: " + s;
}

// END_REQ from the receiver: it freed the buffer space of `gp`; the credits arrive here
// after `delay` (UpdateFC latency plus the DLLP's flight back: docs/architecture.md).
tlm::tlm_sync_enum EgressPort::nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                               sc_time& delay) {
  sc_assert(ph == tlm::END_REQ);
  (void)ph;
  const TlpExtension& x = as_tlp(gp)->x();
  // x.in_vc is the VC this port sent it on (the receiver returns credits before the TLP's
  // next hop rewrites it), which stays right when the TC/VC map changes meanwhile.
  CreditReturn r{sc_core::sc_time_stamp() + delay, x.in_vc, x.tc,
                 credit_class(x.type), credit_cost(x.type, as_tlp(gp)->payload_bytes())};
  auto it = returns_.end();
  while (it != returns_.begin() && std::prev(it)->at > r.at) --it;
  returns_.insert(it, r);
  if (credit_blocked_ || held_) wake_.notify(delay);
  return tlm::TLM_ACCEPTED;
}

void EgressPort::trace(sc_core::sc_trace_file* tf, const std::string& p) {
  tracing_ = true;
  // Tracing may start mid-run (--vcd-window): the credit mirrors, kept only while tracing,
  // are brought up to date first.
  for (int v = 0; v < cfg_.vcs; ++v) {
    posted_data_credits_trace_[v] = credits_.data_available(v, CreditClass::Posted);
    cpl_data_credits_trace_[v] = credits_.data_available(v, CreditClass::Completion);
  }
  sc_core::sc_trace(tf, busy_trace_, p + ".busy");
  sc_core::sc_trace(tf, grant_vc_trace_, p + ".grant_vc");
  for (int v = 0; v < cfg_.vcs; ++v) {
    const std::string vc = ".vc" + std::to_string(v);
    sc_core::sc_trace(tf, posted_data_credits_trace_[v], p + vc + ".credits_posted_data");
    sc_core::sc_trace(tf, cpl_data_credits_trace_[v], p + vc + ".credits_cpl_data");
  }
}

}  // namespace arbsim
