// The flow-level half of Platform (sim.fidelity: flow): the flow fabric on the platform's
// graph, a compute engine per GPU, and flow-level copy engines where the packet model has
// DMA engines (each GPU's copy engines, each root complex's host DMA engines), so the
// driver, apps and results work unchanged. Also the accessors that differ by mode.
#include "platforms/flow_graph.h"
#include "platforms/platform.h"
#include "platforms/platform_flow.h"

namespace arbsim {

Platform::~Platform() = default;

namespace {

// A root complex's host DMA engines only push (writes), so their tag count never matters;
// 256 as the packet model gives them (Platform::make_node).
constexpr int kHostEngineTags = 256;

}  // namespace

void Platform::build_flow() {
  const PlatformCfg& pf = cfg_.platform;
  FlowGraph g = build_flow_graph(pf, topo_);
  flow_ = std::make_unique<FlowParts>();
  flow_->fabric = std::make_unique<FlowFabric>("flow_fabric", std::move(g.net), flow_fabric_params(pf),
                                               std::move(g.vcs), std::move(g.node_of_endpoint), tracker_);
  for (const FlowLink& l : g.links) link_ports_.push_back({l.link, l.direction, l.from, l.to, nullptr, l.edge});
  auto engine = [&](int node, int tags) {
    flow_->engines.push_back(std::make_unique<FlowEngine>(*flow_->fabric, node, tags));
    return flow_->engines.back().get();
  };
  for (int i = 0; i < static_cast<int>(pf.nodes.size()); ++i) {
    const NodeCfg& nc = pf.nodes[i];
    if (nc.type == "gpu") {
      flow_->gpus.push_back(std::make_unique<GpuCompute>(nc.name.c_str(), nc.name));
      gpus_.push_back(flow_->gpus.back().get());
      gpu_names_.push_back(nc.name);
      gpu_engines_.emplace_back();
      for (int e = 0; e < nc.copy_engines; ++e) gpu_engines_.back().push_back(engine(i, nc.tags));
    } else if (nc.type == "root_complex") {
      for (int e = 0; e < host_dma_engines(pf, topo_, i); ++e) host_engines_[i].push_back(engine(i, kHostEngineTags));
    }
  }
}

void Platform::set_flow_tc_map(const std::array<uint8_t, kNumTcs>& vc8) { flow_->fabric->set_tc_map(vc8); }

void Platform::finish_flow() { flow_->fabric->finish(); }

const EgressStats& Platform::link_stats(const LinkPortInfo& l) const {
  return l.port ? l.port->stats() : flow_->fabric->edge_stats(l.flow_edge);
}

int Platform::link_vcs(const LinkPortInfo& l) const {
  return l.port ? l.port->config().vcs : flow_->fabric->edge_vcs(l.flow_edge);
}

}  // namespace arbsim
