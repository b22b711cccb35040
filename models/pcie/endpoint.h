// An endpoint with one port: a GPU, or a root complex's host memory. It consumes what
// arrives (MWr data lands in memory, CplD returns to the DMA engine that owns the tag),
// completes reads as a completer (after a fixed latency, CplDs of `completion_bytes`
// aligned to that boundary: RCB or MPS, docs/pcie-reference.md §3), and hosts DMA engines.
// Its egress port arbitrates among the completer (slot 0) and the engines (slots 1..n).
#pragma once
#include <deque>
#include "models/common/progress_guard.h"
#include <memory>
#include <vector>
#include "models/common/transfer_tracker.h"
#include "models/pcie/dma_engine.h"
#include "models/pcie/fabric_node.h"

namespace arbsim {

struct EndpointParams {
  int index = 0;                   // endpoint number (address window, requester ID)
  double read_latency_ns = 300;    // MRd consumed -> first CplD ready
  int completion_bytes = 256;      // CplD size (<= MPS), RCB-aligned chunks
  int engines = 1;                 // DMA engines
  DmaParams dma;
};

class Endpoint : public FabricNode, public QueueOwner, public DmaHost {
 public:
  SC_HAS_PROCESS(Endpoint);
  // `port`: the endpoint's one link; its egress arbitrates among 1 + p.engines slots.
  Endpoint(sc_core::sc_module_name name, const EndpointParams& p, const PortSpec& port,
           TransferTracker& tracker);

  int index() const { return params_.index; }
  DmaEngine& engine(int i) { return *engines_[i]; }
  int engine_count() const { return static_cast<int>(engines_.size()); }
  static int arbitration_slots(const EndpointParams& p) { return 1 + p.engines; }

  // DmaHost
  void offer(TlpQueue& q) override;
  uint16_t requester_id() const override { return endpoint_requester_id(params_.index); }
  TransferTracker& tracker() override { return tracker_; }

 protected:
  void accept(Tlp* t, int port) override;
  void on_pop(TlpQueue& q, Tlp* t) override;

 private:
  void sink();       // SC_METHOD: consumes arrived TLPs at their tail time
  void complete();   // SC_METHOD: turns due reads into completions
  void consume(Tlp* t, const sc_core::sc_time& at);
  void emit_completions(Tlp* mrd);

  EndpointParams params_;
  sc_core::sc_time read_latency_;
  TransferTracker& tracker_;
  std::vector<std::unique_ptr<DmaEngine>> engines_;
  TlpQueue completer_queue_;
  std::deque<Tlp*> arrived_;
  std::deque<std::pair<sc_core::sc_time, Tlp*>> reads_due_;
  sc_core::sc_event sink_event_, complete_event_;
  ProgressGuard sink_guard_, complete_guard_;
};

}  // namespace arbsim
