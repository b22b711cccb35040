#include "models/batch/batch_model.h"

namespace arbsim {

namespace {

std::vector<BatchStream> streams_of(const BatchModel& m, const std::vector<BatchStreamOp>& ops) {
  std::vector<BatchStream> s;
  for (const BatchStreamOp& op : ops) s.push_back(m.stream(op));
  return s;
}

BatchTimeline predict_merged(const BatchModel& m, BatchMethod method, const std::vector<BatchStream>& merged,
                             const std::vector<BatchStreamOp>& reserved) {
  switch (method) {
    case BatchMethod::Batch: return predict_batch(merged, m.rates);
    case BatchMethod::TimeDivision: return predict_time_division(merged, m.rates);
    case BatchMethod::BandwidthAllocation: break;
  }
  std::vector<BatchTransfer> app;
  for (const BatchStream& s : streams_of(m, reserved)) app.insert(app.end(), s.transfers.begin(), s.transfers.end());
  return predict_bandwidth_allocation(merged, m.capacity, app);
}

}  // namespace

// Streams that share a DMA engine cannot overlap, so they are merged first (§3.2, special
// case 1); each op then gets its own transfer's times within its group, and its kernel
// after the group's transfers (behind earlier members' kernels on the same GPU).
BatchTimeline BatchModel::predict(const std::vector<BatchStreamOp>& ops, BatchMethod method,
                                  const std::vector<BatchStreamOp>& reserved) const {
  std::vector<int> into, part;
  const std::vector<BatchStream> merged = merge_shared_engines(streams_of(*this, ops), &into, &part);
  const BatchTimeline grouped = predict_merged(*this, method, merged, reserved.empty() ? ops : reserved);
  BatchTimeline t;
  t.makespan_ns = grouped.makespan_ns;
  t.group = into;
  std::vector<std::vector<double>> gpu_free(merged.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const StreamTimes& g = grouped.streams[into[i]];
    StreamTimes s;
    s.copy_start = s.copy_end = g.copy_end;
    if (part[i] >= 0) {
      s.copy_start = g.part_start[part[i]];
      s.copy_end = g.part_end[part[i]];
      if (!g.part_pace.empty()) s.part_pace = {g.part_pace[part[i]]};
    }
    double start = g.copy_end;
    for (std::size_t j = 0; j < i; ++j)
      if (into[j] == into[i] && ops[j].gpu == ops[i].gpu) start += ops[j].kernel_ns;
    s.kernel_start = start;
    s.kernel_end = start + ops[i].kernel_ns;
    t.streams.push_back(s);
  }
  return t;
}

}  // namespace arbsim
