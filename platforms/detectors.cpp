// The detectors (platforms/detectors.h). Each arbitration a port reports (its heads not
// granted) is checked against the three rules; an episode opens at the first arbitration
// that shows it and closes when its head is granted, or at the end of the run or window.
#include "platforms/detectors.h"
#include <algorithm>
#include <cstdio>
#include "models/pcie/arbiters/catalogue.h"
#include "models/pcie/switch.h"

namespace arbsim {

namespace {

int64_t ps(const sc_core::sc_time& t) { return static_cast<int64_t>(t.value()); }

enum Kind { kHol = 0, kInversion = 1 };
const char* kKindName[] = {"head_of_line_blocking", "priority_inversion"};

std::string us_text(int64_t ps) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f us", static_cast<double>(ps) / 1e6);
  return b;
}

}  // namespace

Detectors::Detectors(double starvation_bound_ns) : bound_ps_(std::llround(starvation_bound_ns * 1000.0)) {}

void Detectors::attach(const EgressPort& port, const std::string& name) {
  names_[&port] = name;
  last_[&port] = {};
}

DetectedTlp Detectors::tlp(const EgressPort& port, int slot, const TlpExtension& x) const {
  return {x.transfer_id, x.flow_id, x.tc, port.slot_name(slot)};
}

// An episode of `head` under way goes on while its cause (the text up to the first ':') stays;
// a new cause ends it and starts another.
void Detectors::open(const Key& k, const TlpExtension* head, Detection d) {
  const auto it = open_.find(k);
  if (it != open_.end() && it->second.head == head) {
    const auto cause = [](const std::string& s) { return s.substr(0, s.find(':')); };
    if (cause(it->second.d.detail) == cause(d.detail) && it->second.d.cause.tc == d.cause.tc) return;
    Detection done = std::move(it->second.d);
    done.to_ps = d.from_ps;
    found_.push_back(std::move(done));
    sorted_ = false;
  }
  open_[k] = Open{head, std::move(d)};
}

// Closes the episodes of `q`'s head `head` at `port` (all of the port's when q is nullptr).
void Detectors::close_all(const EgressPort& port, const TlpQueue* q, const TlpExtension* head, int64_t at,
                          bool to_end) {
  for (auto it = open_.begin(); it != open_.end();) {
    const auto& [p, queue, kind] = it->first;
    if (p != &port || (q && (queue != q || it->second.head != head))) {
      ++it;
      continue;
    }
    Detection d = std::move(it->second.d);
    d.to_ps = std::max(at, d.from_ps);
    d.to_end = to_end;
    found_.push_back(std::move(d));
    sorted_ = false;
    it = open_.erase(it);
  }
}

// While `head` (of `port`, ready since `head_ready`) waits until `until`, the first TLP behind
// it in a switch's FIFO ingress queue `q` (from index `first`) that is ready and routed to
// another egress is held by it: with VOQs every TLP of a queue has the head's egress. An
// episode goes on while the same transfer is held (heads for `port` follow one another).
void Detectors::look_for_hol(const EgressPort& port, const TlpQueue& q, std::size_t first, const TlpExtension& head,
                             int64_t head_ready, int64_t until, bool to_end) {
  auto* sw = dynamic_cast<Switch*>(q.owner());
  if (!sw) return;
  for (std::size_t i = first; i < q.size(); ++i) {
    const TlpExtension& b = q.at(i)->x();
    const int64_t from = std::max(ps(b.ready_at), head_ready);
    if (from >= until) return;  // it was not ready while the head waited (nor is any behind it)
    const EgressPort& other = sw->egress(sw->route(b));
    if (&other == &port) continue;
    auto last = hol_last_.find({&port, &q});
    if (last != hol_last_.end() && hol_[last->second].waiting.transfer == b.transfer_id &&
        hol_[last->second].to_ps >= from) {
      hol_[last->second].to_ps = until;
      hol_[last->second].to_end = to_end;
      return;
    }
    const auto named = names_.find(&other);  // a port the filter leaves out: its module name
    const std::string other_name = named != names_.end() ? named->second : std::string(other.name());
    Detection d;
    d.kind = kKindName[kHol];
    d.where = names_.at(&port);
    d.from_ps = from;
    d.to_ps = until;
    d.to_end = to_end;
    d.waiting = {b.transfer_id, b.flow_id, b.tc, port.slot_name(q.slot())};
    d.cause = tlp(port, q.slot(), head);
    d.detail = "TLPs for " + other_name + " (TC" + std::to_string(b.tc) + ") wait in " + std::string(sw->name()) +
               "'s FIFO ingress queue from " + port.slot_name(q.slot()) + " (VC" + std::to_string(q.sub()) +
               ") behind heads waiting at " + d.where;
    hol_last_[{&port, &q}] = hol_.size();
    hol_.push_back(std::move(d));
    return;
  }
}

