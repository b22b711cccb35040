#include "platforms/topology/batch_model.h"
#include <algorithm>
#include <map>
#include <memory>
#include "models/flow/max_min.h"
#include "models/host/engine_choice.h"
#include "platforms/topology/flow_graph.h"

namespace arbsim {

namespace {

// What the model needs to turn an op into flows: the scenario and its flow network.
struct ModelCtx {
  Scenario s;
  FlowGraph g;
  flow::FabricParams params;

  // Ops name GPUs by the driver's unit numbers; batch apps run on whole GPUs (no MIG
  // instances: platforms/config/parse_apps.cpp), so a unit is one GPU.
  int ordinal(int unit) const { return s.units.at(unit).gpu; }
  int node(int unit) const { return s.topo.gpus.at(ordinal(unit)); }
  const NodeCfg& gpu_cfg(int unit) const { return s.platform().nodes[node(unit)]; }
  int memory_of(int rc_node) const { return g.node_of_endpoint.at(s.topo.endpoint_of_node[rc_node]); }
  int host_rc(const BatchStreamOp& op) const {
    return op.host >= 0 ? s.topo.rcs.at(op.host) : s.topo.host_of[node(op.gpu)];
  }
  EngineChoice choice(CopyDir dir, int unit) const {
    const GpuParams& p = gpu_cfg(unit).gpu;
    return choose_engine(dir, p.h2d_mode, p.copy_engines);
  }
  // The engine id the driver's rule picks for a copy of GPU `unit` using `rc_node`'s memory.
  int engine(CopyDir dir, int unit, int rc_node) const {
    const EngineChoice c = choice(dir, unit);
    return c.host_dma ? s.host_engine(rc_node, host_dma_slot(s.topo, node(unit)))
                      : s.gpu_engine(ordinal(unit), c.gpu_engine);
  }
  int compute_engine(int unit) const { return -1 - unit; }

