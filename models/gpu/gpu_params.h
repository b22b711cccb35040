// A GPU's parameters and their defaults (the one place they are written; the config loader
// fills in what a config leaves out from this struct). Plain C++: no SystemC.
#pragma once
#include <algorithm>
#include <vector>
#include "models/common/copy_command.h"
#include "models/gpu/sm_scheduler.h"

namespace arbsim {

// Whether a GPU of `slices` compute slices offers a MIG instance of `size` slices: an A100
// (7 slices) offers 1g, 2g, 3g, 4g and 7g; a GPU of other `mig_slices` any size up to it.
inline bool mig_size_offered(int size, int slices) {
  return size >= 1 && size <= slices && (slices != 7 || (size != 5 && size != 6));
}

struct GpuParams {
  int copy_engines = 2;           // H2D and D2H engines apart (one: shared)
  int tags = 256;                 // outstanding reads of each copy engine
  double read_latency_ns = 300;   // as a completer (peer reads): MRd consumed -> first CplD
  H2dMode h2d_mode = H2dMode::DeviceRead;
  // Submission cost of one copy (driver call + engine start, docs/gpu-sharing.md "Copy
  // engines"): each copy reaches its engine this long after the later of its request and the
  // previous submission to that engine. 0 (the seeds' calibrations): a copy costs nothing to
  // start. Measured cudaMemcpy curves fit 6-8 us (docs/pcie-reference.md §9).
  double copy_submit_ns = 0;
  SmParams sm;  // SMs, blocks per SM, concurrent kernels (models/gpu/sm_scheduler.h)
  // MIG (seed 001 §3.1, docs/gpu-sharing.md "MIG instances"): the compute slices of each
  // instance, in order (empty: the GPU is not split). Each instance has `copy_engines` copy
  // engines of its own and sms / mig_slices SMs per slice; all share the GPU's one link.
  std::vector<int> mig;
  int mig_slices = 7;  // compute slices of the whole GPU (an A100: 7)

  int instances() const { return static_cast<int>(mig.size()); }
  // Copy engines of the GPU's endpoint: each instance's, or the GPU's own.
  int engine_count() const { return copy_engines * std::max(1, instances()); }
  // An instance's SMs: its slices' share of the GPU's, whole slices of sms / mig_slices.
  SmParams instance_sm(int instance) const {
    SmParams s = sm;
    s.sms = std::max(1, sm.sms / mig_slices * mig.at(static_cast<std::size_t>(instance)));
    return s;
  }
};

}  // namespace arbsim
