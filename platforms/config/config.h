// The configuration of one run, typed: the platform (nodes, links, fabric settings), the
// apps that drive traffic through it, the driver's policy and the simulation settings.
// load_config() reads it from YAML and checks every element on its own (docs/config.md);
// the checks across elements (the graph, references between them, arbiters against their
// requester counts) are the topology floor's (platforms/topology/scenario.h), and report
// through each element's Origin. Defaults come from the models' Params structs. No SystemC.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>
#include "models/gpu/gpu_params.h"
#include "models/pcie/arbiters/arbiter.h"
#include "models/pcie/credits.h"
#include "models/pcie/link_timing.h"
#include "models/pcie/fabric_params.h"
#include "models/pcie/tc_vc_map.h"
#include "platforms/config/node_types.h"
#include "platforms/config/origin.h"
#include "testbenches/app_params.h"

namespace arbsim {

struct ArbitrationCfg {
  ArbiterSpec vc;    // across VCs of an egress port
  ArbiterSpec port;  // across ingress ports (requesters) inside one VC
};

struct LinkCfg {
  Origin origin;
  std::string name, up, down;
  bool raw = false;                  // raw: bandwidth per direction, no TLP overhead
  PcieLinkParams pcie;
  double up_GBps = 0, down_GBps = 0; // raw links
  // PCIe links: effective-bandwidth ceilings per direction (payload GB/s of full-size data
  // TLPs), 0 = none. Seed 002 §4.1: H2D and D2H differ on real machines.
  double max_up_GBps = 0, max_down_GBps = 0;
  double latency_ns = 0;
  int vcs = 1;
  TcVcMap tc_to_vc{};
  CreditLimits credits;
  double fc_latency_ns = 0;
  std::optional<ArbitrationCfg> arb_up, arb_down;  // at the egress sending up / down
};

enum class NodeKind { RootComplex, IoHub, Switch, Gpu, Endpoint };
const char* to_string(NodeKind k);  // as configs write it: root_complex, io_hub, switch, gpu

struct NodeCfg {
  Origin origin;
  std::string name;
  NodeKind kind = NodeKind::Switch;
  SwitchParams crossbar;             // root complex, I/O hub, switch
  HostMemoryParams memory;           // root complex
  GpuParams gpu;                     // GPU
  EndpointCfg endpoint;              // kind Endpoint: a registered endpoint type (node_types.h)
  std::optional<ArbitrationCfg> arbitration;
  bool is(NodeKind k) const { return kind == k; }
  // The written type's name: to_string(kind), or a registered endpoint type's.
  std::string type_name() const;
};

struct PlatformCfg {
  Origin origin;
  std::string name;
  int mps = 256, mrrs = 512, completion_bytes = 256;
  DllpModel dllp = DllpModel::PcieBench;
  H2dMode h2d_mode = H2dMode::DeviceRead;  // default of every GPU
  std::string arbiter_impl = "cpp";        // of the arbiters the platform builds itself
  ArbitrationCfg arbitration;
  std::vector<NodeCfg> nodes;
  std::vector<LinkCfg> links;
  const NodeCfg* node(const std::string& name) const;
};
// The index of the node named `name` in pf.nodes, or -1.
int node_index(const PlatformCfg& pf, const std::string& name);

// A GPU as apps name it: a GPU node ("gpu0") or one of its MIG instances ("gpu0/mig1",
// seed 001 §3.1). instance -1: the whole GPU; -2: the part after '/' is not mig<i>.
struct GpuRef {
  std::string node;
  int instance = -1;
};
GpuRef split_gpu_ref(const std::string& ref);
// The node of the GPU `ref` names (an instance's GPU), or -1.
int gpu_node_index(const PlatformCfg& pf, const std::string& ref);

struct AppCfg {
  Origin origin;
  std::string name;
  AppTiming timing;
  AppParams params;
  const char* kind() const { return app_kind_name(params); }
  const std::string& gpu() const { return app_gpu(params); }
};

// `driver:` the host driver's TC policy (docs/host-policies.md).
enum class PolicyKind { Static, RoundRobin, SmallestFirst, LargestFirst, DeadlineAware };
const char* to_string(PolicyKind p);  // static, rr, priority_s, priority_l, qos

// driver.share_control: seed 003 §3.4's AIMD controller in the loop of periodic apps; it
// acts on their SM shares (MPS active-thread percentage) or their PCIe rates.
struct ShareControlCfg {
  bool on = false;                 // kind: none | aimd
  bool pcie = false;               // acts_on: sm | pcie
  bool wrr = false;                // pcie_by: rate (paced copies) | wrr (port-arbiter weights)
  double decrease_factor = 0.5, increase_pct = 1.0, min_share_pct = 1.0;
  double pcie_GBps = 0;            // a PCIe share of 100 %; 0 = the first GPU link's MWr bandwidth
};

struct DriverCfg {
  PolicyKind policy = PolicyKind::Static;
  int starvation_threshold = 0;    // x, on the strict-priority VC arbiters the policy sets
  double bandwidth_GBps = 0;       // BW of Eq. 3; 0 = the first GPU link's MWr bandwidth
  double qos_check_ns = 1000;      // how often QoS deadlines are re-predicted
  double qos_margin_ns = 2000;     // escalate this long before Eq. 3 predicts the miss
  ShareControlCfg share_control;
};

// How the fabric is simulated: TLP by TLP, or as fluid flows at arbitrated rates
// (docs/architecture.md, "Flow-level mode").
enum class Fidelity { Packet, Flow };
const char* to_string(Fidelity f);

struct SimCfg {
  double time_ns = 0;                // 0 = until all apps finish
  uint64_t seed = 1;
  std::string log_level = "info";
  Fidelity fidelity = Fidelity::Packet;
  double tlp_age_limit_ns = 1e7;     // a TLP older than this is reported (run_checks)
  double warmup_ns = 0;              // statistics count from here (docs/results.md, "Warm-up")
  double stats_period_ns = 0;        // a time series every period; 0 = none ("Time series")
};

// sim.stats_period_ns: samples in one run (the series is kept in memory until the run ends:
// ~30 B per row, one row per link direction and figure, per VC and per app).
constexpr int64_t kMaxSeriesSamples = 100000;
// ... and at most this much CSV, whatever the platform's size: a thousand-GPU platform makes
// thousands of rows per sample, and 10^5 such samples would not fit in memory.
constexpr std::size_t kMaxSeriesBytes = std::size_t{1} << 30;

struct Config {
  std::string file;
  PlatformCfg platform;
  std::vector<AppCfg> apps;
  DriverCfg driver;
  SimCfg sim;
  Origin driver_origin;              // for checks across sections (e.g. the policy in flow mode)
  YAML::Node effective;              // the tree with overrides applied and defaults filled in
};

// Loads, applies `overrides` ("dotted.key=value"), checks every element. Throws ConfigError.
Config load_config(const std::string& path, const std::vector<std::string>& overrides);
// The setting each override sets, applied in order to the config at `path`: its dotted path
// with list elements by index, so `apps.bulk.size`, `apps.0.size` and `apps[0].size` give
// one (a sweep's columns: apps/cli/sweep_point.cpp). Throws ConfigError as load_config does.
std::vector<std::string> override_targets(const std::string& path, const std::vector<std::string>& overrides);
// The same for YAML text; `path` names it in messages, includes resolve against `base_dir`.
Config load_config_yaml(const std::string& text, const std::string& path, const std::string& base_dir,
                        const std::vector<std::string>& overrides);

// The effective config as YAML text (config.effective.yaml's content).
std::string effective_yaml(const Config& cfg);
// The same without `platform.defaults`: what the elements run with (two configs that differ
// only in defaults no element takes run alike).
std::string elements_yaml(const Config& cfg);
// The effective config in one canonical form, whatever the input's layout (keys sorted,
// flow style, scalars quoted as written), and its 64-bit FNV-1a hash in 16 hex digits: the
// identity of a run's input (results.json `config_hash`, the key of a sweep point). Not a
// cryptographic hash: it tells configs apart, no more.
std::string canonical_config(const Config& cfg);
std::string config_hash(const Config& cfg);

}  // namespace arbsim
