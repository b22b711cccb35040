#include "testbenches/copy_exec_app.h"

namespace arbsim {

void CopyExecApp::iterate() {
  const bool enough = p_.iterations > 0 && iterations_done_ >= p_.iterations;
  if (enough || past_deadline()) return finish();
  iteration_start_ = sc_core::sc_time_stamp();
  copy(CopyDir::H2D, p_.h2d_bytes, [this] { after_copy_in(); });
}

// kernel_ns 0 is no kernel (docs/config.md), as in the periodic and spmd apps: a kernel of
// no time would still wait its turn behind other apps' kernels on the GPU, and hold this
// app's copy-out until theirs end (a user trial: a copy-only app's rate halved by another
// app's 200 us kernel).
void CopyExecApp::after_copy_in() {
  if (p_.kernel_ns <= 0) return copy_out();
  // The whole GPU (no grid), owned by the app for kernel_ties() (no SM share caps it).
  driver_.gpu(setup_.gpu).run_kernel_for(0, ns(p_.kernel_ns), kernel_owner(setup_.flow_id), [this] { copy_out(); });
}

void CopyExecApp::copy_out() {
  if (p_.d2h_bytes > 0) copy(CopyDir::D2H, p_.d2h_bytes, [this] { end_iteration(); });
  else end_iteration();
}

void CopyExecApp::end_iteration() {
  ++iterations_done_;  // its own count: the statistics restart after a warm-up
  if (measured(iteration_start_)) {
    ++stats_.iterations;
    stats_.last_done = sc_core::sc_time_stamp();
  }
  iterate();
}

}  // namespace arbsim
