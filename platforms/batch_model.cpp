#include "platforms/batch_model.h"
#include <algorithm>
#include <memory>
#include "models/flow/max_min.h"
#include "platforms/flow_graph.h"

namespace arbsim {

namespace {

std::vector<int> gpu_nodes(const PlatformCfg& pf) {
  std::vector<int> v;
  for (std::size_t i = 0; i < pf.nodes.size(); ++i)
    if (pf.nodes[i].type == "gpu") v.push_back(static_cast<int>(i));
  return v;
}

// The copy the driver would run for `op`, in the flow model's terms (as platform_flow.cpp
// places the engines: a GPU's copy engines at the GPU, host DMA engines at the root complex).
flow::TransferSpec transfer_of(const PlatformCfg& pf, const Topology& topo, const FlowGraph& g,
                               const std::vector<int>& gpus, const BatchStreamOp& op) {
  const int gpu = gpus.at(op.gpu);
  const int rc = op.host >= 0 ? root_complexes(pf).at(op.host) : topo.host_of[gpu];
  const int memory = g.node_of_endpoint.at(topo.endpoint_of_node[rc]);
  flow::TransferSpec t;
  t.bytes = op.bytes;
  t.tags = pf.nodes[gpu].tags;
  if (op.dir == CopyDir::H2D && pf.nodes[gpu].h2d_mode == H2dMode::HostPush) {
    t.requester = rc;
    t.remote = gpu;
  } else {
    t.read = op.dir == CopyDir::H2D;
    t.requester = gpu;
    t.remote = memory;
  }
  return t;
}

}  // namespace

BatchModel make_batch_model(const PlatformCfg& pf, const Topology& topo) {
  auto g = std::make_shared<FlowGraph>(build_flow_graph(pf, topo));
  const flow::FabricParams params = flow_fabric_params(pf);
  BatchModel m;
  m.capacity = g->net.capacities();
  m.stream = [g, params, pf, topo, gpus = gpu_nodes(pf)](const BatchStreamOp& op) {
    BatchStream s;
    s.bytes = static_cast<double>(op.bytes);
    s.kernel_ns = op.kernel_ns;
    // Streams of one GPU and direction share that GPU's copy engine (§3.2, case 1).
    s.dma_engine = op.gpu * 2 + (op.dir == CopyDir::H2D ? 0 : 1);
    if (op.bytes == 0) return s;
    const flow::TransferPlan plan = flow::plan_transfer(g->net, params, transfer_of(pf, topo, *g, gpus, op));
    for (const flow::Hop& h : plan.flow.path) {
      s.path.push_back(h.edge);
      s.weights.push_back(h.weight);
    }
    s.latency_ns = plan.latency_ns;
    return s;
  };
  const std::vector<double> capacity = m.capacity;
  m.rates_of = [capacity](const std::vector<BatchStream>& streams) {
    std::vector<flow::FlowSpec> flows;
    for (const BatchStream& s : streams) {
      flow::FlowSpec f;
      for (std::size_t k = 0; k < s.path.size(); ++k) f.path.push_back({s.path[k], s.weights[k]});
      flows.push_back(f);
    }
    return flow::max_min_rates(capacity, flows);
  };
  return m;
}

std::vector<BatchStreamOp> batch_ops(const PlatformCfg& pf, const AppCfg& app) {
  const std::vector<int> gpus = gpu_nodes(pf);
  std::vector<BatchStreamOp> ops;
  for (const AppCfg::BatchStreamCfg& s : app.streams) {
    const int node = node_index(pf, s.gpu);
    const int ordinal = static_cast<int>(std::find(gpus.begin(), gpus.end(), node) - gpus.begin());
    ops.push_back({ordinal, s.direction, s.bytes, s.kernel_ns, s.host_rc});
  }
  return ops;
}

}  // namespace arbsim
