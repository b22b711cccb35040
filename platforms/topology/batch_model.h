// The batch run-time's view of a scenario (seed 002 §3.2): the flow network of the same
// config (flow_graph.h) gives every stream its path, per-edge weights (wire bytes per
// payload byte) and fixed latency, and the links' capacities; rates of concurrent transfers
// are their max-min fair shares (models/flow/max_min.h). The engines a stream occupies are
// the scenario's engine ids, chosen by the driver's own rule (models/host/engine_choice.h).
// Used by the run-time to compute schedules and by `pcie-arbsim predict`, without
// elaborating SystemC.
#pragma once
#include <vector>
#include "models/batch/batch_model.h"
#include "platforms/topology/scenario.h"

namespace arbsim {

BatchModel make_batch_model(const Scenario& s);
// One batch operation's streams, GPUs as ordinals; a peer copy between PCIe domains is
// staged, by default in the source's socket.
std::vector<BatchStreamOp> batch_ops(const Scenario& s, const std::vector<BatchStreamCfg>& streams);
// One per app (empty for apps that are not batch apps): its distinct batch operations as
// ops, and the streams bandwidth allocation reserves for (every stream of every batch app
// of the config: the system's real-time tasks share one static allocation, §2.4).
std::vector<BatchProgram> batch_programs(const Scenario& s);

}  // namespace arbsim
