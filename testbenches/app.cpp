#include "testbenches/app.h"
#include "models/common/sc_progress.h"
#include <algorithm>

namespace arbsim {

using sc_core::sc_time;
using sc_core::SC_PS;

namespace {
sc_time ns(double v) { return sc_time(v * 1000.0, SC_PS); }
}  // namespace

App::App(sc_core::sc_module_name name, const AppCfg& cfg, Driver& driver, int gpu, int peer,
         uint32_t flow_id)
    : sc_core::sc_module(name), cfg_(cfg), driver_(driver), gpu_(gpu), peer_(peer), flow_id_(flow_id) {
  SC_METHOD(tick);
  sensitive << wake_;
  dont_initialize();
  wake_.notify(ns(cfg_.start_ns));
}

void App::tick() {
  guard_progress(guard_, *this);
  on_wake();
}

bool App::past_deadline() const {
  return cfg_.duration_ns > 0 && sc_core::sc_time_stamp() >= ns(cfg_.start_ns + cfg_.duration_ns);
}

void App::copy(CopyDir dir, uint64_t bytes, std::function<void()> then) {
  MemcpyRequest r;
  r.dir = dir;
  r.gpu = gpu_;
  r.peer = peer_;
  r.bytes = bytes;
  r.tc = cfg_.tc;
  r.flow_id = flow_id_;
  r.host = cfg_.host_rc;  // -1: the GPU's own socket
  const sc_time start = sc_core::sc_time_stamp();
  r.deadline_ns = cfg_.deadline_ns > 0 ? start.to_seconds() * 1e9 + cfg_.deadline_ns : 0;
  if (!stats_.issued_any) stats_.first_issue = start;
  stats_.issued_any = true;
  driver_.memcpy(r, [this, bytes, start, then = std::move(then)] {
    const sc_time now = sc_core::sc_time_stamp();
    stats_.bytes += bytes;
    ++stats_.transfers;
    const double latency = (now - start).to_seconds() * 1e9;
    stats_.latencies_ns.push_back(latency);
    if (cfg_.deadline_ns > 0) ++(latency <= cfg_.deadline_ns ? stats_.deadlines_met : stats_.deadlines_missed);
    stats_.last_done = now;
    then();
  });
}

void CopyExecApp::iterate() {
  const bool enough = cfg_.iterations > 0 && static_cast<int64_t>(stats_.iterations) >= cfg_.iterations;
  if (enough || past_deadline()) return finish();
  copy(CopyDir::H2D, cfg_.h2d_bytes, [this] { after_copy_in(); });
}

void CopyExecApp::after_copy_in() {
  driver_.gpu(gpu_).run_kernel(ns(cfg_.kernel_ns), [this] {
    if (cfg_.d2h_bytes > 0) copy(CopyDir::D2H, cfg_.d2h_bytes, [this] { end_iteration(); });
    else end_iteration();
  });
}

void CopyExecApp::end_iteration() {
  ++stats_.iterations;
  stats_.last_done = sc_core::sc_time_stamp();
  iterate();
}

StreamApp::StreamApp(sc_core::sc_module_name name, const AppCfg& cfg, Driver& driver, int gpu, int peer,
                     uint32_t flow_id, uint64_t seed)
    : App(name, cfg, driver, gpu, peer, flow_id), rng_(seed * 0x9E3779B97F4A7C15ull + flow_id) {}

bool StreamApp::may_issue() const {
  return !(cfg_.count > 0 && issued_ >= cfg_.count) && !past_deadline();
}

uint64_t StreamApp::next_size() {
  if (!cfg_.uniform) return cfg_.size;
  return cfg_.size_min + rng_() % (cfg_.size_max - cfg_.size_min + 1);
}

// Back to back: keep `depth` commands queued. At a rate: one command per size/rate.
void StreamApp::on_wake() {
  if (cfg_.rate_GBps > 0) {
    if (!may_issue()) return finish();
    const uint64_t size = next_size();
    issue_one(size);
    wake_at(ns(static_cast<double>(size) / cfg_.rate_GBps));
    return;
  }
  while (outstanding_ < cfg_.depth && may_issue()) issue_one(next_size());
  if (!may_issue()) finish();
}

// Back to back, a completion tops the queue up again; at a rate, the timer issues.
void StreamApp::issue_one(uint64_t size) {
  ++issued_;
  ++outstanding_;
  copy(cfg_.direction, size, [this] {
    --outstanding_;
    ++stats_.iterations;
    if (cfg_.rate_GBps <= 0) on_wake();
  });
}

}  // namespace arbsim
