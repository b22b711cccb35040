// A GPU's parameters and their defaults (the one place they are written; the config loader
// fills in what a config leaves out from this struct). Plain C++: no SystemC.
#pragma once
#include "models/common/copy_command.h"
#include "models/gpu/sm_scheduler.h"

namespace arbsim {

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
};

}  // namespace arbsim
