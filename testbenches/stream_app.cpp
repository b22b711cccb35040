#include "testbenches/stream_app.h"

namespace arbsim {

// Each app draws from its own generator, seeded from the run's seed and its flow id, so
// adding an app does not change another's sizes.
StreamApp::StreamApp(sc_core::sc_module_name name, const AppSetup& setup, const StreamParams& p, Driver& driver,
                     uint64_t seed)
    : App(name, setup, driver), p_(p), rng_(seed * 0x9E3779B97F4A7C15ull + setup.flow_id) {}

bool StreamApp::may_issue() const { return !(p_.count > 0 && issued_ >= p_.count) && !past_deadline(); }

uint64_t StreamApp::next_size() {
  if (!p_.uniform) return p_.size;
  return p_.size_min + rng_() % (p_.size_max - p_.size_min + 1);
}

// Back to back: keep `depth` commands queued. At a rate: one command per size/rate, and no
// timer after the last (it would keep the run going a period past all its traffic:
// sim_time_ns, and every utilization over it, are the traffic's).
void StreamApp::on_wake() {
  if (p_.rate_GBps > 0) {
    if (!may_issue()) return finish();
    const uint64_t size = next_size();
    issue_one(size);
    const sc_core::sc_time next = ns(static_cast<double>(size) / p_.rate_GBps);
    if ((p_.count > 0 && issued_ >= p_.count) || past_deadline_in(next)) return finish();
    wake_at(next);
    return;
  }
  while (outstanding_ < p_.depth && may_issue()) issue_one(next_size());
  if (!may_issue()) finish();
}

// Back to back, a completion tops the queue up again; at a rate, the timer issues.
void StreamApp::issue_one(uint64_t size) {
  ++issued_;
  ++outstanding_;
  const sc_core::sc_time start = sc_core::sc_time_stamp();
  copy(p_.direction, size, [this, start] {
    --outstanding_;
    if (measured(start)) ++stats_.iterations;
    if (p_.rate_GBps <= 0) on_wake();
  });
}

}  // namespace arbsim
