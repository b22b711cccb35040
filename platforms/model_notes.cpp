#include "platforms/model_notes.h"
#include <cstdio>
#include <string>

namespace arbsim {

namespace {

std::string gbps(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

}  // namespace

std::vector<FidelityNote> model_notes(const Scenario& s) {
  const PlatformCfg& pf = s.config.platform;
  std::vector<FidelityNote> notes;
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
