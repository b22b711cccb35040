// A root complex: the crossbar of its root ports and host-memory port (a Switch), plus the
// host DMA engines that push host-to-device copies (seed 000 §3.1, Fig. 4: the DMA engine
// sits on the CPU side; on Intel servers, IOAT/DSA engines in the root complex). The
// engines read host memory inside the RC and send MWr straight to a root port: they compete
// with the ports' traffic in each root port's egress arbitration (slots after the ports).
#pragma once
#include <memory>
#include <vector>
#include "models/pcie/dma_engine.h"
#include "models/pcie/switch.h"

namespace arbsim {

struct RootComplexParams {
  int engines = 1;
  uint16_t requester_id = 0;  // the host's ID (its memory's endpoint number + 1)
  DmaParams dma;
};

class RootComplex : public Switch, public DmaHost {
 public:
  // `ports`: each port's egress must arbitrate among ports.size() + p.engines slots.
  RootComplex(sc_core::sc_module_name name, const SwitchParams& sp, const std::vector<PortSpec>& ports,
              const RootComplexParams& p, TransferTracker& tracker);
  DmaEngine& engine(int i) { return *engines_[i]; }
  int engine_count() const { return static_cast<int>(engines_.size()); }

  // DmaHost
  void offer(TlpQueue& q) override;
  uint16_t requester_id() const override { return params_.requester_id; }
  TransferTracker& tracker() override { return tracker_; }

 private:
  RootComplexParams params_;
  TransferTracker& tracker_;
  std::vector<std::unique_ptr<DmaEngine>> engines_;
};

}  // namespace arbsim