// No credits on its VC while TLPs of a lower TC sent on that VC still hold credits of the
// class it needs.
void Detectors::look_for_credit_inversion(const EgressPort& port, const HeadWait& w, int64_t now) {
  const CreditClass cls = credit_class(w.head->type);
  for (int tc = 0; tc < w.head->tc; ++tc) {
    const uint32_t holding = port.in_flight(tc, cls);
    if (holding == 0 || port.vc_of(static_cast<uint8_t>(tc)) != w.vc) continue;
    const LastGrant& g = last_.at(&port)[w.vc][tc];
    Detection d;
    d.kind = kKindName[kInversion];
    d.where = names_.at(&port);
    d.from_ps = now;
    d.waiting = tlp(port, w.slot, *w.head);
    d.cause = {g.transfer, g.flow, tc, g.requester};
    d.detail = "TC" + std::to_string(w.head->tc) + " has no credits on VC" + std::to_string(w.vc) + ": " +
               std::to_string(holding) + " TLP(s) of TC" + std::to_string(tc) +
               " sent on that VC hold the receiver's buffers";
    open({&port, w.queue, kInversion}, w.head, std::move(d));
    return;
  }
}

// A loss to a lower TC that no policy intends: port arbitration inside a shared VC, or VC
// arbitration under plain strict priority.
void Detectors::inversion_by_loss(const EgressPort& port, const HeadWait& w, const TlpQueue& q, const TlpExtension& x,
                                  int64_t now) {
  if (x.tc >= w.head->tc) return;
  const bool shared_vc = w.reason == WaitReason::LostPort;
  const bool strict = w.reason == WaitReason::LostVc && !w.guard &&
                      port.config().vc_arbiter.type == &kStrictPriorityType;
  if (!shared_vc && !strict) return;
  Detection d;
  d.kind = kKindName[kInversion];
  d.where = names_.at(&port);
  d.from_ps = now;
  d.waiting = tlp(port, w.slot, *w.head);
  d.cause = tlp(port, q.slot(), x);
  d.detail = shared_vc ? "TC" + std::to_string(w.head->tc) + " lost port arbitration to TC" + std::to_string(x.tc) +
                             " on the VC they share (VC" + std::to_string(w.vc) + ")"
                       : "TC" + std::to_string(w.head->tc) + " on VC" + std::to_string(w.vc) +
                             " lost strict VC arbitration to TC" + std::to_string(x.tc) + " on VC" +
                             std::to_string(w.winner_vc) + ": the TC/VC map ranks the lower TC higher";
  open({&port, w.queue, kInversion}, w.head, std::move(d));
}

void Detectors::starvation(const EgressPort& port, int slot, const TlpExtension& x, int64_t ready, int64_t until,
                           bool to_end) {
  if (until - ready <= bound_ps_) return;
  Detection d;
  d.kind = "starvation";
  d.where = names_.at(&port);
  d.from_ps = ready;
  d.to_ps = until;
  d.to_end = to_end;
  d.waiting = tlp(port, slot, x);
  d.detail = "a head of TC" + std::to_string(x.tc) + " on VC" + std::to_string(port.vc_of(x.tc)) + " waited " +
             us_text(until - ready) + (to_end ? " and still waits" : " for its grant") + ", beyond the bound of " +
             us_text(bound_ps_);
  found_.push_back(std::move(d));
  sorted_ = false;
}

void Detectors::on_waits(const EgressPort& port, const sc_core::sc_time& now, const HeadWait* waits, std::size_t n) {
  const int64_t t = ps(now);
  lost_.clear();
  for (std::size_t i = 0; i < n; ++i) {
    const HeadWait& w = waits[i];
    if (w.reason == WaitReason::NoCredits) look_for_credit_inversion(port, w, t);
    if (w.reason == WaitReason::LostPort || w.reason == WaitReason::LostVc) lost_.push_back(w);
  }
}

void Detectors::on_grant(const EgressPort& port, const TlpQueue& q, const TlpExtension& x, uint32_t, int vc,
                         const sc_core::sc_time& ready, const sc_core::sc_time& start, const sc_core::sc_time&) {
  const int64_t t = ps(start);
  for (const HeadWait& w : lost_) inversion_by_loss(port, w, q, x, t);  // the winner is known now
  lost_.clear();
  close_all(port, &q, &x, t, false);
  starvation(port, q.slot(), x, ps(ready), t, false);
  // What queues behind a head is held from when it became head, its wait or not (behind its
  // own predecessor on a slow link too: EgressPort::wait_start()); x has left q: at 0.
  look_for_hol(port, q, 0, x, ps(std::min(ready, x.head_since)), t, false);
  last_.at(&port)[vc][x.tc] = {x.transfer_id, x.flow_id, port.slot_name(q.slot())};
}

void Detectors::on_window_end(const EgressPort& port, const sc_core::sc_time& end, const HeadWait* waits,
                              std::size_t n) {
  const int64_t t = ps(end);
  for (std::size_t i = 0; i < n; ++i) {
    const HeadWait& w = waits[i];
    starvation(port, w.slot, *w.head, ps(w.ready), t, true);
    look_for_hol(port, *w.queue, 1, *w.head, ps(std::min(w.ready, w.head->head_since)), t, true);
  }
  close_all(port, nullptr, nullptr, t, true);
}

const std::vector<Detection>& Detectors::found() const {
  if (!hol_.empty()) {
    found_.insert(found_.end(), hol_.begin(), hol_.end());
    hol_.clear();
    hol_last_.clear();
    sorted_ = false;
  }
  if (!sorted_) {
    const auto key = [](const Detection& d) {
      return std::tie(d.from_ps, d.where, d.kind, d.waiting.transfer, d.cause.transfer, d.to_ps, d.detail);
    };
    std::sort(found_.begin(), found_.end(), [&](const Detection& a, const Detection& b) { return key(a) < key(b); });
    sorted_ = true;
  }
  return found_;
}

}  // namespace arbsim
