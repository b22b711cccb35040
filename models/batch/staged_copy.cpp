#include "models/batch/staged_copy.h"
#include <algorithm>
#include "models/common/sim_time.h"

namespace arbsim {

StagedCopy::StagedCopy(Driver& driver, StagedCopySpec spec, std::function<void()> done)
    : driver_(driver), spec_(spec), done_(std::move(done)) {
  spec_.chunk = std::max<uint64_t>(1, std::min(spec_.chunk, spec_.bytes));
  spec_.buffers = std::max(1, spec_.buffers);
  chunks_ = (spec_.bytes + spec_.chunk - 1) / spec_.chunk;
}

uint64_t StagedCopy::chunk_bytes(uint64_t k) const {
  return k + 1 < chunks_ ? spec_.chunk : spec_.bytes - k * spec_.chunk;
}

void StagedCopy::start() {
  if (chunks_ == 0) return done_();
  while (d2h_issued_ < chunks_ && d2h_issued_ - h2d_done_ < static_cast<uint64_t>(spec_.buffers)) issue_d2h();
}

// Chunk k between the staging memory and `gpu`, paced like the whole copy.
void StagedCopy::copy_chunk(CopyDir dir, int gpu, uint64_t k, std::function<void()> done) {
  MemcpyRequest r;
  r.dir = dir;
  r.gpu = gpu;
  r.host = spec_.host;
  r.bytes = chunk_bytes(k);
  r.rate_GBps = spec_.rate_GBps;
  r.flow_id = spec_.flow_id;
  driver_.memcpy(r, std::move(done));
}

// GPU -> CPU into a free staging buffer.
void StagedCopy::issue_d2h() {
  const uint64_t k = d2h_issued_++;
  if (d2h_start_ns_ < 0) d2h_start_ns_ = sim_now_ns();
  copy_chunk(CopyDir::D2H, spec_.src, k, [this, k] { d2h_done(k); });
}

// The chunk has landed in host memory: CPU -> GPU from that buffer.
void StagedCopy::d2h_done(uint64_t k) {
  if (h2d_start_ns_ < 0) h2d_start_ns_ = sim_now_ns();
  copy_chunk(CopyDir::H2D, spec_.dst, k, [this] { h2d_done(); });
}

// A buffer is free again: refill it, or finish after the last chunk.
void StagedCopy::h2d_done() {
  if (++h2d_done_ == chunks_) return done_();
  if (d2h_issued_ < chunks_) issue_d2h();
}

}  // namespace arbsim
