// A DMA (copy) engine: executes copy commands in order, one at a time, turning each into
// TLPs on demand (its output queue is kept DmaParams::queue_depth deep, so a 1 GiB copy
// does not materialise 4 M TLPs). Reads are MRd requests of at most MRRS bytes, limited by
// the engine's tags (docs/pcie-reference.md §3, "Tags"); writes are MWr of at most MPS bytes.
// The next command starts as soon as the current one has issued its last request.
#pragma once
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>
#include "models/common/transfer_tracker.h"
#include "models/common/copy_executor.h"
#include "models/pcie/fabric_params.h"
#include "models/pcie/tlp_queue.h"

namespace arbsim {

// What an engine needs from the endpoint it sits in.
class DmaHost {
 public:
  virtual ~DmaHost() = default;
  virtual void offer(TlpQueue& q) = 0;  // the queue's head is new: present it for arbitration
  virtual uint16_t requester_id() const = 0;
  virtual TransferTracker& tracker() = 0;
};

class DmaEngine : public QueueOwner, public CopyExecutor {
 public:
  DmaEngine(DmaHost& host, int slot, int tag_base, const DmaParams& p);
  void submit(CopyCommand c) override;
  void on_completion(Tlp* cpld);  // a CplD carrying one of this engine's tags
  bool owns_tag(int tag) const { return tag >= tag_base_ && tag < tag_base_ + params_.tags; }
  TlpQueue& queue() { return queue_; }
  bool idle() const { return !active_ && pending_.empty(); }
  void on_pop(TlpQueue& q, Tlp* t) override;

 private:
  struct Active {
    CopyCommand cmd;
    uint64_t transfer = 0;
    uint64_t issued = 0;
  };
  void refill();
  void fill();
  bool start_next();
  Tlp* make_tlp();

  DmaHost& host_;
  DmaParams params_;
  int tag_base_;
  TlpQueue queue_;
  std::deque<CopyCommand> pending_;
  std::optional<Active> active_;
  std::vector<uint16_t> free_tags_;
  // Paced copies: when the engine's next paced TLP may go. Kept across commands: per copy,
  // a copy's first TLP went at once, beside the one before's last (queued with a later
  // release), and an NVMe drive of 1 GB/s moved 512-B I/Os at 3.7 GB/s.
  sc_core::sc_time paced_until_;
};

}  // namespace arbsim
