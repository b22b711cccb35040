// The transaction trace and the "why not granted" totals (platforms/transaction_trace.h).
//
// A head's wait is cut into intervals at each arbitration of its port: the interval from one
// arbitration to the next is charged to the reason the head lost the first one for (it then
// waited because that TLP went instead, or for credits, ...); a head that became ready while
// the link carried another TLP waits "link busy" until the next arbitration. Consecutive
// intervals with the same reason make one slice of the trace. Times are clipped to the window;
// a head already waiting when it opens waits from its start for the reason it lost the last
// arbitration before it for.
#include "platforms/transaction_trace.h"
#include <algorithm>
#include <cstdio>
#include "models/pcie/arbiters/catalogue.h"

namespace arbsim {

namespace {

int64_t ps(const sc_core::sc_time& t) { return static_cast<int64_t>(t.value()); }

// Trace-event timestamps are in us; ours are whole ps, written exactly ("1000.019701").
std::string us(int64_t ps) {
  char b[32];
  std::snprintf(b, sizeof b, "%lld.%06lld", static_cast<long long>(ps / 1000000), static_cast<long long>(ps % 1000000));
  return b;
}

// A JSON string literal (names come from configs: quotes and backslashes escaped).
std::string str(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) q += c;
  }
  return q + "\"";
}

constexpr int kWaitTid = 100;  // a requester's wait track: kWaitTid + slot (VC tracks: the VC)
constexpr int64_t kShownCredits = int64_t{1} << 40;  // above: infinite credits, not drawn

const char* class_name(CreditClass c) {
  switch (c) {
    case CreditClass::Posted: return "posted";
    case CreditClass::NonPosted: return "non-posted";
    case CreditClass::Completion: return "completion";
  }
  return "?";
}

std::string arbiter_kind(const ArbiterSpec& a) {
  if (a.type == &kStrictPriorityType) return "strict priority";
  if (a.type == &kWeightedRoundRobinType) return "WRR";
  return "round robin";
}

}  // namespace

TransactionTrace::TransactionTrace(const ObserveOptions& o) : opt_(o), from_ps_(std::llround(o.from_ns * 1000.0)) {}

void TransactionTrace::attach(const EgressPort& port, const std::string& name, int dir) {
  Port& p = ports_[&port];
  p.name = name;
  p.dir = dir;
  p.pid = static_cast<int>(ports_.size());
  const std::string pid = std::to_string(p.pid);
  event("{\"ph\":\"M\",\"pid\":" + pid + ",\"name\":\"process_name\",\"args\":{\"name\":" + str(name) + "}}");
  event("{\"ph\":\"M\",\"pid\":" + pid + ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":" + pid + "}}");
}

std::string TransactionTrace::reason_text(const EgressPort& p, const HeadWait& w) const {
  switch (w.reason) {
    case WaitReason::LinkBusy: return "link busy";
    case WaitReason::NoCredits:
      return std::string("no ") + class_name(credit_class(w.head->type)) + " credits on VC" + std::to_string(w.vc);
    case WaitReason::RemapHeld: return "held: TC" + std::to_string(w.head->tc) + " moving to another VC";
    case WaitReason::LostVc:
      if (w.guard) return "starvation guard gave the turn to VC" + std::to_string(w.winner_vc);
      return "lost to VC" + std::to_string(w.winner_vc) + " (VC " + arbiter_kind(p.config().vc_arbiter) + ")";
    case WaitReason::LostPort:
      if (w.winner_slot == w.slot) return "behind a higher ingress VC of its own port";
      if (p.config().port_arbiter.type == &kWeightedRoundRobinType) return "WRR phase owned by " + p.slot_name(w.winner_slot);
      return "lost to " + p.slot_name(w.winner_slot) + " (port " + arbiter_kind(p.config().port_arbiter) + ")";
  }
  return "?";
}

