#include "models/host/engine_choice.h"

namespace arbsim {

EngineChoice choose_engine(CopyDir dir, H2dMode mode, int copy_engines) {
  EngineChoice c;
  if (dir == CopyDir::H2D && mode == H2dMode::HostPush) {
    c.host_dma = true;
  } else if (dir == CopyDir::H2D) {
    c.kind = CopyKind::Read;
    c.gpu_engine = 0;
  } else {
    c.gpu_engine = copy_engines - 1;
  }
  return c;
}

}  // namespace arbsim
