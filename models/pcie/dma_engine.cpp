#include "models/pcie/dma_engine.h"
#include <algorithm>
#include "models/pcie/fabric_node.h"
#include "models/pcie/tlp_pool.h"

namespace arbsim {

DmaEngine::DmaEngine(DmaHost& host, int slot, int tag_base, const DmaParams& p)
    : host_(host), params_(p), tag_base_(tag_base), queue_(this, slot, 0) {
  for (int t = p.tags - 1; t >= 0; --t) free_tags_.push_back(static_cast<uint16_t>(tag_base + t));
}

void DmaEngine::submit(CopyCommand c) {
  pending_.push_back(std::move(c));
  refill();
}

void DmaEngine::on_pop(TlpQueue& q, Tlp* /*t*/) {
  fill();
  if (!q.empty()) host_.offer(q);
}

void DmaEngine::on_completion(Tlp* cpld) {
  const TlpExtension& x = cpld->x();
  if (x.cpl_remaining == 0) free_tags_.push_back(x.tag);
  host_.tracker().deliver(x.transfer_id, x.offset, x.byte_count, false);
  refill();
}

void DmaEngine::refill() {
  const bool was_empty = queue_.empty();
  fill();
  if (was_empty && !queue_.empty()) host_.offer(queue_);
}

void DmaEngine::fill() {
  while (queue_.size() < static_cast<std::size_t>(params_.queue_depth)) {
    if (active_ && active_->issued == active_->cmd.bytes) active_.reset();
    if (!active_ && !start_next()) return;
    if (active_->cmd.kind == CopyKind::Read && free_tags_.empty()) return;
    queue_.push(make_tlp());
  }
}

bool DmaEngine::start_next() {
  if (pending_.empty()) return false;
  active_.emplace();
  active_->cmd = std::move(pending_.front());
  pending_.pop_front();
  active_->transfer = host_.tracker().open(active_->cmd.bytes, std::move(active_->cmd.on_done));
  host_.tracker().injected(active_->cmd.bytes);
  if (active_->cmd.on_start) active_->cmd.on_start(active_->transfer);
  return true;
}

Tlp* DmaEngine::make_tlp() {
  Active& a = *active_;
  const bool read = a.cmd.kind == CopyKind::Read;
  const uint64_t chunk = std::min<uint64_t>(a.cmd.bytes - a.issued, read ? params_.mrrs : params_.mps);
  Tlp* t = tlp_pool().acquire();
  TlpExtension& x = t->x();
  x.type = read ? TlpType::MRd : TlpType::MWr;
  x.tc = a.cmd.tc;
  x.requester_id = host_.requester_id();
  x.byte_count = static_cast<uint32_t>(chunk);
  x.address = endpoint_base_address(a.cmd.remote) + a.issued;
  x.flow_id = a.cmd.flow_id;
  x.transfer_id = a.transfer;
  x.offset = a.issued;
  if (read) {
    x.tag = free_tags_.back();
    free_tags_.pop_back();
  }
  // A paced copy (a static bandwidth share, seed 002 §2.4) releases each TLP only after the
  // previous paced one's payload time at its rate, whichever copy of the engine that was;
  // the egress port waits for ready_at.
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const bool paced = a.cmd.rate_GBps > 0;
  const sc_core::sc_time release = paced ? std::max(now, paced_until_) : now;
  if (paced) paced_until_ = release + sc_core::sc_time(chunk / a.cmd.rate_GBps, sc_core::SC_NS);
  x.inject_time = now;
  x.head_at = x.tail_at = x.ready_at = x.tail_ready_at = release;
  a.issued += chunk;
  return t;
}

}  // namespace arbsim
