// The batch method of seed 002 (Verner et al.): a batch binds N command streams, each an
// optional data transfer followed by an optional kernel on one GPU. Three ways to run it,
// each with its timeline computed here (plain C++, no SystemC):
//   batch               Algorithm 1: completion times aligned on a reversed timeline; the
//                       transfers share the interconnect by max-min fairness (§3.2)
//   bandwidth allocation every transfer gets a static equal share of every link it uses (§2.4),
//                       reserved for all the transfers the application makes
//   time division       one transfer at a time at full bandwidth (§2.4, Fig. 3b)
// The timelines are the latency predictions (predictBatchLatency) and the schedules the
// driver executes.
#pragma once
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace arbsim {

// One data transfer, in the interconnect model's terms.
struct BatchTransfer {
  double bytes = 0;
  std::vector<int> path;         // directed edges it crosses
  std::vector<double> weights;   // capacity used on path[k] per byte moved (empty: all 1)
  double latency_ns = 0;         // fixed delay from the last byte sent to the last byte delivered
  double cap = std::numeric_limits<double>::infinity();  // its own rate limit (bytes/ns)
  // A receiver's credits on its path carry less per round trip than it could move alone
  // (flow_network.h, credit_loop_cap()): not in the predictor's rates, which are max-min.
  bool credit_limited = false;
};

struct BatchStream {
  // Run one after another: one transfer, or several when streams sharing a DMA engine were
  // merged (§3.2, special case 1). Empty: a kernel-only stream.
  std::vector<BatchTransfer> transfers;
  double kernel_ns = 0;          // 0 = no kernel
  int compute = -1;              // what runs the kernel (its GPU); merged kernels on one run in turn
  std::vector<int> engines;      // DMA engines its transfers occupy (a staged copy: two)
};

struct StreamTimes {
  double copy_start = 0, copy_end = 0, kernel_start = 0, kernel_end = 0;  // ns from batch start
  std::vector<double> part_start, part_end;  // each of the stream's transfers (start, delivered)
  std::vector<double> part_pace;             // bandwidth allocation: each one's static rate (bytes/ns)
};

struct BatchTimeline {
  double makespan_ns = 0;
  std::vector<StreamTimes> streams;
  std::vector<int> group;        // per stream of the caller: its merged group (BatchModel)
};

// Rates (bytes/ns) of the transfers moving concurrently: the interconnect model, normally
// max-min fair sharing (models/flow/max_min.h).
using RateModel = std::function<std::vector<double>(const std::vector<const BatchTransfer*>& moving)>;

enum class BatchMethod { Batch, BandwidthAllocation, TimeDivision };
const char* to_string(BatchMethod m);
bool parse_batch_method(const std::string& s, BatchMethod* out);

// Algorithm 1. setup_ns is added to the makespan (the paper's SetupTime).
BatchTimeline predict_batch(const std::vector<BatchStream>& streams, const RateModel& rates, double setup_ns = 0);
// Static equal shares: on each edge e every transfer of `reserved` (all the application's;
// empty: the batch's) gets the same rate, capacity(e) / (sum of their weights on e); a
// transfer runs at the least of its edges' shares.
BatchTimeline predict_bandwidth_allocation(const std::vector<BatchStream>& streams,
                                           const std::vector<double>& capacity,
                                           const std::vector<BatchTransfer>& reserved = {});
// One transfer at a time, each at its path's full rate, longest kernel first (Jackson's
// rule, which minimises the makespan of transfer-then-kernel jobs on one shared channel).
BatchTimeline predict_time_division(const std::vector<BatchStream>& streams, const RateModel& rates);

// Streams sharing a DMA engine cannot overlap: their transfers and kernels are joined, in
// issue order. merged_into[i] is stream i's group; part_of[i] its transfer's index there.
std::vector<BatchStream> merge_shared_engines(const std::vector<BatchStream>& streams, std::vector<int>* merged_into,
                                              std::vector<int>* part_of = nullptr);

}  // namespace arbsim
