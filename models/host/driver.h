// The host driver: the one place apps issue memcpy commands. It picks the DMA engine that
// executes a copy (the GPU's copy engine pulls H2D data with MRd, or a host DMA engine
// pushes it with MWr; D2H and peer copies are MWr from the source GPU) - a packet-level
// DmaEngine or a flow-level FlowEngine, both CopyExecutors - asks its TC policy
// for the command's traffic class, tells the policy when commands arrive, start and end
// (seed 000's schedulers re-rank then), and reports each copy's lifecycle to its GPU.
#pragma once
#include <cstdint>
#include "models/common/progress_guard.h"
#include <functional>
#include <map>
#include <memory>
#include <vector>
#include <systemc>
#include "models/common/copy_executor.h"
#include "models/common/timers.h"
#include "models/gpu/gpu_compute.h"
#include "models/host/tc_policy.h"

namespace arbsim {

// One socket's host memory and the DMA engine in its root complex that pushes to a GPU.
struct HostPath {
  int memory = -1;               // its endpoint index
  CopyExecutor* dma = nullptr;
};

struct GpuAttachment {
  GpuCompute* gpu = nullptr;         // compute engine and state
  int endpoint = -1;                 // the GPU's endpoint index (address window)
  std::vector<CopyExecutor*> engines;  // its copy engines
  int host_memory = -1;              // endpoint index of the host memory it copies from/to
  CopyExecutor* host_dma = nullptr;  // the host DMA engine that pushes to it
  H2dMode h2d_mode = H2dMode::DeviceRead;
  sc_core::sc_time submit;           // a copy's submission cost (GpuParams::copy_submit_ns)
  // [root-complex ordinal] every socket reachable from the GPU (empty entry: another
  // tree); MemcpyRequest::host picks one instead of host_memory/host_dma.
  std::vector<HostPath> hosts;
};

class Driver : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Driver);
  Driver(sc_core::sc_module_name name, std::vector<GpuAttachment> gpus, std::unique_ptr<TcPolicy> policy,
         FabricControl& fabric);
  // Returns the TC its policy gave the copy (TcPolicy::assign_tc). `started` (optional)
  // hears the fabric transfer its engine made of it.
  uint8_t memcpy(MemcpyRequest r, std::function<void()> done, std::function<void(uint64_t)> started = {});
  int gpu_count() const { return static_cast<int>(gpus_.size()); }
  GpuCompute& gpu(int i) { return *gpus_[i].gpu; }
  TcPolicy& policy() { return *policy_; }
  bool response_data(const MemcpyRequest& r) const;

 private:
  CopyExecutor& engine_for(const MemcpyRequest& r, CopyCommand& c);
  void tick();  // SC_METHOD: the policy's periodic re-evaluation while commands are open
  void arm_tick(const sc_core::sc_time& at);
  void hand_over(CopyExecutor& e, const sc_core::sc_time& submit, CopyCommand c);
  std::vector<GpuAttachment> gpus_;
  std::unique_ptr<TcPolicy> policy_;
  uint64_t next_cmd_ = 1;
  int open_ = 0;
  sc_core::sc_event tick_event_;
  // The tick's time (kept while it is parked: cancelled because nothing is open).
  sc_core::sc_time tick_due_;
  bool tick_pending_ = false;
  std::map<const CopyExecutor*, sc_core::sc_time> submit_free_;  // per engine: its last submission's end
  Timers submissions_{"submissions"};
  ProgressGuard guard_;
};

}  // namespace arbsim