// Charges [w.since, until) to w's reason; when the reason changes to `next_reason`, the slice
// of the old one ends here and a new one starts.
void TransactionTrace::account(Port& pt, const EgressPort& p, Wait& w, int64_t until, const std::string& next_reason) {
  if (until > w.since && !w.reason.empty()) {
    WaitTotal& t = pt.totals[{w.slot, w.vc, w.reason}];
    t.waited_ps += static_cast<double>(until - w.since);
  }
  w.since = until;
  if (next_reason == w.reason) return;
  if (until > w.slice_since && !w.reason.empty()) {
    if (pt.wait_tracks.insert(w.slot).second) {
      thread_name(pt.pid, kWaitTid + w.slot, "waiting: " + p.slot_name(w.slot));
    }
    event("{\"ph\":\"X\",\"cat\":\"wait\",\"name\":" + str(w.reason) + ",\"pid\":" + std::to_string(pt.pid) +
          ",\"tid\":" + std::to_string(kWaitTid + w.slot) + ",\"ts\":" + us(w.slice_since) +
          ",\"dur\":" + us(until - w.slice_since) + ",\"args\":{\"vc\":" + std::to_string(w.vc) +
          ",\"arbitrations_lost\":" + std::to_string(w.lost) + ",\"transfer\":" + std::to_string(w.head->transfer_id) + "}}");
  }
  w.reason = next_reason;
  w.slice_since = until;
  w.lost = 0;
}

void TransactionTrace::close(Port& pt, const EgressPort& p, Wait& w, int64_t until) { account(pt, p, w, until, ""); }

// The current wait of `hw`'s head; a head not seen before starts one, "link busy" from when it
// became ready (clipped to the window) until an arbitration says otherwise.
TransactionTrace::Wait& TransactionTrace::wait_of(Port& pt, const HeadWait& hw) {
  const int key = hw.queue->slot() * 8 + hw.queue->sub();
  auto it = pt.waits.find(key);
  if (it == pt.waits.end() || it->second.head != hw.head) {
    const int64_t ready = std::max(ps(hw.ready), from_ps_);
    it = pt.waits.insert_or_assign(key, Wait{hw.head, hw.slot, hw.vc, "link busy", ready, ready, 0}).first;
  }
  return it->second;
}

void TransactionTrace::on_waits(const EgressPort& port, const sc_core::sc_time& now, const HeadWait* waits,
                                std::size_t n) {
  Port& pt = port_of(port);
  const int64_t t = ps(now);
  std::map<int, int> per_vc;
  for (std::size_t i = 0; i < n; ++i) {
    const HeadWait& hw = waits[i];
    Wait& w = wait_of(pt, hw);
    const std::string reason = reason_text(port, hw);
    account(pt, port, w, t, reason);
    ++w.lost;
    WaitTotal& total = pt.totals[{hw.slot, hw.vc, reason}];
    ++total.arbitrations;
    ++per_vc[hw.vc];
  }
  std::string counts = "\"total\":" + std::to_string(n);
  for (const auto& [vc, k] : per_vc) counts += ",\"VC" + std::to_string(vc) + "\":" + std::to_string(k);
  event("{\"ph\":\"C\",\"name\":\"heads not granted\",\"pid\":" + std::to_string(pt.pid) + ",\"ts\":" + us(t) +
        ",\"args\":{" + counts + "}}");
  // The queue depth behind this egress: TLPs queued at the requesters whose head is routed here.
  event("{\"ph\":\"C\",\"name\":\"queued TLPs\",\"pid\":" + std::to_string(pt.pid) + ",\"ts\":" + us(t) +
        ",\"args\":{\"queued\":" + std::to_string(port.queued_tlps()) + "}}");
}

