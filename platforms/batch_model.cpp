#include "platforms/batch_model.h"
#include <algorithm>
#include <map>
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

// Whether a link between a node and its parent is a processor interconnect (a raw link).
bool raw_uplink(const PlatformCfg& pf, const Topology& topo, int node) {
  for (const PortRef& p : topo.ports[node])
    if (p.upward && p.link >= 0) return pf.links[p.link].raw;
  return false;
}

// Two GPUs are in one PCIe domain when the route between them stays on PCIe: it climbs to
// their lowest common ancestor without crossing a processor interconnect (seed 002 §2.1:
// domains are bridged by the I/O hubs; GPUs in different domains copy via host memory).
bool same_pcie_domain(const PlatformCfg& pf, const Topology& topo, int a, int b) {
  std::vector<int> above_a;
  for (int n = a; n >= 0; n = topo.parent[n]) above_a.push_back(n);
  int lca = b;
  while (lca >= 0 && std::find(above_a.begin(), above_a.end(), lca) == above_a.end()) lca = topo.parent[lca];
  if (lca < 0) return false;  // different trees
  for (int n : {a, b})
    for (; n != lca; n = topo.parent[n])
      if (raw_uplink(pf, topo, n)) return false;
  return true;
}

// What the model needs to turn an op into flows: the platform, its graph and the GPUs.
struct ModelCtx {
  PlatformCfg pf;
  Topology topo;
  std::shared_ptr<FlowGraph> g;
  flow::FabricParams params;
  std::vector<int> gpus, rcs;

  int memory_of(int rc_node) const { return g->node_of_endpoint.at(topo.endpoint_of_node[rc_node]); }
  int host_rc(const BatchStreamOp& op, int gpu_node) const {
    return op.host >= 0 ? rcs.at(op.host) : topo.host_of[gpu_node];
  }
  bool host_push(int gpu_node) const { return pf.nodes[gpu_node].h2d_mode == H2dMode::HostPush; }

  // DMA engines as the driver uses them: a GPU's first copy engine reads H2D data, its last
  // writes D2H and peer data (one engine: both); a pushed H2D copy uses a host DMA engine.
  int h2d_engine(int ordinal, int rc_node) const {
    const int gpu = gpus[ordinal];
    if (!host_push(gpu)) return 2 * ordinal;
    return 2 * static_cast<int>(gpus.size()) + 1024 * rc_ordinal(pf, rc_node) + host_dma_slot(pf, topo, gpu);
  }
  int d2h_engine(int ordinal) const { return 2 * ordinal + (pf.nodes[gpus[ordinal]].copy_engines > 1 ? 1 : 0); }
  int compute_engine(int ordinal) const { return -1 - ordinal; }

  // One copy between a GPU and host memory (or, dir P2P, from a GPU to a peer GPU).
  BatchTransfer transfer(CopyDir dir, int ordinal, int rc_node, int peer, double bytes) const {
    const int gpu = gpus.at(ordinal);
    flow::TransferSpec t;
    t.bytes = static_cast<uint64_t>(bytes);
    t.tags = pf.nodes[gpu].tags;
    if (dir == CopyDir::H2D && host_push(gpu)) {
      t.requester = rc_node;
      t.remote = gpu;
    } else {
      t.read = dir == CopyDir::H2D;
      t.requester = gpu;
      t.remote = dir == CopyDir::P2P ? gpus.at(peer) : memory_of(rc_node);
    }
    const flow::TransferPlan plan = flow::plan_transfer(g->net, params, t);
    BatchTransfer b;
    b.bytes = bytes;
    for (const flow::Hop& h : plan.flow.path) {
      b.path.push_back(h.edge);
      b.weights.push_back(h.weight);
    }
    b.latency_ns = plan.latency_ns;
    b.cap = plan.flow.cap;
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
  BatchTransfer s;
  s.bytes = static_cast<double>(op.bytes + std::min<uint64_t>(kStagingChunkBytes, op.bytes));
  for (const auto& [edge, w] : load) {
    s.path.push_back(edge);
    s.weights.push_back(w);
  }
  s.cap = std::min(out.cap, in.cap);
  s.latency_ns = out.latency_ns + in.latency_ns;
  return s;
}

}  // namespace

