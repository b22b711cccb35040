// Which engine executes a copy: the one rule the host driver follows and the batch model
// predicts with (models/host/driver.h, platforms/topology/batch_model.h).
//   H2D by device read: the GPU's first copy engine reads host memory (MRd; GPU copy engines
//                       pull host data);
//   H2D by host push:   the host DMA engine of the memory's root complex writes (MWr; seed
//                       000 Fig. 4's CPU-side DMA engine);
//   D2H and peer:       the GPU's last copy engine writes (MWr).
// Real GPUs have separate H2D and D2H copy engines, so the two directions overlap; a GPU
// with one engine uses it for both. Plain C++.
#pragma once
#include "models/common/copy_command.h"

namespace arbsim {

struct EngineChoice {
  bool host_dma = false;  // the host DMA engine that serves this GPU in the memory's root complex
  int gpu_engine = 0;     // else the GPU's copy engine with this index
  CopyKind kind = CopyKind::Write;
};

EngineChoice choose_engine(CopyDir dir, H2dMode mode, int copy_engines);

}  // namespace arbsim
