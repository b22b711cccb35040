// A run's scenario: the config and its topology, built once, and what every part of the
// simulator walks instead of rebuilding it - the fabric's sites (nodes and host memories),
// every link direction once with its port settings (the ONE link walk: the packet fabric's
// ports, the flow fabric's edges, the batch model's graph and results.json's `links` all
// iterate it, in its order), and the table of DMA engines (whose ids the batch model and
// both fabrics share). No SystemC.
#pragma once
#include <string>
#include <utility>
#include <vector>
#include "models/pcie/port_config.h"
#include "platforms/config/config.h"
#include "platforms/topology/topology.h"

namespace arbsim {

// One node of the fabric as both fidelities build it: a config node, or a root complex's
// host memory (a completer on the root complex's internal port).
struct Site {
  std::string name;
  int node = -1;               // its config node (a host memory: its root complex's)
  bool memory = false;
  int endpoint = -1;           // endpoint index (a GPU, a device, a host memory), or -1
  std::vector<int> out, in;    // [port] the walk's direction leaving / arriving at the port
  std::vector<Route> routes;   // a crossbar's routes to endpoint ranges (models/pcie/switch.h)
  int default_port = -1;       // a crossbar's upstream port (-1 at the top)
};

// One direction of a link, or of a root complex's memory port, seen from its transmitter.
struct LinkDir {
  std::string link, direction, from, to;  // as results.json names them
  int link_index = -1;                    // into PlatformCfg::links; -1: a memory port
  bool upward = false;
  int from_site = -1, from_port = -1, to_site = -1, to_port = -1;
  EgressConfig egress;                    // the transmitter's port, arbiters as configured
  IngressConfig ingress;                  // the receiver's port
  // "from->to": how traces, filters, the flow log and results.json's links[].name call it.
  std::string arrow_name() const { return from + "->" + to; }
  // Whether a --trace-filter glob (fnmatch: `sw0->*`, `*->rc0`) picks it.
  bool matches(const std::string& glob) const;
};

// A DMA engine: a GPU's copy engine, a root complex's host DMA engine or a device's engine.
struct EngineSlot {
  int node = -1;   // its config node
  int index = 0;   // among that node's engines
  int tags = 0;    // outstanding reads
};

// What apps address and the driver numbers: a whole GPU, or one MIG instance of a split GPU
// (seed 001 §3.1): its own copy engines and SMs, the GPU's one link. Without MIG, unit k is
// GPU ordinal k.
struct GpuUnit {
  std::string name;       // "gpu0", or "gpu0/mig1"
  int gpu = -1;           // GPU ordinal
  int instance = -1;      // MIG instance; -1: the whole GPU
  int first_engine = 0;   // its first copy engine among the GPU's
  int slices = 0;         // MIG compute slices (0: the whole GPU)
  SmParams sm;
};

// Where driver.share_control (pcie_by: wrr) sets weights (platforms/topology/share_points.h).
struct WeightPoint {
  int dir = -1;                                    // Scenario::walk index of the egress
  std::vector<int> base;                           // its configured weights, one per slot
  std::vector<std::pair<std::string, int>> steers; // (app name, slot) whose weight follows the app's share
};

struct Scenario {
  Config config;
  Topology topo;
  std::vector<Site> sites;        // config nodes in order, then host memories in root-complex order
  std::vector<LinkDir> walk;      // per node in order, its links downward (down, up) and its memory port
  std::vector<EngineSlot> engines;
  std::vector<GpuUnit> units;     // GPUs in config order, each split one as its instances
  std::vector<WeightPoint> wrr_points;  // share control by WRR weights; empty without it

  const PlatformCfg& platform() const { return config.platform; }
  int gpu_count() const { return static_cast<int>(topo.gpus.size()); }
  // Engine ids (indices into `engines`).
  int gpu_engine(int gpu_ordinal, int e) const;
  // The unit an app's `gpu` names ("gpu0", "gpu0/mig1"), or -1.
  int unit_of(const std::string& ref) const;
  int host_engine(int rc_node, int slot) const;
  int device_engine(int node, int e) const;
  int memory_site(int rc_node) const;
  // Eq. 3's default BW (seed 000 §3.3): what the first GPU's link moves upward for large
  // writes (pcie-bench's write model for PCIe, the rate of a raw link).
  double first_gpu_link_write_GBps() const { return gpu_link_write_GBps(0); }
  // The same for GPU `gpu_ordinal`'s own link.
  double gpu_link_write_GBps(int gpu_ordinal) const;

 private:
  friend Scenario make_scenario(Config cfg);
  std::vector<int> first_engine_;  // [config node] its first engine id, or -1
};

// Checks what crosses elements (topology.h, arbitration.h) and builds the scenario.
// Throws ConfigError.
Scenario make_scenario(Config cfg);
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides);
// For YAML text (tests and tools); `name` stands for the file in messages and includes
// resolve against the current directory.
Scenario load_scenario_text(const std::string& yaml, const std::vector<std::string>& overrides = {},
                            const std::string& name = "<config>");

}  // namespace arbsim
