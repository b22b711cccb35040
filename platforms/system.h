// A system elaborated from a scenario: the GPUs' compute engines, the fabric (packet or
// flow fidelity, behind one interface: fabric.h), the host driver with its TC policy, the
// traffic apps, the devices of registered endpoint types (NICs, NVMe drives, a user's:
// device_registry.h) and, when batch apps run, the batch run-time. It is also what the driver's
// policy programs the fabric through (FabricControl).
#pragma once
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include "models/batch/batch_runtime.h"
#include "models/common/transfer_tracker.h"
#include "models/devices/device.h"
#include "models/gpu/gpu_compute.h"
#include "models/host/driver.h"
#include "platforms/fabric.h"
#include "platforms/topology/scenario.h"
#include "testbenches/app.h"
#include "testbenches/periodic_app.h"
#include "models/common/sim_time.h"

namespace arbsim {

class System : public FabricControl {
 public:
  explicit System(const Scenario& s, const ObserveOptions& observe = {});
  ~System() override;
  void trace(sc_core::sc_trace_file* tf);
  void finish();  // closes state and stall accounting at the end of simulation
  // The end of the warm-up (sim.warmup_ns, docs/results.md "Warm-up"): every statistic
  // results.json reports per app, GPU, device, link and arbiter starts again from now.
  void restart_stats();

  const Scenario& scenario() const { return s_; }
  const Config& config() const { return s_.config; }
  Fabric& fabric() { return *fabric_; }
  const Fabric& fabric() const { return *fabric_; }
  // What neither fidelity represents that the config asks (platforms/model_notes.h).
  const std::vector<FidelityNote>& model_notes() const { return model_notes_; }
  // At a sim.time_ns cut-off (`end_ns`) in a fidelity that follows the packet model's timing
  // only to a share of a copy's time (Fabric::timing_accuracy(): the flow mode's 3 %), the
  // apps with a copy ending that near it, where whether it counts can differ between them.
  std::vector<FidelityNote> cutoff_notes(double end_ns) const;
  // Kernels of several apps submitted to a GPU, or batches issued to the batch runtime, at the
  // same picosecond, one then waiting: an order the model does not define (same_instant_ties.h).
  std::vector<FidelityNote> tie_notes() const;
  // [GPU ordinal] compute engine and state.
  const std::vector<std::unique_ptr<GpuCompute>>& gpus() const { return gpus_; }
  // [app, as the config lists them]
  const std::vector<std::unique_ptr<App>>& apps() const { return apps_; }
  // Devices attached to endpoint nodes, with their config nodes (in node order).
  const std::vector<std::unique_ptr<Device>>& devices() const { return devices_; }
  const std::vector<int>& device_nodes() const { return device_nodes_; }
  TransferTracker& tracker() { return tracker_; }
  const TransferTracker& tracker() const { return tracker_; }
  Driver& driver() { return *driver_; }
  // The VC arbiter the driver's policy set at every egress port, if it sets one.
  const std::optional<ArbiterSpec>& policy_vc_arbiter() const { return options_.vc_arbiter; }
  // What the run observes (--trace, --detect).
  const ObserveOptions& fabric_observe() const { return options_.observe; }
  // When nothing can happen any more: what is unfinished and what it waits for ("" when
  // everything is done), for the deadlock report.
  std::string stuck_report() const;

  // FabricControl (for the driver's TC policy)
  void set_tc_map(const std::array<uint8_t, kNumTcs>& vc8) override { fabric_->set_tc_map(vc8); }
  // Bytes at the destination, counted alike by both fidelities (Fabric::delivered_bytes): not
  // the flow's fluid sent, which counted a fresh copy's bytes on the way as arrived where the
  // packet model does not.
  uint64_t delivered_bytes(uint64_t transfer) const override { return fabric_->delivered_bytes(transfer); }
  void ranking_tie(int first, int second, uint64_t bytes, const std::vector<uint32_t>& flows) override {
    fabric_->note_ranking_tie(s_.units.at(static_cast<std::size_t>(first)).name + " and " +
                                  s_.units.at(static_cast<std::size_t>(second)).name,
                              bytes, flows);
  }
  double now_ns() const override { return sim_now_ns(); }
  std::vector<int> vc_counts() const override;

 private:
  std::vector<FidelityNote> model_notes_;
  std::unique_ptr<TcPolicy> make_policy() const;
  void make_gpus();
  void make_driver(std::unique_ptr<TcPolicy> policy);
  void make_apps();
  void make_devices();
  BatchRuntime& batch_runtime();
  ShareLoop* share_loop();
  void steer_wrr_weights(ShareLoop& loop);
  double pcie_reference_GBps(int unit) const;

  const Scenario s_;
  TransferTracker tracker_;
  FabricOptions options_;
  std::unique_ptr<Fabric> fabric_;
  std::vector<std::unique_ptr<GpuCompute>> gpus_;
  std::unique_ptr<Driver> driver_;
  std::unique_ptr<BatchRuntime> batch_runtime_;
  std::unique_ptr<ShareLoop> share_loop_;
  std::vector<std::unique_ptr<App>> apps_;
  std::vector<std::unique_ptr<Device>> devices_;
  std::vector<int> device_nodes_;
};

}  // namespace arbsim
