// A FIFO of TLPs that competes for an egress port: a switch's ingress VC buffer, a DMA
// engine's output, or a completer's output. Ring buffer: no allocation once grown.
#pragma once
#include <cstddef>
#include <vector>
#include "models/pcie/tlp.h"

namespace arbsim {

class TlpQueue;

// Owner of a queue: told when the egress port takes the head (to return credits, refill,
// or present the next head to its egress port).
class QueueOwner {
 public:
  virtual ~QueueOwner() = default;
  virtual void on_pop(TlpQueue& q, Tlp* t) = 0;
};

class TlpQueue {
 public:
  TlpQueue(QueueOwner* owner, int slot, int sub) : owner_(owner), slot_(slot), sub_(sub) {}

  bool empty() const { return count_ == 0; }
  std::size_t size() const { return count_; }
  Tlp* front() const { return buf_[head_]; }
  Tlp* at(std::size_t i) const { return buf_[(head_ + i) % buf_.size()]; }  // i < size(): 0 = the head
  void push(Tlp* t) {
    if (count_ == buf_.size()) grow();
    buf_[(head_ + count_) % buf_.size()] = t;
    ++count_;
    occupancy = static_cast<int>(count_);
  }
  Tlp* pop() {
    Tlp* t = buf_[head_];
    head_ = (head_ + 1) % buf_.size();
    --count_;
    occupancy = static_cast<int>(count_);
    return t;
  }
  QueueOwner* owner() const { return owner_; }
  int slot() const { return slot_; }  // requester index at the egress port arbiter
  int sub() const { return sub_; }    // ingress VC (switch) or 0

  int occupancy = 0;  // traced in VCD

 private:
  void grow() {
    std::vector<Tlp*> n(buf_.empty() ? 8 : buf_.size() * 2);
    for (std::size_t i = 0; i < count_; ++i) n[i] = buf_[(head_ + i) % buf_.size()];
    buf_.swap(n);
    head_ = 0;
  }
  QueueOwner* owner_;
  int slot_, sub_;
  std::vector<Tlp*> buf_;
  std::size_t head_ = 0, count_ = 0;
};

}  // namespace arbsim