BatchModel make_batch_model(const PlatformCfg& pf, const Topology& topo) {
  auto c = std::make_shared<ModelCtx>();
  c->pf = pf;
  c->topo = topo;
  c->g = std::make_shared<FlowGraph>(build_flow_graph(pf, topo));
  c->params = flow_fabric_params(pf);
  c->gpus = gpu_nodes(pf);
  c->rcs = root_complexes(pf);
  BatchModel m;
  m.capacity = c->g->net.capacities();
  const std::vector<double> capacity = m.capacity;
  m.stream = [c](const BatchStreamOp& op) {
    BatchStream s;
    s.kernel_ns = op.kernel_ns;
    s.compute = op.gpu;
    // A GPU runs its kernels one at a time (GpuCompute), so streams with kernels on one GPU
    // are merged as well: the kernels run one after another there too.
    if (op.kernel_ns > 0) s.engines.push_back(c->compute_engine(op.gpu));
    if (op.bytes == 0) return s;
    const int gpu = c->gpus.at(op.gpu);
    const int rc = c->host_rc(op, gpu);
    if (op.staged) {
      s.transfers.push_back(staged_transfer(*c, op, rc));
      s.engines.insert(s.engines.end(), {c->d2h_engine(op.gpu), c->h2d_engine(op.peer, rc)});
    } else {
      s.transfers.push_back(c->transfer(op.dir, op.gpu, rc, op.peer, static_cast<double>(op.bytes)));
      s.engines.push_back(op.dir == CopyDir::H2D ? c->h2d_engine(op.gpu, rc) : c->d2h_engine(op.gpu));
    }
    return s;
  };
  m.rates = [capacity](const std::vector<const BatchTransfer*>& moving) { return max_min_of(capacity, moving); };
  return m;
}

bool needs_staging(const PlatformCfg& pf, const Topology& topo, int src_node, int dst_node) {
  return !same_pcie_domain(pf, topo, src_node, dst_node);
}

std::vector<BatchStreamOp> batch_ops(const PlatformCfg& pf, const Topology& topo,
                                     const std::vector<AppCfg::BatchStreamCfg>& streams) {
  const std::vector<int> gpus = gpu_nodes(pf);
  auto ordinal = [&](const std::string& name) {
    return static_cast<int>(std::find(gpus.begin(), gpus.end(), node_index(pf, name)) - gpus.begin());
  };
  std::vector<BatchStreamOp> ops;
  for (const AppCfg::BatchStreamCfg& s : streams) {
    BatchStreamOp op{ordinal(s.gpu), s.direction, s.bytes, s.kernel_ns, s.host_rc};
    if (s.direction == CopyDir::P2P) {
      op.peer = ordinal(s.peer);
      op.staged = needs_staging(pf, topo, node_index(pf, s.gpu), node_index(pf, s.peer));
      // Staging memory: the one named, else the source GPU's socket.
      if (op.staged && op.host < 0)
        op.host = rc_ordinal(pf, topo.host_of[node_index(pf, s.gpu)]);
    }
    ops.push_back(op);
  }
  return ops;
}

std::vector<BatchProgram> batch_programs(const PlatformCfg& pf, const Topology& topo, const std::vector<AppCfg>& apps) {
  std::vector<BatchProgram> out(apps.size());
  auto all = std::make_shared<std::vector<BatchStreamOp>>();
  for (std::size_t a = 0; a < apps.size(); ++a) {
    if (apps[a].type != "batch") continue;
    for (const auto& streams : apps[a].batches) {
      out[a].batches.push_back(batch_ops(pf, topo, streams));
      all->insert(all->end(), out[a].batches.back().begin(), out[a].batches.back().end());
    }
    out[a].program = apps[a].program;
    out[a].reserved = all;
  }
  return out;
}

}  // namespace arbsim
