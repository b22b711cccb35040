// The resolved configuration of one run: platform (nodes, links, fabric settings), apps
// (traffic testbenches) and simulation settings. Loaded from YAML by load_config(), which
// validates everything (docs/config.md) and throws ConfigError naming file, key and line.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>
#include "models/host/driver.h"
#include "models/pcie/arbiters/arbiter.h"
#include "models/pcie/credits.h"
#include "models/pcie/link_timing.h"

namespace arbsim {

struct ArbitrationCfg {
  ArbiterSpec vc;    // across VCs of an egress port
  ArbiterSpec port;  // across ingress ports (requesters) inside one VC
};

struct LinkCfg {
  std::string name, up, down, key;   // key: "platform.links[i]" for messages
  bool raw = false;                  // raw: bandwidth per direction, no TLP overhead
  PcieLinkParams pcie;
  double up_GBps = 0, down_GBps = 0; // raw links
  // PCIe links: effective-bandwidth ceilings per direction (payload GB/s of full-size data
  // TLPs), 0 = none. Seed 002 §4.1: H2D and D2H differ on real machines.
  double max_up_GBps = 0, max_down_GBps = 0;
  double latency_ns = 0;
  int vcs = 1;
  std::array<uint8_t, kNumTcs> tc_to_vc{};
  CreditLimits credits;
  double fc_latency_ns = 0;
  std::optional<ArbitrationCfg> arb_up, arb_down;  // at the egress sending up / down
};

struct NodeCfg {
  std::string name, type, key;       // type: root_complex | io_hub | switch | gpu
  double latency_ns = 0;             // switch / root-complex crossbar
  bool store_and_forward = false;
  bool voq = false;                  // switch/RC ingress: virtual output queues
  double memory_GBps = 0, memory_read_latency_ns = 0;  // root complex host memory
  double memory_write_GBps = 0;                        // DMA writes into it (default: memory_GBps)
  int copy_engines = 2, tags = 256;  // gpu
  double read_latency_ns = 0;        // gpu as completer (peer reads)
  H2dMode h2d_mode = H2dMode::DeviceRead;
  std::optional<ArbitrationCfg> arbitration;
};

struct PlatformCfg {
  std::string name;
  int mps = 256, mrrs = 512, completion_bytes = 256;
  DllpModel dllp = DllpModel::PcieBench;
  H2dMode h2d_mode = H2dMode::DeviceRead;  // default of every GPU
  ArbitrationCfg arbitration;
  std::vector<NodeCfg> nodes;
  std::vector<LinkCfg> links;
  const NodeCfg* node(const std::string& name) const;
};

struct AppCfg {
  std::string name, type, key;       // type: copy_exec | stream | peer
  std::string gpu, peer;
  std::string host;                  // copy_exec/stream: a root complex whose memory is used
  int host_rc = -1;                  // its ordinal among root complexes; -1 = the GPU's nearest
  CopyDir direction = CopyDir::H2D;
  uint64_t h2d_bytes = 0, d2h_bytes = 0;
  double kernel_ns = 0;
  int64_t iterations = 0;            // 0 = until duration_ns
  double duration_ns = 0;
  double start_ns = 0;
  int tc = 0;
  double deadline_ns = 0;            // per-transfer deadline (QoS task), 0 = none
  // batch (seed 002): a program of batch operations (a single one: `streams`), run `count` times
  struct BatchStreamCfg {
    std::string gpu, host, peer;       // peer: a GPU-to-GPU copy from `gpu` to `peer`
    int host_rc = -1;                  // root-complex ordinal of `host`; -1 = the GPU's own
    CopyDir direction = CopyDir::H2D;  // H2D, D2H, or P2P when `peer` is set
    uint64_t bytes = 0;
    double kernel_ns = 0;
  };
  std::vector<std::vector<BatchStreamCfg>> batches;  // the app's distinct batch operations
  std::vector<int> program;            // indices into `batches` in issue order, repeats unrolled
  std::string batch_method = "batch";  // batch | bandwidth_allocation | time_division
  double period_ns = 0;                 // 0 = the next batch when one completes
  // stream / peer
  bool uniform = false;
  uint64_t size = 0, size_min = 0, size_max = 0;
  double rate_GBps = 0;              // 0 = back to back
  int depth = 2;                     // commands kept queued when back to back
  int64_t count = 0;                 // 0 = until duration_ns
};

// `driver:` the host driver's TC policy (seed 000: docs/host-policies.md).
struct DriverCfg {
  std::string policy = "static";   // static | rr | priority_s | priority_l | qos
  int starvation_threshold = 0;    // x, on the strict-priority VC arbiters the policy sets
  double bandwidth_GBps = 0;       // BW of Eq. 3; 0 = the first GPU link's MWr bandwidth
  double qos_check_ns = 1000;      // how often QoS deadlines are re-predicted
  double qos_margin_ns = 2000;     // escalate this long before Eq. 3 predicts the miss
};

// How the fabric is simulated: TLP by TLP, or as fluid flows with max-min fair rates
// (docs/architecture.md, "Flow-level mode").
enum class Fidelity { Packet, Flow };

struct SimCfg {
  double time_ns = 0;                // 0 = until all apps finish
  double tlp_age_limit_ns = 1e7;     // a TLP older than this is reported (run_checks)
  uint64_t seed = 1;
  std::string log_level = "info";
  Fidelity fidelity = Fidelity::Packet;
};

struct Config {
  std::string file;
  PlatformCfg platform;
  std::vector<AppCfg> apps;
  DriverCfg driver;
  SimCfg sim;
  YAML::Node effective;              // the tree with overrides applied and defaults filled in
};

// The effective config as YAML text (config.effective.yaml's content), and its 64-bit
// FNV-1a hash in 16 hex digits: the identity of a run's input (results.json `config_hash`,
// the key of a sweep point). Not a cryptographic hash: it tells configs apart, no more.
std::string effective_yaml(const Config& cfg);
std::string config_hash(const Config& cfg);

// Loads, applies `overrides` ("dotted.key=value"), validates. Throws ConfigError.
Config load_config(const std::string& path, const std::vector<std::string>& overrides);
// The same for YAML text; `path` names it in messages, includes resolve against `base_dir`.
Config load_config_yaml(const std::string& text, const std::string& path, const std::string& base_dir,
                        const std::vector<std::string>& overrides);

}  // namespace arbsim
