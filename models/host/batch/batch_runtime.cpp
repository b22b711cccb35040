#include "models/host/batch/batch_runtime.h"
#include <algorithm>
#include <numeric>

namespace arbsim {

using sc_core::sc_time;
using sc_core::SC_NS;

RateModel BatchModel::rates_for(const std::vector<BatchStream>& streams) const {
  // Max-min over the platform graph is what BatchModel::stream's paths are built for; the
  // platform supplies it through `rates_of` captured in the returned closure.
  return [this, &streams](const std::vector<int>& active) {
    std::vector<BatchStream> s;
    for (int i : active) s.push_back(streams[i]);
    return rates_of ? rates_of(s) : std::vector<double>(active.size(), 0.0);
  };
}

BatchRuntime::BatchRuntime(sc_core::sc_module_name name, Driver& driver, BatchModel model)
    : sc_core::sc_module(name), driver_(driver), model_(std::move(model)) {
  SC_METHOD(fire);
  sensitive << start_event_;
  dont_initialize();
}

double BatchRuntime::now_ns() const { return sc_core::sc_time_stamp().to_seconds() * 1e9; }

// Streams that share a DMA engine cannot overlap, so they are merged first (§3.2, special
// case 1); each keeps its group's timeline (the engine runs the members in issue order).
BatchTimeline BatchModel::predict(const std::vector<BatchStreamOp>& ops, BatchMethod method,
                                  std::vector<BatchStream>* streams_out) const {
  std::vector<BatchStream> streams;
  for (const BatchStreamOp& op : ops) streams.push_back(stream(op));
  std::vector<int> into;
  const std::vector<BatchStream> merged = merge_shared_engines(streams, &into);
  const BatchTimeline grouped = arbsim::predict(method, merged, capacity, rates_for(merged));
  BatchTimeline t;
  t.makespan_ns = grouped.makespan_ns;
  for (int g : into) t.streams.push_back(grouped.streams[g]);
  if (streams_out) *streams_out = std::move(streams);
  return t;
}

BatchTimeline BatchRuntime::predict_batch_latency(const std::vector<BatchStreamOp>& ops, BatchMethod method) const {
  return model_.predict(ops, method);
}

namespace {

// Bandwidth allocation paces each copy at the static share the timeline gave its engine's
// group: the group's bytes over its copy time (less the fixed delivery latency).
std::vector<double> pace_rates(const std::vector<BatchStream>& streams, const BatchTimeline& t) {
  std::vector<double> rates(streams.size(), 0);
  for (std::size_t i = 0; i < streams.size(); ++i) {
    double group_bytes = 0;
    for (const BatchStream& other : streams)
      if (other.dma_engine == streams[i].dma_engine) group_bytes += other.bytes;
    const StreamTimes& s = t.streams[i];
    if (streams[i].bytes > 0) rates[i] = group_bytes / (s.copy_end - s.copy_start - streams[i].latency_ns);
  }
  return rates;
}

}  // namespace

BatchRuntime::Handle BatchRuntime::batch_op_async(std::vector<BatchStreamOp> ops, BatchMethod method,
                                                  std::function<void(const BatchResult&)> done) {
  auto b = std::make_unique<Batch>();
  b->id = next_id_++;
  b->ops = std::move(ops);
  b->method = method;
  b->done = std::move(done);
  const Handle h = b->id;
  queue_.push_back(std::move(b));
  if (!running_) start_next();
  return h;
}

bool BatchRuntime::batch_op_query(Handle h) const { return h <= completed_upto_; }

void BatchRuntime::batch_op_synchronize(Handle h, std::function<void()> then) {
  if (batch_op_query(h)) return then();
  waiters_[h].push_back(std::move(then));
}

// Batches run atomically in issue order (§3.2): the next starts when the last ends.
void BatchRuntime::start_next() {
  if (queue_.empty()) return;
  running_ = std::move(queue_.front());
  queue_.pop_front();
  Batch& b = *running_;
  const std::size_t n = b.ops.size();
  b.result.start_ns = now_ns();
  std::vector<BatchStream> streams;
  b.result.predicted = model_.predict(b.ops, b.method, &streams);
  if (b.method == BatchMethod::BandwidthAllocation) b.pace_GBps = pace_rates(streams, b.result.predicted);
  b.result.copy_end_ns.assign(n, 0);
  b.result.stream_end_ns.assign(n, 0);
  b.open = static_cast<int>(n);
  if (n == 0) return stream_done(-1);
  if (b.method == BatchMethod::TimeDivision) {
    b.order.resize(n);
    std::iota(b.order.begin(), b.order.end(), 0);
    std::sort(b.order.begin(), b.order.end(), [&](int x, int y) {
      return b.result.predicted.streams[x].copy_start < b.result.predicted.streams[y].copy_start;
    });
    b.next_in_order = 1;
    return start_copy(b.order[0]);
  }
  for (std::size_t i = 0; i < n; ++i) starts_.emplace(b.result.start_ns + b.result.predicted.streams[i].copy_start, i);
  fire();
}

void BatchRuntime::fire() {
  const double now = now_ns();
  while (!starts_.empty() && starts_.begin()->first <= now + 1e-3) {
    const int i = starts_.begin()->second;
    starts_.erase(starts_.begin());
    start_copy(i);
  }
  if (!starts_.empty()) start_event_.notify(sc_time(starts_.begin()->first - now, SC_NS));
}

void BatchRuntime::start_copy(int i) {
  Batch& b = *running_;
  const BatchStreamOp& op = b.ops[i];
  if (op.bytes == 0) return copy_done(i);
  MemcpyRequest r;
  r.dir = op.dir;
  r.gpu = op.gpu;
  r.bytes = op.bytes;
  r.host = op.host;
  if (!b.pace_GBps.empty()) r.rate_GBps = b.pace_GBps[i];
  driver_.memcpy(r, [this, i] { copy_done(i); });
}

void BatchRuntime::copy_done(int i) {
  Batch& b = *running_;
  b.result.copy_end_ns[i] = now_ns() - b.result.start_ns;
  if (b.method == BatchMethod::TimeDivision && b.next_in_order < b.order.size())
    start_copy(b.order[b.next_in_order++]);
  const double kernel = b.ops[i].kernel_ns;
  if (kernel <= 0) return stream_done(i);
  driver_.gpu(b.ops[i].gpu).run_kernel(sc_time(kernel, SC_NS), [this, i] { stream_done(i); });
}

void BatchRuntime::stream_done(int i) {
  Batch& b = *running_;
  if (i >= 0) b.result.stream_end_ns[i] = now_ns() - b.result.start_ns;
  if (i >= 0 && --b.open > 0) return;
  b.result.end_ns = now_ns();
  std::unique_ptr<Batch> done = std::move(running_);
  completed_upto_ = done->id;
  if (done->done) done->done(done->result);
  for (auto& w : waiters_[done->id]) w();
  waiters_.erase(done->id);
  start_next();
}

}  // namespace arbsim
