// A binary min-heap of items named by small non-negative integers (slots), each with a key
// that can change: set (insert or update), erase and top in O(log n). The flow scheduler
// keeps its flows' finish times in one, so an event costs the flows whose rates changed, not
// every running flow. Ties go to the smaller item, so the order is deterministic. Plain C++.
#pragma once
#include <cstddef>
#include <vector>

namespace arbsim::flow {

class IndexedHeap {
 public:
  void set(int item, double key) {
    if (static_cast<std::size_t>(item) >= pos_.size()) {
      pos_.resize(static_cast<std::size_t>(item) + 1, -1);
      key_.resize(pos_.size(), 0.0);
    }
    key_[item] = key;
    int& p = pos_[item];
    if (p < 0) {
      p = static_cast<int>(heap_.size());
      heap_.push_back(item);
    }
    if (!up(p)) down(p);
  }
  void erase(int item) {
    if (static_cast<std::size_t>(item) >= pos_.size() || pos_[item] < 0) return;
    const int p = pos_[item];
    const int last = heap_.back();
    heap_.pop_back();
    pos_[item] = -1;
    if (last == item) return;
    heap_[p] = last;
    pos_[last] = p;
    if (!up(p)) down(p);
  }
  bool empty() const { return heap_.empty(); }
  int top() const { return heap_.front(); }
  double top_key() const { return key_[heap_.front()]; }

 private:
  bool before(int a, int b) const { return key_[a] < key_[b] || (key_[a] == key_[b] && a < b); }
  void place(int p, int item) {
    heap_[p] = item;
    pos_[item] = p;
  }
  bool up(int p) {
    const int item = heap_[p];
    const int from = p;
    while (p > 0 && before(item, heap_[(p - 1) / 2])) {
      place(p, heap_[(p - 1) / 2]);
      p = (p - 1) / 2;
    }
    place(p, item);
    return p != from;
  }
  void down(int p) {
    const int item = heap_[p], n = static_cast<int>(heap_.size());
    for (;;) {
      int c = 2 * p + 1;
      if (c >= n) break;
      if (c + 1 < n && before(heap_[c + 1], heap_[c])) ++c;
      if (!before(heap_[c], item)) break;
      place(p, heap_[c]);
      p = c;
    }
    place(p, item);
  }
  std::vector<int> heap_;   // items in heap order
  std::vector<int> pos_;    // [item] its index in heap_, -1 when absent
  std::vector<double> key_;  // [item]
};

}  // namespace arbsim::flow
