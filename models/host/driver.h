// The host driver: the one place apps issue memcpy commands. It picks the DMA engine that
// executes a copy (the GPU's copy engine pulls H2D data with MRd, or a host DMA engine
// pushes it with MWr; D2H and peer copies are MWr from the source GPU), asks its TC policy
// for the command's traffic class, and reports the copy's lifecycle to the GPU.
// Policies that re-rank commands at run time (seed 000 §3.2-3.3) plug in as TcPolicy.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>
#include "models/gpu/gpu.h"

namespace arbsim {

enum class CopyDir { H2D, D2H, P2P };
const char* to_string(CopyDir d);

struct MemcpyRequest {
  CopyDir dir = CopyDir::H2D;
  int gpu = 0;        // GPU ordinal (H2D/D2H target, P2P source)
  int peer = -1;      // P2P destination GPU ordinal
  uint64_t bytes = 0;
  int tc = 0;         // the app's requested TC (the static policy keeps it)
  uint32_t flow_id = 0;
};

// Chooses a command's TC when it is submitted; told when commands start and finish.
class TcPolicy {
 public:
  virtual ~TcPolicy() = default;
  virtual int assign_tc(const MemcpyRequest& r) = 0;
  virtual void on_complete(const MemcpyRequest& /*r*/) {}
};

// Keeps the TC each app asks for.
class StaticTcPolicy : public TcPolicy {
 public:
  int assign_tc(const MemcpyRequest& r) override { return r.tc; }
};

enum class H2dMode { DeviceRead, HostPush };

struct GpuAttachment {
  Gpu* gpu = nullptr;
  Endpoint* host_memory = nullptr;  // the host memory this GPU copies from/to
  int host_engine = 0;              // the host DMA engine that pushes to it
  H2dMode h2d_mode = H2dMode::DeviceRead;
};

class Driver {
 public:
  Driver(std::vector<GpuAttachment> gpus, std::unique_ptr<TcPolicy> policy);
  void memcpy(const MemcpyRequest& r, std::function<void()> done);
  int gpu_count() const { return static_cast<int>(gpus_.size()); }
  Gpu& gpu(int i) { return *gpus_[i].gpu; }
  TcPolicy& policy() { return *policy_; }

 private:
  DmaEngine& engine_for(const MemcpyRequest& r, CopyCommand& c);
  std::vector<GpuAttachment> gpus_;
  std::unique_ptr<TcPolicy> policy_;
};

}  // namespace arbsim
