#include "platforms/model_notes.h"
#include <cstdio>
#include <string>
#include <variant>
#include "platforms/topology/topology.h"

namespace arbsim {

namespace {

std::string gbps(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

// A peer app between GPUs of two PCIe domains (their route crosses a raw processor
// interconnect: seed 002 §2.1) moves its copies as peer writes over that link; a batch app's
// peer stream stages the same copy through host memory, as such platforms do.
void cross_domain_peers(const Scenario& s, std::vector<FidelityNote>& notes) {
  const PlatformCfg& pf = s.config.platform;
  for (std::size_t k = 0; k < s.config.apps.size(); ++k) {
    const auto* st = std::get_if<StreamParams>(&s.config.apps[k].params);
    if (!st || st->peer.empty()) continue;
    const int from = s.topo.gpus.at(static_cast<std::size_t>(s.units.at(static_cast<std::size_t>(s.unit_of(st->gpu))).gpu));
    const int to = s.topo.gpus.at(static_cast<std::size_t>(s.units.at(static_cast<std::size_t>(s.unit_of(st->peer))).gpu));
    if (same_pcie_domain(pf, s.topo, from, to)) continue;
    notes.push_back({"fabric",
                     "peer copies " + st->gpu + " -> " + st->peer + " across PCIe domains (a raw link between them)",
                     "moved as peer writes over the processor interconnect; platforms of separate PCIe domains stage "
                     "such a copy through host memory (seed 002 §2.1), as a batch app's peer stream does "
                     "(docs/batch-method.md): use one for the staged timing",
                     {static_cast<uint32_t>(k + 1)}});
  }
}

}  // namespace

std::vector<FidelityNote> model_notes(const Scenario& s) {
  const PlatformCfg& pf = s.config.platform;
  std::vector<FidelityNote> notes;
  cross_domain_peers(s, notes);
  bool pushes = false;  // (a GPU may push from another socket's memory: `host`, every root complex counts)
  for (const int g : s.topo.gpus) pushes = pushes || pf.nodes[g].gpu.h2d_mode == H2dMode::HostPush;
  if (!pushes) return notes;
  for (const int rc : s.topo.rcs) {
    const NodeCfg& n = pf.nodes[rc];
    double down = 0;  // what its root ports carry down, wire bytes per ns
    for (const LinkDir& d : s.walk)
      if (d.link_index >= 0 && !d.upward && d.from == n.name) down += d.egress.link.gbytes_per_s;
    if (n.memory.bandwidth_GBps >= down) continue;
    notes.push_back({n.name + ".memory",
                     "h2d_mode: push with memory.bandwidth_GBps " + gbps(n.memory.bandwidth_GBps) +
                         ", below the " + gbps(down) + " GB/s its root ports carry down",
                     "pushed copies are read by the root complex's DMA engines inside it and do not cross its memory "
                     "port: neither its bandwidth nor its read latency bounds or delays them (reads from memory, by "
                     "GPUs and devices, do); set h2d_mode: read for a memory-bound host",
                     {}});
  }
  return notes;
}

}  // namespace arbsim
