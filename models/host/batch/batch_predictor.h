// The batch method of seed 002 (Verner et al.): a batch binds N command streams, each an
// optional data transfer followed by an optional kernel on one GPU. Three ways to run it,
// each with its timeline computed here (plain C++, no SystemC):
//   batch               Algorithm 1: completion times aligned on a reversed timeline; the
//                       transfers share the interconnect by max-min fairness (§3.2)
//   bandwidth allocation each stream gets a static equal share of every link it uses (§2.4)
//   time division       one transfer at a time at full bandwidth (§2.4, Fig. 3b)
// The timelines are the latency predictions (predictBatchLatency) and the schedules the
// driver executes.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace arbsim {

struct BatchStream {
  double bytes = 0;        // 0 = no transfer
  double kernel_ns = 0;    // 0 = no kernel
  std::vector<int> path;   // directed edges the transfer crosses
  int dma_engine = -1;     // streams on one DMA engine are merged (§3.2, special case 1)
  std::vector<double> weights;  // capacity used on path[k] per byte moved (empty: all 1)
  double latency_ns = 0;   // fixed delay from the last byte sent to the last byte delivered
};

struct StreamTimes {
  double copy_start = 0, copy_end = 0, kernel_start = 0, kernel_end = 0;  // ns from batch start
};

struct BatchTimeline {
  double makespan_ns = 0;
  std::vector<StreamTimes> streams;
};

// Rates (bytes/ns) of the streams `active` (indices into the batch) moving concurrently:
// the interconnect model, normally max-min fair sharing (models/flow/max_min.h).
using RateModel = std::function<std::vector<double>(const std::vector<int>& active)>;

enum class BatchMethod { Batch, BandwidthAllocation, TimeDivision };
const char* to_string(BatchMethod m);
bool parse_batch_method(const std::string& s, BatchMethod* out);

// Algorithm 1. setup_ns is added to the makespan (the paper's SetupTime).
BatchTimeline predict_batch(const std::vector<BatchStream>& streams, const RateModel& rates, double setup_ns = 0);
// Static equal shares: stream i runs at min over its edges e of capacity(e) / (streams on e).
BatchTimeline predict_bandwidth_allocation(const std::vector<BatchStream>& streams,
                                           const std::vector<double>& capacity);
// One transfer at a time, each at its path's full rate, longest kernel first (Jackson's
// rule, which minimises the makespan of transfer-then-kernel jobs on one shared channel).
BatchTimeline predict_time_division(const std::vector<BatchStream>& streams, const RateModel& rates);

BatchTimeline predict(BatchMethod m, const std::vector<BatchStream>& streams, const std::vector<double>& capacity,
                      const RateModel& rates);

// Streams sharing a DMA engine cannot overlap: their transfers and kernels are joined.
std::vector<BatchStream> merge_shared_engines(const std::vector<BatchStream>& streams, std::vector<int>* merged_into);

}  // namespace arbsim
