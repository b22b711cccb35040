#include "models/gpu/work_queue.h"
#include <stdexcept>

namespace arbsim {

int WorkQueue::issue(OpKind kind, int stream) {
  if (stream < 0) throw std::invalid_argument("WorkQueue: a stream id must be >= 0");
  if (static_cast<std::size_t>(stream) >= last_of_stream_.size()) last_of_stream_.resize(stream + 1, -1);
  const int id = static_cast<int>(ops_.size());
  ops_.push_back({kind, stream, last_of_stream_[stream]});
  last_of_stream_[stream] = id;
  return id;
}

std::vector<int> WorkQueue::ready() const {
  std::vector<int> r;
  for (int i = 0; i < static_cast<int>(ops_.size()); ++i)
    if (!ops_[i].started && may_start(i)) r.push_back(i);
  return r;
}

void WorkQueue::started(int id) {
  Op& o = ops_.at(static_cast<std::size_t>(id));
  if (o.started || !may_start(id)) throw std::logic_error("WorkQueue: operation started out of order");
  o.started = true;
}

void WorkQueue::completed(int id) {
  Op& o = ops_.at(static_cast<std::size_t>(id));
  if (!o.started || o.completed) throw std::logic_error("WorkQueue: operation completed before it started");
  o.completed = true;
  ++completed_;
}

bool WorkQueue::stream_done(int stream) const {
  const int last = static_cast<std::size_t>(stream) < last_of_stream_.size() ? last_of_stream_[stream] : -1;
  return last >= 0 && ops_[last].completed;  // a stream's operations complete in order
}

bool WorkQueue::kernels_done_before(int id) const {
  for (int i = 0; i < id; ++i)
    if (ops_[i].kind == OpKind::Kernel && !ops_[i].completed) return false;
  return true;
}

bool WorkQueue::earlier_of_kind_started(int id) const {
  for (int i = 0; i < id; ++i)
    if (ops_[i].kind == ops_[id].kind && !ops_[i].started) return false;
  return true;
}

bool WorkQueue::may_start(int id) const {
  const Op& o = ops_[id];
  if (o.prev_in_stream >= 0 && !ops_[o.prev_in_stream].completed) return false;
  if (q_ == Queues::PerStream) return true;
  if (!earlier_of_kind_started(id)) return false;
  const bool checks = o.kind == OpKind::D2H && o.prev_in_stream >= 0 && ops_[o.prev_in_stream].kind == OpKind::Kernel;
  if (checks) return kernels_done_before(id);  // rule (1) and the queue's completion signal
  if (o.kind != OpKind::Kernel) return true;
  // Rule (2): a pending dependency check of an earlier D2H copy blocks this launch.
  for (int i = 0; i < id; ++i) {
    const Op& d = ops_[i];
    const bool check = d.kind == OpKind::D2H && d.prev_in_stream >= 0 && ops_[d.prev_in_stream].kind == OpKind::Kernel;
    if (check && !d.started && !kernels_done_before(i)) return false;
  }
  return true;
}

}  // namespace arbsim
