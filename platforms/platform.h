// A platform elaborated from a Config: every node of the topology as a SystemC module,
// every link bound in both directions, routing tables filled in from the tree, the host
// driver, and the apps. Any tree the config describes is wired the same way.
#pragma once
#include <memory>
#include <string>
#include <vector>
#include "models/common/transfer_tracker.h"
#include "models/gpu/gpu.h"
#include "models/host/driver.h"
#include "models/pcie/switch.h"
#include "platforms/config.h"
#include "platforms/topology.h"
#include "testbenches/app.h"

namespace arbsim {

// One direction of one link, seen from its transmitter.
struct LinkPortInfo {
  std::string link, direction, from, to;
  EgressPort* port = nullptr;
};

class Platform : public FabricControl {
 public:
  explicit Platform(const Config& cfg);
  void trace(sc_core::sc_trace_file* tf);
  void finish();  // closes state and stall accounting at the end of simulation

  const Config& config() const { return cfg_; }
  const std::vector<LinkPortInfo>& link_ports() const { return link_ports_; }
  const std::vector<Gpu*>& gpus() const { return gpus_; }
  const std::vector<std::unique_ptr<App>>& apps() const { return apps_; }
  TransferTracker& tracker() { return tracker_; }
  Driver& driver() { return *driver_; }
  bool apps_finished() const;

  // FabricControl (for the driver's TC policy)
  void set_tc_map(const std::array<uint8_t, kNumTcs>& vc8) override;
  uint64_t delivered_bytes(uint64_t transfer) const override { return tracker_.delivered(transfer); }
  double now_ns() const override { return sc_core::sc_time_stamp().to_seconds() * 1e9; }

 private:
  FabricNode* make_node(int i);
  std::vector<PortSpec> port_specs(int i) const;
  int host_engines(int rc) const;
  PortSpec link_port(int node, const PortRef& pr) const;
  void bind_ports(int i);
  void bind(FabricNode& a, int pa, FabricNode& b, int pb);
  void fill_routes(int i);
  void make_driver();
  std::unique_ptr<TcPolicy> make_policy() const;
  ArbiterSpec policy_vc_arbiter(const ArbiterSpec& configured) const;
  void make_apps();
  int gpu_ordinal(const std::string& name) const;

  Config cfg_;
  Topology topo_;
  TransferTracker tracker_;
  std::vector<FabricNode*> node_;           // [config node] its module
  std::vector<Endpoint*> memory_;           // [config node] a root complex's host memory
  std::vector<std::unique_ptr<FabricNode>> owned_;
  std::vector<Gpu*> gpus_;
  std::vector<std::string> gpu_names_;
  std::vector<LinkPortInfo> link_ports_;
  std::unique_ptr<Driver> driver_;
  std::vector<std::unique_ptr<App>> apps_;
};

}  // namespace arbsim
