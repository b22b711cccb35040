// A platform elaborated from a Config: every node of the topology as a SystemC module,
// every link bound in both directions, routing tables filled in from the tree, the host
// driver, and the apps. Any tree the config describes is wired the same way. With
// sim.fidelity: flow it builds no packet fabric but the flow-level one (flow_graph.h):
// the same driver, apps and GPU compute engines, with flow-level copy engines.
#pragma once
#include <memory>
#include <string>
#include <vector>
#include "models/common/transfer_tracker.h"
#include "models/gpu/gpu.h"
#include "models/gpu/gpu_compute.h"
#include "models/host/driver.h"
#include "models/pcie/switch.h"
#include "platforms/config.h"
#include "platforms/flow_limits.h"
#include "platforms/topology.h"
#include "models/batch/batch_runtime.h"
#include "testbenches/app.h"

namespace arbsim {

// One direction of one link, seen from its transmitter.
struct LinkPortInfo {
  std::string link, direction, from, to;
  EgressPort* port = nullptr;
  int flow_edge = -1;  // flow-level mode: the FlowFabric edge instead of a port
};

struct FlowParts;  // the flow-level mode's fabric and engines (platforms/platform_flow.h)

class Platform : public FabricControl {
 public:
  explicit Platform(const Config& cfg);
  ~Platform() override;
  void trace(sc_core::sc_trace_file* tf);
  void finish();  // closes state and stall accounting at the end of simulation

  const Config& config() const { return cfg_; }
  const std::vector<LinkPortInfo>& link_ports() const { return link_ports_; }
  const std::vector<GpuCompute*>& gpus() const { return gpus_; }
  // A link direction's statistics and VC count, from its egress port or its flow edge.
  const EgressStats& link_stats(const LinkPortInfo& l) const;
  int link_vcs(const LinkPortInfo& l) const;
  const std::vector<std::unique_ptr<App>>& apps() const { return apps_; }
  TransferTracker& tracker() { return tracker_; }
  const TransferTracker& tracker() const { return tracker_; }
  Driver& driver() { return *driver_; }
  bool apps_finished() const;
  // When nothing can happen any more: what is unfinished and what it waits for ("" when
  // everything is done), for the deadlock report.
  std::string stuck_report() const;
  // What the config asks that this fidelity cannot represent (platforms/flow_limits.h).
  const std::vector<FidelityNote>& fidelity_notes() const { return notes_; }

  // FabricControl (for the driver's TC policy)
  void set_tc_map(const std::array<uint8_t, kNumTcs>& vc8) override;
  uint64_t delivered_bytes(uint64_t transfer) const override { return tracker_.delivered(transfer); }
  double now_ns() const override { return sc_core::sc_time_stamp().to_seconds() * 1e9; }

 private:
  void build_packet();
  void build_flow();  // platforms/platform_flow.cpp
  void set_flow_tc_map(const std::array<uint8_t, kNumTcs>& vc8);
  void finish_flow();
  FabricNode* make_node(int i);
  std::vector<PortSpec> port_specs(int i) const;
  int host_engines(int rc) const;
  PortSpec link_port(int node, const PortRef& pr) const;
  void bind_ports(int i);
  void bind(FabricNode& a, int pa, FabricNode& b, int pb);
  void fill_routes(int i);
  void make_driver();
  std::unique_ptr<TcPolicy> make_policy() const;
  double first_gpu_link_write_GBps() const;
  ArbiterSpec policy_vc_arbiter(const ArbiterSpec& configured) const;
  void make_apps();
  BatchRuntime& batch_runtime();
  int gpu_ordinal(const std::string& name) const;

  Config cfg_;
  Topology topo_;
  TransferTracker tracker_;
  std::vector<FabricNode*> node_;           // [config node] its module
  std::vector<Endpoint*> memory_;           // [config node] a root complex's host memory
  std::vector<std::unique_ptr<FabricNode>> owned_;
  std::vector<GpuCompute*> gpus_;           // [gpu ordinal] compute engine and state
  std::vector<std::vector<CopyExecutor*>> gpu_engines_;   // [gpu ordinal] its copy engines
  std::vector<std::vector<CopyExecutor*>> host_engines_;  // [config node] a root complex's DMA engines
  std::unique_ptr<FlowParts> flow_;
  std::unique_ptr<BatchRuntime> batch_runtime_;
  std::vector<std::string> gpu_names_;
  std::vector<LinkPortInfo> link_ports_;
  std::unique_ptr<Driver> driver_;
  std::vector<std::unique_ptr<App>> apps_;
  std::vector<FidelityNote> notes_;
};

}  // namespace arbsim
