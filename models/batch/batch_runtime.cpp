#include "models/batch/batch_runtime.h"
#include "models/common/sc_progress.h"
#include <algorithm>
#include "models/common/sim_time.h"

namespace arbsim {

using sc_core::sc_time;
using sc_core::SC_NS;

BatchRuntime::BatchRuntime(sc_core::sc_module_name name, Driver& driver, BatchModel model)
    : sc_core::sc_module(name), driver_(driver), model_(std::move(model)) {
  SC_METHOD(fire);
  sensitive << start_event_;
  dont_initialize();
}

double BatchRuntime::now_ns() const { return sim_now_ns(); }

BatchTimeline BatchRuntime::predict_batch_latency(const std::vector<BatchStreamOp>& ops, BatchMethod method) const {
  return model_.predict(ops, method);
}

BatchRuntime::Handle BatchRuntime::batch_op_async(std::vector<BatchStreamOp> ops, BatchMethod method,
                                                  std::function<void(const BatchResult&)> done,
                                                  std::shared_ptr<const std::vector<BatchStreamOp>> reserved) {
  auto b = std::make_unique<Batch>();
  b->id = next_id_++;
  b->ops = std::move(ops);
  b->method = method;
  b->done = std::move(done);
  b->reserved = std::move(reserved);
  const Handle h = b->id;
  const int owner = b->ops.empty() ? -1 : static_cast<int>(b->ops.front().flow_id);
  queue_.push_back(std::move(b));
  if (!running_) start_next();
  ties_.submitted(sc_core::sc_time_stamp().value(), owner, !queue_.empty());  // (one waits)
  return h;
}

bool BatchRuntime::batch_op_query(Handle h) const { return h <= completed_upto_; }

void BatchRuntime::batch_op_synchronize(Handle h, std::function<void()> then) {
  if (batch_op_query(h)) return then();
  waiters_[h].push_back(std::move(then));
}

// Batches run atomically in issue order (§3.2): the next starts when the last ends, and
// never while one runs (a completion callback may already have started it).
void BatchRuntime::start_next() {
  if (running_ || queue_.empty()) return;
  running_ = std::move(queue_.front());
  queue_.pop_front();
  Batch& b = *running_;
  const std::size_t n = b.ops.size();
  b.result.start_ns = now_ns();
  b.result.predicted = model_.predict(b.ops, b.method, b.reserved ? *b.reserved : std::vector<BatchStreamOp>());
  for (auto* v : {&b.result.copy_end_ns, &b.result.stream_end_ns, &b.result.stage_gap_ns})
    v->assign(n, 0);
  b.staged.resize(n);
  b.open = static_cast<int>(n);
  if (n == 0) return finish();
  for (std::size_t i = 0; i < n; ++i) {
    const int g = b.result.predicted.group[i];
    if (static_cast<int>(b.groups.size()) <= g) b.groups.resize(g + 1);
    b.groups[g].members.push_back(static_cast<int>(i));
    b.groups[g].copies |= b.ops[i].bytes > 0;
  }
  if (b.method == BatchMethod::TimeDivision) return start_time_division();
  for (std::size_t g = 0; g < b.groups.size(); ++g)
    starts_.emplace(b.result.start_ns + group_start(g), std::make_pair(b.id, static_cast<int>(g)));
  fire();
}

// A group starts with its earliest predicted copy (its kernel-only members have none).
double BatchRuntime::group_start(int g) const {
  const Batch& b = *running_;
  double t = b.result.predicted.streams[b.groups[g].members.front()].copy_start;
  bool copies = false;
  for (int i : b.groups[g].members)
    if (b.ops[i].bytes > 0) {
      t = copies ? std::min(t, b.result.predicted.streams[i].copy_start) : b.result.predicted.streams[i].copy_start;
      copies = true;
    }
  return t;
}

// One transfer at a time, in the timeline's order; kernel-only streams hold no bandwidth
// and start at once.
void BatchRuntime::start_time_division() {
  Batch& b = *running_;
  std::vector<int> kernels_only;
  for (std::size_t g = 0; g < b.groups.size(); ++g)
    (b.groups[g].copies ? b.order : kernels_only).push_back(static_cast<int>(g));
  std::stable_sort(b.order.begin(), b.order.end(), [&](int x, int y) { return group_start(x) < group_start(y); });
  b.next_in_order = 1;
  if (!b.order.empty()) start_group(b.order[0]);
  for (int g : kernels_only) start_group(g);
}

// Timed group starts of the running batch; an entry of a batch that is no longer running
// (none is expected: a batch ends only after all its groups started) is dropped.
void BatchRuntime::fire() {
  guard_progress(guard_, *this);
  const double now = now_ns();
  while (!starts_.empty() && starts_.begin()->first <= now + 1e-3) {
    const auto [batch, g] = starts_.begin()->second;
    starts_.erase(starts_.begin());
    if (running_ && running_->id == batch) start_group(g);
  }
  if (!starts_.empty()) start_event_.notify(sc_time(starts_.begin()->first - now, SC_NS));
}

void BatchRuntime::start_group(int g) {
  Group& grp = running_->groups[g];
  start_copy(grp.members[grp.next++]);
}

void BatchRuntime::start_copy(int i) {
  Batch& b = *running_;
  const BatchStreamOp& op = b.ops[i];
  if (op.bytes == 0) return copy_done(i);
  // Bandwidth allocation paces the copy at its static share (bytes/ns = GB/s).
  const std::vector<double>& pace = b.result.predicted.streams[i].part_pace;
  const double rate = b.method == BatchMethod::BandwidthAllocation && !pace.empty() ? pace.front() : 0;
  if (op.staged) {
    StagedCopySpec s{op.gpu, op.peer, op.host, op.bytes, kStagingChunkBytes, kStagingBuffers, rate, op.flow_id};
    b.staged[i] = std::make_unique<StagedCopy>(driver_, s, [this, i] { copy_done(i); });
    return b.staged[i]->start();
  }
  MemcpyRequest r;
  r.dir = op.dir;
  r.gpu = op.gpu;
  r.peer = op.peer;
  r.bytes = op.bytes;
  r.host = op.host;
  r.rate_GBps = rate;
  r.flow_id = op.flow_id;
  driver_.memcpy(r, [this, i] { copy_done(i); });
}

void BatchRuntime::copy_done(int i) {
  Batch& b = *running_;
  b.result.copy_end_ns[i] = now_ns() - b.result.start_ns;
  if (b.staged[i]) b.result.stage_gap_ns[i] = b.staged[i]->h2d_start_ns() - b.staged[i]->d2h_start_ns();
  const int g = b.result.predicted.group[i];
  Group& grp = b.groups[g];
  if (grp.next < grp.members.size()) return start_copy(grp.members[grp.next++]);
  group_copied(g);
}

// The group's transfers are done: the next group under time division, and its kernels.
void BatchRuntime::group_copied(int g) {
  Batch& b = *running_;
  if (b.method == BatchMethod::TimeDivision && b.groups[g].copies && b.next_in_order < b.order.size())
    start_group(b.order[b.next_in_order++]);
  int ended = 0;  // members without a kernel end now; the batch may end with them
  for (int i : b.groups[g].members) {
    const double kernel = b.ops[i].kernel_ns;
    if (kernel > 0) {
      // The whole GPU, owned by the stream's app (GpuCompute::kernel_ties(); no share caps it).
      driver_.gpu(b.ops[i].gpu).run_kernel_for(0, sc_time(kernel, SC_NS), kernel_owner(b.ops[i].flow_id),
                                               [this, i] { stream_done(i); });
    } else {
      b.result.stream_end_ns[i] = now_ns() - b.result.start_ns;
      ++ended;
    }
  }
  b.open -= ended;
  if (b.open == 0) finish();
}

void BatchRuntime::stream_done(int i) {
  Batch& b = *running_;
  b.result.stream_end_ns[i] = now_ns() - b.result.start_ns;
  if (--b.open == 0) finish();
}

// The batch is done before anyone hears of it: the callbacks may issue and start the next
// batch (start_next() then does nothing more) or wait on this one (it is complete).
void BatchRuntime::finish() {
  running_->result.end_ns = now_ns();
  const std::unique_ptr<Batch> done = std::move(running_);
  completed_upto_ = done->id;
  std::vector<std::function<void()>> waiters;
  if (const auto it = waiters_.find(done->id); it != waiters_.end()) {
    waiters = std::move(it->second);
    waiters_.erase(it);
  }
  if (done->done) done->done(done->result);
  for (auto& w : waiters) w();
  start_next();
}

}  // namespace arbsim
