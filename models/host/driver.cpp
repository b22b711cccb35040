#include "models/host/driver.h"
#include "models/host/engine_choice.h"
#include "models/common/sc_progress.h"

namespace arbsim {

Driver::Driver(sc_core::sc_module_name name, std::vector<GpuAttachment> gpus, std::unique_ptr<TcPolicy> policy,
               FabricControl& fabric)
    : sc_core::sc_module(name), gpus_(std::move(gpus)), policy_(std::move(policy)) {
  policy_->attach(fabric);
  SC_METHOD(tick);
  sensitive << tick_event_;
  dont_initialize();
}

bool Driver::response_data(const MemcpyRequest& r) const {
  return r.dir == CopyDir::H2D && gpus_[r.gpu].h2d_mode == H2dMode::DeviceRead;
}

uint8_t Driver::memcpy(MemcpyRequest r, std::function<void()> done, std::function<void(uint64_t)> started) {
  r.response_data = response_data(r);
  const uint64_t id = next_cmd_++;
  CopyCommand c;
  c.bytes = r.bytes;
  c.flow_id = r.flow_id;
  c.rate_GBps = r.rate_GBps;
  c.tc = static_cast<uint8_t>(policy_->assign_tc(r));
  CopyExecutor& e = engine_for(r, c);
  GpuCompute* g = gpus_[r.gpu].gpu;
  c.on_start = [this, g, id, started = std::move(started)](uint64_t transfer) {
    g->copy_started();
    policy_->on_start(id, transfer);
    if (started) started(transfer);
  };
  c.on_done = [this, g, id, done = std::move(done)] {
    // Nothing left to watch: no tick keeps the run going past the last transfer (sim_time_ns
    // and every utilization over it are the traffic's). Parked, not forgotten: the next
    // command takes it up again where it would have been (arm_tick()).
    if (--open_ == 0 && tick_pending_) {
      tick_event_.cancel();
      tick_pending_ = false;
    }
    g->copy_finished();
    policy_->on_complete(id);
    if (done) done();
  };
  g->copy_queued();
  ++open_;
  policy_->on_submit(id, r);
  if (policy_->tick_ns() > 0) {
    // A tick parked at the last completion and still due comes back at its time (it would
    // have stayed pending: a later notification does not move an earlier one); else one
    // tick from now.
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    arm_tick(tick_due_ > now ? tick_due_ : now + sc_core::sc_time(policy_->tick_ns(), sc_core::SC_NS));
  }
  const uint8_t tc = c.tc;
  hand_over(e, gpus_[r.gpu].submit, std::move(c));
  return tc;
}

// The submission cost (docs/gpu-sharing.md "Copy engines"): the driver's calls on one engine
// are serial, each `submit` long, and overlap the engine's transfers of earlier copies; so
// back-to-back synchronous copies take submit + transfer each (T(s) = T0 + s / B), while a
// queue of asynchronous ones is held to one submission per `submit`.
void Driver::hand_over(CopyExecutor& e, const sc_core::sc_time& submit, CopyCommand c) {
  if (submit == sc_core::SC_ZERO_TIME) return e.submit(std::move(c));
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  sc_core::sc_time& free = submit_free_[&e];
  free = std::max(free, now) + submit;
  submissions_.after(free - now, [&e, c = std::move(c)]() mutable { e.submit(std::move(c)); });
}

void Driver::tick() {
  guard_progress(guard_, *this);
  tick_pending_ = false;
  if (open_ == 0) return;  // nothing to watch: stop ticking until the next command
  policy_->on_tick();
  arm_tick(sc_core::sc_time_stamp() + sc_core::sc_time(policy_->tick_ns(), sc_core::SC_NS));
}

// The tick at `at`, unless one is due sooner (as sc_event keeps the earlier of two).
void Driver::arm_tick(const sc_core::sc_time& at) {
  if (tick_pending_ && tick_due_ <= at) return;
  tick_due_ = at;
  tick_pending_ = true;
  tick_event_.notify(at - sc_core::sc_time_stamp());
}

// H2D by device read uses the GPU's first copy engine, D2H and P2P its last (real GPUs
// have separate H2D and D2H copy engines, so the two directions overlap).
// A copy with `host` set uses that socket's memory (and, pushed, the DMA engine of that
// socket's root complex, which reads its own memory: seed 002 §2.1).
CopyExecutor& Driver::engine_for(const MemcpyRequest& r, CopyCommand& c) {
  const GpuAttachment& a = gpus_[r.gpu];
  const HostPath h = r.host < 0 ? HostPath{a.host_memory, a.host_dma} : a.hosts.at(r.host);
  const EngineChoice e = choose_engine(r.dir, a.h2d_mode, static_cast<int>(a.engines.size()));
  c.kind = e.kind;
  c.remote = r.dir == CopyDir::P2P ? gpus_[r.peer].endpoint : e.host_dma ? a.endpoint : h.memory;
  return e.host_dma ? *h.dma : *a.engines.at(static_cast<std::size_t>(e.gpu_engine));
}

}  // namespace arbsim