  // One copy between a GPU and host memory (or, dir P2P, from a GPU to a peer GPU).
  BatchTransfer transfer(CopyDir dir, int unit, int rc_node, int peer, double bytes) const {
    const int gpu = node(unit);
    const EngineChoice c = choice(dir, unit);
    flow::TransferSpec t;
    t.bytes = static_cast<uint64_t>(bytes);
    t.tags = s.engines.at(engine(dir, unit, rc_node)).tags;
    if (c.host_dma) {
      t.requester = rc_node;
      t.remote = gpu;
    } else {
      t.read = c.kind == CopyKind::Read;
      t.requester = gpu;
      t.remote = dir == CopyDir::P2P ? node(peer) : memory_of(rc_node);
    }
    const flow::TransferPlan plan = flow::plan_transfer(g.net, params, t);
    BatchTransfer b;
    b.bytes = bytes;
    for (const flow::Hop& h : plan.flow.path) {
      b.path.push_back(h.edge);
      b.weights.push_back(h.weight);
    }
    b.latency_ns = plan.latency_ns;
    b.cap = plan.flow.cap;
    b.credit_limited = !plan.credit_loops.empty();
    return b;
  }
};

// Max-min fair rates of transfers moving together over the graph.
std::vector<double> max_min_of(const std::vector<double>& capacity, const std::vector<const BatchTransfer*>& moving) {
  std::vector<flow::FlowSpec> flows;
  for (const BatchTransfer* t : moving) {
    flow::FlowSpec f;
    for (std::size_t k = 0; k < t->path.size(); ++k) f.path.push_back({t->path[k], t->weights[k]});
    f.cap = t->cap;
    flows.push_back(f);
  }
  return flow::max_min_rates(capacity, flows);
}

// A staged copy as one pipelined transfer (staged_copy.h): it loads both stages' edges at
// its rate, adds both stages' latencies, and moves one staging buffer more than its bytes:
// the first chunk's GPU->CPU and the last one's CPU->GPU do not overlap, each at the
// pipeline's rate (whatever contention or pacing sets it to).
BatchTransfer staged_transfer(const ModelCtx& c, const BatchStreamOp& op, int rc_node) {
  const BatchTransfer out = c.transfer(CopyDir::D2H, op.gpu, rc_node, -1, static_cast<double>(op.bytes));
  const BatchTransfer in = c.transfer(CopyDir::H2D, op.peer, rc_node, -1, static_cast<double>(op.bytes));
  std::map<int, double> load;
  for (const BatchTransfer* t : {&out, &in})
    for (std::size_t k = 0; k < t->path.size(); ++k) load[t->path[k]] += t->weights[k];
  BatchTransfer st;
  st.bytes = static_cast<double>(op.bytes + std::min<uint64_t>(kStagingChunkBytes, op.bytes));
  for (const auto& [edge, w] : load) {
    st.path.push_back(edge);
    st.weights.push_back(w);
  }
  st.cap = std::min(out.cap, in.cap);
  st.latency_ns = out.latency_ns + in.latency_ns;
  return st;
}

BatchStream stream_of(const ModelCtx& c, const BatchStreamOp& op) {
  BatchStream st;
  st.kernel_ns = op.kernel_ns;
  st.compute = op.gpu;
  // A GPU runs its kernels one at a time (GpuCompute), so streams with kernels on one GPU
  // are merged as well: the kernels run one after another there too.
  if (op.kernel_ns > 0) st.engines.push_back(c.compute_engine(op.gpu));
  if (op.bytes == 0) return st;
  const int rc = c.host_rc(op);
  if (op.staged) {
    st.transfers.push_back(staged_transfer(c, op, rc));
    st.engines.insert(st.engines.end(), {c.engine(CopyDir::D2H, op.gpu, rc), c.engine(CopyDir::H2D, op.peer, rc)});
  } else {
    st.transfers.push_back(c.transfer(op.dir, op.gpu, rc, op.peer, static_cast<double>(op.bytes)));
    st.engines.push_back(c.engine(op.dir, op.gpu, rc));
  }
  return st;
}

}  // namespace

BatchModel make_batch_model(const Scenario& s) {
  auto c = std::make_shared<ModelCtx>(ModelCtx{s, build_flow_graph(s), flow_fabric_params(s.platform())});
  BatchModel m;
  m.capacity = c->g.net.capacities();
  const std::vector<double> capacity = m.capacity;
  m.stream = [c](const BatchStreamOp& op) { return stream_of(*c, op); };
  m.rates = [capacity](const std::vector<const BatchTransfer*>& moving) { return max_min_of(capacity, moving); };
  return m;
}

std::vector<BatchStreamOp> batch_ops(const Scenario& s, const std::vector<BatchStreamCfg>& streams) {
  const PlatformCfg& pf = s.platform();
  auto unit = [&](const std::string& name) { return s.unit_of(name); };
  std::vector<BatchStreamOp> ops;
  for (const BatchStreamCfg& st : streams) {
    BatchStreamOp op{unit(st.gpu), st.direction, st.bytes, st.kernel_ns, st.host_rc};
    if (st.direction == CopyDir::P2P) {
      const int src = node_index(pf, st.gpu), dst = node_index(pf, st.peer);
      op.peer = unit(st.peer);
      op.staged = !same_pcie_domain(pf, s.topo, src, dst);
      // Staging memory: the one named, else the source GPU's socket.
      if (op.staged && op.host < 0) op.host = s.topo.rc_ordinal[s.topo.host_of[src]];
    }
    ops.push_back(op);
  }
  return ops;
}

std::vector<BatchProgram> batch_programs(const Scenario& s) {
  const std::vector<AppCfg>& apps = s.config.apps;
  std::vector<BatchProgram> out(apps.size());
  auto all = std::make_shared<std::vector<BatchStreamOp>>();
  for (std::size_t a = 0; a < apps.size(); ++a) {
    const auto* b = std::get_if<BatchParams>(&apps[a].params);
    if (!b) continue;
    for (const auto& streams : b->batches) {
      out[a].batches.push_back(batch_ops(s, streams));
      all->insert(all->end(), out[a].batches.back().begin(), out[a].batches.back().end());
    }
    out[a].program = b->program;
    out[a].reserved = all;
  }
  return out;
}

}  // namespace arbsim
