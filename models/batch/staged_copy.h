// A GPU-to-GPU copy between PCIe domains, staged through host memory (seed 002 §3.2,
// special case 2: "require staging in CPU memory, hence requiring a GPU->CPU and a CPU->GPU
// data transfer. These transfers may overlap, but the GPU->CPU must begin first").
// The copy moves in chunks through a few staging buffers: chunk k goes GPU->CPU, then
// CPU->GPU once it has landed, while chunk k+1 goes GPU->CPU into the next buffer. So the
// GPU->CPU stage always begins first, the two stages overlap, and the pipeline runs at the
// slower stage's rate; a new GPU->CPU chunk waits for a free buffer.
#pragma once
#include <cstdint>
#include <functional>
#include "models/host/driver.h"

namespace arbsim {

struct StagedCopySpec {
  int src = 0, dst = 0;     // GPU ordinals
  int host = -1;            // root-complex ordinal of the staging memory
  uint64_t bytes = 0;
  uint64_t chunk = 0;       // bytes per staging buffer
  int buffers = 2;
  double rate_GBps = 0;     // pace both stages (bandwidth allocation's share); 0 = none
  uint32_t flow_id = 0;     // the app it is for (CopyCommand::flow_id)
};

class StagedCopy {
 public:
  StagedCopy(Driver& driver, StagedCopySpec spec, std::function<void()> done);
  void start();
  // When the GPU->CPU stage first started and the CPU->GPU stage first started (ns).
  double d2h_start_ns() const { return d2h_start_ns_; }
  double h2d_start_ns() const { return h2d_start_ns_; }

 private:
  uint64_t chunk_bytes(uint64_t k) const;
  void copy_chunk(CopyDir dir, int gpu, uint64_t k, std::function<void()> done);
  void issue_d2h();
  void d2h_done(uint64_t k);
  void h2d_done();
  Driver& driver_;
  StagedCopySpec spec_;
  std::function<void()> done_;
  uint64_t chunks_ = 0, d2h_issued_ = 0, h2d_done_ = 0;
  double d2h_start_ns_ = -1, h2d_start_ns_ = -1;
};

}  // namespace arbsim
