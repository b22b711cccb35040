#include "models/pcie/endpoint.h"
#include "models/common/sc_progress.h"
#include <algorithm>
#include "models/pcie/tlp_pool.h"

namespace arbsim {

using sc_core::sc_time;
using sc_core::SC_PS;

Endpoint::Endpoint(sc_core::sc_module_name name, const EndpointParams& p, const PortSpec& port,
                   TransferTracker& tracker)
    : FabricNode(name, {port}),
      params_(p),
      read_latency_(p.read_latency_ns * 1000.0, SC_PS),
      tracker_(tracker),
      completer_queue_(this, 0, 0) {
  for (int e = 0; e < p.engines; ++e)
    engines_.push_back(std::make_unique<DmaEngine>(*this, 1 + e, e * p.dma.tags, p.dma));
  SC_METHOD(sink);
  sensitive << sink_event_;
  dont_initialize();
  SC_METHOD(complete);
  sensitive << complete_event_;
  dont_initialize();
}

void Endpoint::offer(TlpQueue& q) {
  TlpExtension& x = q.front()->x();
  x.head_since = std::max(sc_core::sc_time_stamp(), x.ready_at);
  egress(0).offer(q);
}

void Endpoint::on_pop(TlpQueue& q, Tlp* /*t*/) {
  if (!q.empty()) offer(q);
}

// A TLP is usable once its tail has arrived (LCRC checked): store-and-forward into memory.
// Only what others must see at exactly that time needs an event: the last byte of a write
// transfer (its completion callback) and the last CplD of a read (it frees a tag). All else
// is settled when the TLP is handed over, with its effect dated at the tail: credits return
// after the tail plus the UpdateFC delay, reads are due at tail + read latency, and
// intermediate data bytes are counted (they cannot complete a transfer). This makes one
// event per transfer or read request instead of one per TLP.
void Endpoint::accept(Tlp* t, int /*port*/) {
  TlpExtension& x = t->x();
  x.ready_at = x.tail_at;
  tracker_.tlp_consumed((x.tail_at - x.inject_time).value());
  const sc_time now = sc_core::sc_time_stamp();
  return_credits(0, t, x.tail_at - now);
  if (x.type == TlpType::MWr && tracker_.deliver_unless_last(x.transfer_id, x.offset, x.byte_count, true))
    return t->release();
  const bool timed = x.type == TlpType::MWr || (x.type != TlpType::MRd && x.cpl_remaining == 0);
  if (!timed) return consume(t, x.tail_at);
  arrived_.push_back(t);
  if (arrived_.size() == 1) sink_event_.notify(x.ready_at - now);
}

void Endpoint::sink() {
  guard_progress(sink_guard_, *this);
  const sc_time now = sc_core::sc_time_stamp();
  while (!arrived_.empty() && arrived_.front()->x().ready_at <= now) {
    Tlp* t = arrived_.front();
    arrived_.pop_front();
    consume(t, now);
  }
  if (!arrived_.empty()) sink_event_.notify(arrived_.front()->x().ready_at - now);
}

void Endpoint::consume(Tlp* t, const sc_time& at) {
  const TlpExtension& x = t->x();
  switch (x.type) {
    case TlpType::MWr:
      tracker_.deliver(x.transfer_id, x.offset, x.byte_count, true);
      break;
    case TlpType::CplD:
    case TlpType::Cpl: {
      const int e = x.tag / params_.dma.tags;
      sc_assert(e < engine_count());
      engines_[e]->on_completion(t);
      break;
    }
    case TlpType::MRd: {
      const sc_time due = at + read_latency_;
      reads_due_.emplace_back(due, t);
      if (reads_due_.size() == 1) complete_event_.notify(due - sc_core::sc_time_stamp());
      return;  // released once its completions are built
    }
  }
  t->release();
}

void Endpoint::complete() {
  guard_progress(complete_guard_, *this);
  const sc_time now = sc_core::sc_time_stamp();
  while (!reads_due_.empty() && reads_due_.front().first <= now) {
    Tlp* mrd = reads_due_.front().second;
    reads_due_.pop_front();
    emit_completions(mrd);
    mrd->release();
  }
  if (!reads_due_.empty()) complete_event_.notify(reads_due_.front().first - now);
}

// Splits a read into CplDs: the first ends on a completion-size boundary, the rest are
// full-size (docs/pcie-reference.md §3, "Completion splitting rules").
void Endpoint::emit_completions(Tlp* mrd) {
  const TlpExtension& r = mrd->x();
  const bool was_empty = completer_queue_.empty();
  const uint64_t cb = static_cast<uint64_t>(params_.completion_bytes);
  const sc_time now = sc_core::sc_time_stamp();
  uint64_t done = 0;
  while (done < r.byte_count) {
    const uint64_t addr = r.address + done;
    const uint64_t chunk = std::min<uint64_t>(r.byte_count - done, cb - addr % cb);
    Tlp* c = tlp_pool().acquire();
    TlpExtension& x = c->x();
    x.type = TlpType::CplD;
    x.tc = r.tc;  // completions carry the request's TC (PCIe Base Spec §2.2.9)
    x.requester_id = r.requester_id;
    x.completer_id = requester_id();
    x.tag = r.tag;
    x.byte_count = static_cast<uint32_t>(chunk);
    x.address = addr;
    x.flow_id = r.flow_id;
    x.transfer_id = r.transfer_id;
    x.offset = r.offset + done;
    done += chunk;
    x.cpl_remaining = static_cast<uint32_t>(r.byte_count - done);
    x.inject_time = x.head_at = x.tail_at = x.ready_at = x.tail_ready_at = now;
    completer_queue_.push(c);
  }
  if (was_empty && !completer_queue_.empty()) offer(completer_queue_);
}

}  // namespace arbsim
