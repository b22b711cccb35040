// The forest the speed benchmarks share (flow_scale_bench, fabric_bench): root complexes of
// 16 GPUs each, under two switches of eight, every link Gen4 x16 by the platform's defaults;
// the memory of each root complex 64 GB/s. Not a test: bench/ only.
#pragma once
#include <string>

namespace arbsim::bench {

// The YAML of its `nodes:` and `links:` entries (GPUs named gpu0 .. gpuN-1).
inline void forest(int gpus, std::string& nodes, std::string& links) {
  for (int g = 0; g < gpus; ++g) {
    const int rc = g / 16, sw = g / 8;
    if (g % 16 == 0) nodes += "    - {name: rc" + std::to_string(rc) + ", type: root_complex, memory: {bandwidth_GBps: 64}}\n";
    if (g % 8 == 0) {
      nodes += "    - {name: sw" + std::to_string(sw) + ", type: switch}\n";
      links += "    - {up: rc" + std::to_string(rc) + ", down: sw" + std::to_string(sw) + "}\n";
    }
    nodes += "    - {name: gpu" + std::to_string(g) + ", type: gpu}\n";
    links += "    - {up: sw" + std::to_string(sw) + ", down: gpu" + std::to_string(g) + "}\n";
  }
}

}  // namespace arbsim::bench
