#include "testbenches/app.h"
#include <memory>
#include "models/common/model_log.h"
#include "models/common/sc_progress.h"
#include "models/common/sim_time.h"

namespace arbsim {

using sc_core::sc_time;

App::App(sc_core::sc_module_name name, const AppSetup& setup, Driver& driver)
    : sc_core::sc_module(name), setup_(setup), driver_(driver) {
  SC_METHOD(tick);
  sensitive << wake_;
  dont_initialize();
  wake_.notify(ns(setup_.timing.start_ns));
}

void App::tick() {
  guard_progress(guard_, *this);
  on_wake();
}

bool App::past_deadline_in(const sc_time& delay) const {
  const AppTiming& t = setup_.timing;
  return t.duration_ns > 0 && sc_core::sc_time_stamp() + delay >= ns(t.start_ns + t.duration_ns);
}

void App::copy(CopyDir dir, uint64_t bytes, std::function<void()> then) {
  MemcpyRequest r;
  r.dir = dir;
  r.gpu = setup_.gpu;
  r.peer = setup_.peer;
  r.bytes = bytes;
  r.tc = setup_.timing.tc;
  r.flow_id = setup_.flow_id;
  r.host = setup_.host_rc;  // -1: the GPU's own socket
  r.rate_GBps = copy_rate_GBps_;
  const sc_time start = sc_core::sc_time_stamp();
  const double deadline = setup_.timing.deadline_ns;
  r.deadline_ns = deadline > 0 ? start.to_seconds() * 1e9 + deadline : 0;
  const int64_t due = deadline > 0 ? static_cast<int64_t>(start.value()) + deadline_ps(deadline) : 0;  // ps
  if (due > 0 && measured(start)) open_deadlines_.insert(due);
  note_issue();
  if (measured(start)) stats_.copied_any = true;
  ARBSIM_LOG_DEBUG(*this, std::string(dir == CopyDir::H2D ? "H2D" : dir == CopyDir::D2H ? "D2H" : "P2P") + " copy of " +
                              std::to_string(bytes) + " B issued");
  // The TC the driver's policy gives it, known once submitted (the copy cannot end before).
  auto tc = std::make_shared<uint8_t>(r.tc);
  const uint64_t handle = open_copies_.open(bytes);
  const auto done = [this, bytes, start, deadline, due, tc, handle, then = std::move(then)] {
    const OpenCopies::Closed closed = open_copies_.close(handle);
    stats_.carried.add(closed.carried);  // open at the warm-up's end
    // Its time in the fabric, from its engine's start (not its wait for the engine).
    last_copy_done_ = sc_core::sc_time_stamp();
    const double done_ns = last_copy_done_.to_seconds() * 1e9;
    last_copy_ns_ = done_ns - (closed.started_ns >= 0 ? closed.started_ns : start.to_seconds() * 1e9);
    if (!measured(start)) return then();
    if (due > 0) open_deadlines_.erase(open_deadlines_.find(due));
    const sc_time now = sc_core::sc_time_stamp();
    stats_.bytes += bytes;
    ++stats_.transfers;
    const double latency = (now - start).to_seconds() * 1e9;
    stats_.latencies_ns.push_back(latency);
    stats_.copy_latency_by_tc[*tc].add(latency);
    ARBSIM_LOG_DEBUG(*this, "copy of " + std::to_string(bytes) + " B done on TC" + std::to_string(*tc) + " after " +
                                std::to_string(latency) + " ns");
    if (deadline > 0) ++(meets_deadline(latency, deadline) ? stats_.deadlines_met : stats_.deadlines_missed);
    stats_.last_done = now;
    then();
  };
  *tc = driver_.memcpy(r, done, [this, handle](uint64_t transfer) {
    open_copies_.started(handle, transfer, sim_now_ns());
  });
}

// The phases in order, each skipped when empty (parse_phases asks for at least one).
void App::run_job(const GpuJob& j, int owner, std::function<void()> done, int step) {
  const GpuJob* job = &j;
  auto then = [this, job, owner, done](int next) { return [=] { run_job(*job, owner, done, next); }; };
  if (step == 0 && j.h2d_bytes > 0) return copy(CopyDir::H2D, j.h2d_bytes, then(1));
  if (step <= 1 && j.kernel_ns > 0) {
    note_kernel(j);
    return driver_.gpu(setup_.gpu).run_kernel_for(j.blocks, ns(j.kernel_ns), owner, then(2));
  }
  if (step <= 2 && j.d2h_bytes > 0) return copy(CopyDir::D2H, j.d2h_bytes, then(3));
  done();
}

}  // namespace arbsim
