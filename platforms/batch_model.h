// The batch run-time's view of a platform (seed 002 §3.2): the flow-level graph of the same
// config (flow_graph.h) gives every stream its path, per-edge weights (wire bytes per
// payload byte) and fixed latency, and the links' capacities; rates of concurrent transfers
// are their max-min fair shares (models/flow/max_min.h). Used by the run-time to compute
// schedules and by `pcie-arbsim predict`, without elaborating SystemC.
#pragma once
#include <memory>
#include "models/batch/batch_runtime.h"
#include "platforms/config.h"
#include "platforms/topology.h"

namespace arbsim {

BatchModel make_batch_model(const PlatformCfg& pf, const Topology& topo);
// One batch operation's streams, GPUs as ordinals (config order, as the driver numbers
// them); a peer copy between PCIe domains is staged, by default in the source's socket.
std::vector<BatchStreamOp> batch_ops(const PlatformCfg& pf, const Topology& topo,
                                     const std::vector<AppCfg::BatchStreamCfg>& streams);
// A batch app's distinct batch operations as ops, and the streams bandwidth allocation
// reserves for: every stream of every batch app of the config (the system's real-time
// tasks share one static allocation, §2.4), each once.
struct BatchProgram {
  std::vector<std::vector<BatchStreamOp>> batches;
  std::vector<int> program;
  std::shared_ptr<const std::vector<BatchStreamOp>> reserved;
};
// One per app (empty for apps that are not batch apps).
std::vector<BatchProgram> batch_programs(const PlatformCfg& pf, const Topology& topo, const std::vector<AppCfg>& apps);

}  // namespace arbsim
