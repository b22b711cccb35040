#include "testbenches/periodic_app.h"
#include "testbenches/deadline.h"
#include "models/common/sim_time.h"

namespace arbsim {

void ShareLoop::add(PeriodicApp* app) {
  aimd_.add_task(app->task(), app->params().priority);
  apps_.push_back(app);
}

void ShareLoop::report(const std::string& task, bool met) {
  if (aimd_.report(task, met) == 0) return;
  for (PeriodicApp* a : apps_) a->apply_share(aimd_.share_pct(a->task()));
  if (on_change_) on_change_(*this);
}

PeriodicApp::PeriodicApp(sc_core::sc_module_name name, const AppSetup& setup, const PeriodicParams& p,
                         Driver& driver, std::string task, int owner, ShareLoop* loop)
    : App(name, setup, driver), p_(p), task_(std::move(task)), owner_(owner), loop_(loop) {
  if (loop_) {
    loop_->add(this);
    apply_share(loop_->share_pct(task_));
  } else if (p_.sm_share_pct < 100) {
    share_pct_ = p_.sm_share_pct;
    driver_.gpu(setup_.gpu).set_sm_share(owner_, share_pct_ / 100.0);
  }
  if ((!loop_ || !loop_->pcie()) && p_.pcie_share_pct < 100) copy_rate_GBps_ = setup_.pcie_GBps * p_.pcie_share_pct / 100;
}

void PeriodicApp::apply_share(double pct) {
  if (pct != share_pct_) share_changes_.emplace_back(sim_now_ns(), pct);
  share_pct_ = pct;
  if (!loop_) return;
  if (loop_->target() == ShareTarget::PcieRate) copy_rate_GBps_ = setup_.pcie_GBps * pct / 100.0;
  else if (loop_->target() == ShareTarget::Sm) driver_.gpu(setup_.gpu).set_sm_share(owner_, pct / 100.0);
}

// A release: the next one is due a period later while the task has jobs left (after a
// count's last, or where the next would fall past duration_ns, none: no timer keeps the run
// going a period past the last job).
void PeriodicApp::on_wake() {
  const bool more = p_.count > 0 ? released_ < p_.count : !past_deadline();
  if (!more) {
    if (!busy_ && pending_.empty()) finish();
    return;
  }
  ++released_;
  pending_.push_back(sc_core::sc_time_stamp());
  releasing_ = p_.count > 0 ? released_ < p_.count : !past_deadline_in(ns(p_.period_ns));
  if (releasing_) wake_at(ns(p_.period_ns));
  if (!busy_) start_job();
}

void PeriodicApp::start_job() {
  busy_ = true;
  release_ = pending_.front();
  pending_.pop_front();
  run_job(p_, owner_, [this] { end_job(); });
}

void PeriodicApp::end_job() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const double response = (now - release_).to_seconds() * 1e9;
  const bool met = meets_deadline(response, p_.deadline_ns);
  if (measured(release_)) {
    ++(met ? stats_.deadlines_met : stats_.deadlines_missed);
    ++stats_.iterations;
    stats_.last_done = now;
  }
  jobs_.push_back({release_.to_seconds() * 1e9, response, share_pct_});
  if (loop_) loop_->report(task_, met);
  busy_ = false;
  if (!pending_.empty()) return start_job();
  if (!releasing_) finish();
}

std::vector<double> PeriodicApp::unfinished_releases_ns() const {
  std::vector<double> r;
  if (busy_) r.push_back(release_.to_seconds() * 1e9);
  for (const sc_core::sc_time& t : pending_) r.push_back(t.to_seconds() * 1e9);
  return r;
}

}  // namespace arbsim