void TransactionTrace::on_grant(const EgressPort& port, const TlpQueue& q, const TlpExtension& x, uint32_t payload,
                                int vc, const sc_core::sc_time& ready, const sc_core::sc_time& start,
                                const sc_core::sc_time& end) {
  Port& pt = port_of(port);
  const int64_t t = ps(start);
  auto it = pt.waits.find(q.slot() * 8 + q.sub());
  if (it != pt.waits.end() && it->second.head == &x) {
    close(pt, port, it->second, t);
    pt.waits.erase(it);
  } else if (const int64_t r = std::max(ps(ready), from_ps_); r < t) {  // never reported: the link was busy
    Wait w{&x, q.slot(), vc, "link busy", r, r, 0};
    close(pt, port, w, t);
  }
  if (pt.vc_tracks.insert(vc).second) {
    thread_name(pt.pid, vc, "VC" + std::to_string(vc) + " on the wire");
  }
  const std::string pid = std::to_string(pt.pid), tid = std::to_string(vc);
  event("{\"ph\":\"X\",\"cat\":\"tlp\",\"name\":\"" + std::string(to_string(x.type)) +
        (payload ? " " + std::to_string(payload) + " B" : "") + "\",\"pid\":" + pid + ",\"tid\":" + tid +
        ",\"ts\":" + us(t) + ",\"dur\":" + us(ps(end) - t) + ",\"args\":{\"requester\":" + str(port.slot_name(q.slot())) +
        ",\"tc\":" + std::to_string(x.tc) + ",\"transfer\":" + std::to_string(x.transfer_id) +
        ",\"offset\":" + std::to_string(x.offset) + ",\"tag\":" + std::to_string(x.tag) + "}}");
  // One arrow per transfer and hop: at the transfer's first TLP on this link direction.
  if (x.transfer_id != 0 && pt.flows.insert(x.transfer_id).second) {
    const bool first = transfers_seen_.insert(x.transfer_id).second;
    const std::string id = std::to_string(x.transfer_id);
    event(std::string("{\"ph\":\"") + (first ? "s" : "t") + "\",\"cat\":\"transfer\",\"name\":\"transfer " + id +
          "\",\"id\":" + id + ",\"pid\":" + pid + ",\"tid\":" + tid + ",\"ts\":" + us(t) + ",\"bp\":\"e\"}");
  }
}

void TransactionTrace::on_credits(const EgressPort& port, const sc_core::sc_time& now, int vc, int64_t posted_data,
                                  int64_t cpl_data) {
  const auto shown = [](int64_t c) { return c >= 0 && c <= kShownCredits; };  // infinite: not drawn
  if (!shown(posted_data) && !shown(cpl_data)) return;
  Port& pt = port_of(port);
  std::string args;
  if (shown(posted_data)) args = "\"posted data\":" + std::to_string(posted_data);
  if (shown(cpl_data)) args += std::string(args.empty() ? "" : ",") + "\"completion data\":" + std::to_string(cpl_data);
  event("{\"ph\":\"C\",\"name\":\"credits VC" + std::to_string(vc) + "\",\"pid\":" + std::to_string(pt.pid) +
        ",\"ts\":" + us(ps(now)) + ",\"args\":{" + args + "}}");
}

// A head waiting across the window's start waits from it for why it lost the last
// arbitration before (not "link busy": a trial's credit wait from 3 us to the next
// arbitration at 4.35 us read as the link busy).
void TransactionTrace::on_window_start(const EgressPort& port, const sc_core::sc_time&, const HeadWait* waits,
                                       std::size_t n) {
  Port& pt = port_of(port);
  for (std::size_t i = 0; i < n; ++i) {
    Wait& w = wait_of(pt, waits[i]);
    w.reason = reason_text(port, waits[i]);
  }
}

void TransactionTrace::on_window_end(const EgressPort& port, const sc_core::sc_time& end, const HeadWait* waits,
                                     std::size_t n) {
  Port& pt = port_of(port);
  for (std::size_t i = 0; i < n; ++i) wait_of(pt, waits[i]);  // heads no arbitration saw yet: link busy
  for (auto& [q, w] : pt.waits) close(pt, port, w, std::max(ps(end), w.since));
  pt.waits.clear();
}

std::optional<std::vector<WaitTotal>> TransactionTrace::totals(int dir) const {
  for (const auto& [port, pt] : ports_) {
    if (pt.dir != dir) continue;
    std::vector<WaitTotal> out;
    for (const auto& [key, t] : pt.totals) {
      WaitTotal w = t;
      w.requester = port->slot_name(std::get<0>(key));
      w.vc = std::get<1>(key);
      w.reason = std::get<2>(key);
      out.push_back(w);
    }
    return out;
  }
  return std::nullopt;
}

void TransactionTrace::thread_name(int pid, int tid, const std::string& name) {
  event("{\"ph\":\"M\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
        ",\"name\":\"thread_name\",\"args\":{\"name\":" + str(name) + "}}");
}

void TransactionTrace::event(const std::string& text) {
  if (!events_.empty()) events_ += ",\n";
  events_ += text;
}

std::string TransactionTrace::json() const {
  return "{\"displayTimeUnit\": \"ns\", \"otherData\": {\"source\": \"pcie-arbsim\"}, \"traceEvents\": [\n" + events_ +
         "\n]}\n";
}

}  // namespace arbsim
