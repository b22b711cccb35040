// Tracks every transfer from its first injected byte to its last delivered byte, so the
// model can prove each byte is delivered exactly once and posted writes of one transfer
// (one TC, so one VC on every link) arrive in order (PCIe ordering rule A2a, docs/pcie-reference.md §4).
#pragma once
#include <cstdint>
#include <functional>
#include <unordered_map>

namespace arbsim {

class TransferTracker {
 public:
  // Opens a transfer of `bytes`; `on_done` runs when the last byte is delivered.
  uint64_t open(uint64_t bytes, std::function<void()> on_done);
  void injected(uint64_t bytes) { injected_bytes_ += bytes; }
  // `bytes` at `offset` reached their destination; `posted` marks MWr data.
  void deliver(uint64_t id, uint64_t offset, uint64_t bytes, bool posted);

  // Delivers like deliver() unless these bytes would finish the transfer (or it is
  // closed): then nothing happens and it returns false, so the caller can deliver them at
  // the right time (the completion callback runs then).
  bool deliver_unless_last(uint64_t id, uint64_t offset, uint64_t bytes, bool posted);
  // Bytes delivered so far of an open transfer (0 once it has completed and closed).
  uint64_t delivered(uint64_t id) const {
    auto it = transfers_.find(id);
    return it == transfers_.end() ? 0 : it->second.delivered;
  }
  uint64_t injected_bytes() const { return injected_bytes_; }
  uint64_t delivered_bytes() const { return delivered_bytes_; }
  uint64_t duplicate_bytes() const { return duplicate_bytes_; }
  uint64_t order_violations() const { return order_violations_; }
  // Liveness: a TLP reached its final consumer `age_ps` after it was made; the oldest is kept.
  void tlp_consumed(uint64_t age_ps) {
    if (age_ps > oldest_tlp_ps_) oldest_tlp_ps_ = age_ps;
  }
  uint64_t oldest_consumed_tlp_ps() const { return oldest_tlp_ps_; }
  uint64_t open_transfers() const { return transfers_.size(); }
  // Bytes the open transfers have still to deliver: injected = delivered + this, always.
  uint64_t open_bytes_left() const {
    uint64_t left = 0;
    for (const auto& [id, t] : transfers_) left += t.bytes > t.delivered ? t.bytes - t.delivered : 0;
    return left;
  }
  uint64_t completed_transfers() const { return completed_; }

 private:
  struct Transfer {
    uint64_t bytes = 0, delivered = 0, next_posted_offset = 0;
    std::function<void()> on_done;
  };
  void record(Transfer& t, uint64_t offset, uint64_t bytes, bool posted);
  std::unordered_map<uint64_t, Transfer> transfers_;
  uint64_t next_id_ = 1;
  uint64_t injected_bytes_ = 0, delivered_bytes_ = 0, duplicate_bytes_ = 0;
  uint64_t order_violations_ = 0, completed_ = 0;
  uint64_t oldest_tlp_ps_ = 0;
};

}  // namespace arbsim
