#include "models/host/driver.h"

namespace arbsim {

const char* to_string(CopyDir d) {
  switch (d) {
    case CopyDir::H2D: return "h2d";
    case CopyDir::D2H: return "d2h";
    case CopyDir::P2P: return "p2p";
  }
  return "?";
}

Driver::Driver(std::vector<GpuAttachment> gpus, std::unique_ptr<TcPolicy> policy)
    : gpus_(std::move(gpus)), policy_(std::move(policy)) {}

void Driver::memcpy(const MemcpyRequest& r, std::function<void()> done) {
  CopyCommand c;
  c.bytes = r.bytes;
  c.flow_id = r.flow_id;
  c.tc = static_cast<uint8_t>(policy_->assign_tc(r));
  DmaEngine& e = engine_for(r, c);
  Gpu* g = gpus_[r.gpu].gpu;
  c.on_start = [g] { g->copy_started(); };
  c.on_done = [this, g, r, done = std::move(done)] {
    g->copy_finished();
    policy_->on_complete(r);
    if (done) done();
  };
  g->copy_queued();
  e.submit(std::move(c));
}

// H2D by device read uses the GPU's first copy engine, D2H and P2P its last (real GPUs
// have separate H2D and D2H copy engines, so the two directions overlap).
DmaEngine& Driver::engine_for(const MemcpyRequest& r, CopyCommand& c) {
  const GpuAttachment& a = gpus_[r.gpu];
  switch (r.dir) {
    case CopyDir::H2D:
      if (a.h2d_mode == H2dMode::HostPush) {
        c.kind = CopyKind::Write;
        c.remote = a.gpu->index();
        return a.host_memory->engine(a.host_engine);
      }
      c.kind = CopyKind::Read;
      c.remote = a.host_memory->index();
      return a.gpu->engine(0);
    case CopyDir::D2H:
      c.kind = CopyKind::Write;
      c.remote = a.host_memory->index();
      return a.gpu->engine(a.gpu->engine_count() - 1);
    case CopyDir::P2P:
      c.kind = CopyKind::Write;
      c.remote = gpus_[r.peer].gpu->index();
      return a.gpu->engine(a.gpu->engine_count() - 1);
  }
  return a.gpu->engine(0);
}

}  // namespace arbsim
