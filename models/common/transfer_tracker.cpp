#include "models/common/transfer_tracker.h"

namespace arbsim {

uint64_t TransferTracker::open(uint64_t bytes, std::function<void()> on_done) {
  const uint64_t id = next_id_++;
  Transfer& t = transfers_[id];
  t.bytes = bytes;
  t.on_done = std::move(on_done);
  return id;
}

bool TransferTracker::deliver_unless_last(uint64_t id, uint64_t offset, uint64_t bytes, bool posted) {
  auto it = transfers_.find(id);
  if (it == transfers_.end() || it->second.delivered + bytes >= it->second.bytes) return false;
  record(it->second, offset, bytes, posted);
  return true;
}

void TransferTracker::record(Transfer& t, uint64_t offset, uint64_t bytes, bool posted) {
  if (posted) {
    if (offset != t.next_posted_offset) ++order_violations_;
    t.next_posted_offset = offset + bytes;
  }
  delivered_bytes_ += bytes;
  t.delivered += bytes;
}

void TransferTracker::deliver(uint64_t id, uint64_t offset, uint64_t bytes, bool posted) {
  auto it = transfers_.find(id);
  if (it == transfers_.end()) {  // delivered after completion: a duplicate
    duplicate_bytes_ += bytes;
    return;
  }
  Transfer& t = it->second;
  record(t, offset, bytes, posted);
  if (t.delivered > t.bytes) duplicate_bytes_ += t.delivered - t.bytes;
  if (t.delivered >= t.bytes) {
    auto done = std::move(t.on_done);
    transfers_.erase(it);
    ++completed_;
    if (done) done();
  }
}

}  // namespace arbsim
