#include "platforms/system.h"
#include <cstdio>
#include <algorithm>
#include <set>
#include "models/host/priority_policy.h"
#include "platforms/device_registry.h"
#include "platforms/model_notes.h"
#include "platforms/topology/batch_model.h"
#include "platforms/topology/share_points.h"
#include "testbenches/batch_app.h"
#include "testbenches/copy_exec_app.h"
#include "testbenches/periodic_app.h"
#include "testbenches/spmd_app.h"
#include "testbenches/stream_app.h"

namespace arbsim {

System::System(const Scenario& s, const ObserveOptions& observe) : s_(s) {
  model_notes_ = arbsim::model_notes(s_);
  std::unique_ptr<TcPolicy> policy = make_policy();
  options_.observe = observe;
  options_.vc_arbiter = policy->vc_arbiter();
  if (options_.vc_arbiter) options_.vc_arbiter->impl = s_.platform().arbiter_impl;
  fabric_ = make_fabric(s_, options_, tracker_);
  make_gpus();
  make_driver(std::move(policy));
  make_apps();
  make_devices();
}

System::~System() = default;

// The driver's policy (docs/host-policies.md): static keeps each app's TC; the others are
// seed 000's (models/host/priority_policy.h).
std::unique_ptr<TcPolicy> System::make_policy() const {
  const DriverCfg& d = s_.config.driver;
  PriorityMode mode = PriorityMode::RoundRobin;
  switch (d.policy) {
    case PolicyKind::Static: return std::make_unique<StaticTcPolicy>();
    case PolicyKind::RoundRobin: mode = PriorityMode::RoundRobin; break;
    case PolicyKind::SmallestFirst: mode = PriorityMode::SmallestFirst; break;
    case PolicyKind::LargestFirst: mode = PriorityMode::LargestFirst; break;
    case PolicyKind::DeadlineAware: mode = PriorityMode::DeadlineAware; break;
  }
  const double bw = d.bandwidth_GBps > 0 ? d.bandwidth_GBps : s_.first_gpu_link_write_GBps();
  return std::make_unique<PriorityTcPolicy>(mode, static_cast<int>(s_.units.size()), bw, d.qos_check_ns, d.qos_margin_ns,
                                            d.starvation_threshold);
}

// One compute engine per unit: a GPU's, or each MIG instance's ("gpu0_mig1_compute").
void System::make_gpus() {
  for (const GpuUnit& u : s_.units) {
    std::string module = u.name + "_compute";
    std::replace(module.begin(), module.end(), '/', '_');
    gpus_.push_back(std::make_unique<GpuCompute>(module.c_str(), u.name, u.sm));
  }
}

// A GPU's host memory is its nearest root complex's (its socket); every socket of its
// tree is reachable too (an app's `host`), with that root complex's engine for the GPU.
void System::make_driver(std::unique_ptr<TcPolicy> policy) {
  const Topology& t = s_.topo;
  std::vector<GpuAttachment> att;
  for (std::size_t k = 0; k < s_.units.size(); ++k) {
    const GpuUnit& u = s_.units[k];
    const int i = t.gpus[u.gpu];
    const GpuParams& gp = s_.platform().nodes[i].gpu;
    GpuAttachment a;
    a.gpu = gpus_[k].get();
    a.endpoint = t.endpoint_of_node[i];
    for (int e = 0; e < gp.copy_engines; ++e)
      a.engines.push_back(&fabric_->engine(s_.gpu_engine(u.gpu, u.first_engine + e)));
    const int slot = host_dma_slot(t, i);
    for (const int rc : t.rcs) {
      const bool reachable = t.root_of[rc] == t.root_of[i];
      a.hosts.push_back(reachable ? HostPath{t.endpoint_of_node[rc], &fabric_->engine(s_.host_engine(rc, slot))}
                                  : HostPath{});
      if (rc == t.host_of[i]) {
        a.host_memory = a.hosts.back().memory;
        a.host_dma = a.hosts.back().dma;
      }
    }
    a.h2d_mode = gp.h2d_mode;
    a.submit = sc_core::sc_time::from_value(static_cast<uint64_t>(gp.copy_submit_ns * 1000.0 + 0.5));
    att.push_back(a);
  }
  driver_ = std::make_unique<Driver>("driver", std::move(att), std::move(policy), *this);
}

namespace {

// The driver's number of the GPU or MIG instance an app names.
int unit_of(const Scenario& s, const std::string& gpu) { return gpu.empty() ? -1 : s.unit_of(gpu); }

}  // namespace

// Each app's module is "app_<name>"; its transfers carry flow id k + 1 (k: its config index).
void System::make_apps() {
  std::vector<BatchProgram> programs = batch_programs(s_);
  for (std::size_t k = 0; k < s_.config.apps.size(); ++k) {
    const AppCfg& a = s_.config.apps[k];
    const std::string name = "app_" + a.name;
    const int unit = unit_of(s_, a.gpu());
    AppSetup setup{a.timing, unit, -1, -1, static_cast<uint32_t>(k + 1), pcie_reference_GBps(unit)};
    if (const auto* c = std::get_if<CopyExecParams>(&a.params)) {
      setup.host_rc = c->host_rc;
      apps_.push_back(std::make_unique<CopyExecApp>(name.c_str(), setup, *c, *driver_));
    } else if (const auto* st = std::get_if<StreamParams>(&a.params)) {
      setup.host_rc = st->host_rc;
      setup.peer = unit_of(s_, st->peer);
      apps_.push_back(std::make_unique<StreamApp>(name.c_str(), setup, *st, *driver_, s_.config.sim.seed));
    } else if (const auto* t = std::get_if<PeriodicParams>(&a.params)) {
      setup.host_rc = t->host_rc;
      apps_.push_back(std::make_unique<PeriodicApp>(name.c_str(), setup, *t, *driver_, a.name,
                                                    kernel_owner(setup.flow_id), share_loop()));
    } else if (const auto* m = std::get_if<SpmdParams>(&a.params)) {
      setup.host_rc = m->host_rc;
      apps_.push_back(std::make_unique<SpmdApp>(name.c_str(), setup, *m, *driver_));
    } else {
      setup.gpu = programs[k].batches.front().front().gpu;
      apps_.push_back(std::make_unique<BatchApp>(name.c_str(), setup, std::get<BatchParams>(a.params), *driver_,
                                                 batch_runtime(), std::move(programs[k])));
    }
  }
}

// A PCIe share of 100 % for the apps of `unit`: driver.share_control.pcie_GBps, else what
// that GPU's own link moves upward for large writes (the first GPU's, as before, paced a
// task on a Gen4 x16 GPU beside a Gen1 x1 one at 0.2 GB/s, at a share of 100 %).
double System::pcie_reference_GBps(int unit) const {
  const double set = s_.config.driver.share_control.pcie_GBps;
  if (set > 0 || unit < 0) return set;
  return s_.gpu_link_write_GBps(s_.units.at(static_cast<std::size_t>(unit)).gpu);
}

// The AIMD loop of the periodic apps (driver.share_control), made on first use; null without one.
ShareLoop* System::share_loop() {
  const ShareControlCfg& c = s_.config.driver.share_control;
  if (!c.on) return nullptr;
  if (!share_loop_) {
    AimdParams p;
    p.decrease_factor = c.decrease_factor;
    p.increase_pct = c.increase_pct;
    p.min_share_pct = c.min_share_pct;
    const ShareTarget target = !c.pcie ? ShareTarget::Sm : c.wrr ? ShareTarget::PcieWrr : ShareTarget::PcieRate;
    share_loop_ = std::make_unique<ShareLoop>(p, target);
    if (target == ShareTarget::PcieWrr) steer_wrr_weights(*share_loop_);
  }
  return share_loop_.get();
}

// pcie_by: wrr: on every share change, reload the port arbiters where the apps' data is
// separable (platforms/topology/share_points.h) with the weights the new shares give.
void System::steer_wrr_weights(ShareLoop& loop) {
  for (const WeightPoint& p : s_.wrr_points)
    for (const auto& [app, slot] : p.steers)
      SC_REPORT_INFO("arbsim/share_control", ("app " + app + " steered by its WRR weight at " +
                                              s_.walk[static_cast<std::size_t>(p.dir)].from + " -> " +
                                              s_.walk[static_cast<std::size_t>(p.dir)].to + " (slot " +
                                              std::to_string(slot) + ")").c_str());
  loop.on_change([this](const ShareLoop& l) {
    for (const WeightPoint& p : s_.wrr_points) {
      std::vector<double> shares;
      for (const auto& steer : p.steers) shares.push_back(l.share_pct(steer.first));
      fabric_->set_port_weights(p.dir, share_weights(p, shares));
    }
  });
}

// One batch run-time for the whole system: batches of every batch app run atomically in
// issue order (seed 002 §3.2).
BatchRuntime& System::batch_runtime() {
  if (!batch_runtime_) batch_runtime_ = std::make_unique<BatchRuntime>("batch_runtime", *driver_, make_batch_model(s_));
  return *batch_runtime_;
}

// Each device's module is "<node>_device"; its transfers carry flow ids after the apps'.
void System::make_devices() {
  const Topology& t = s_.topo;
  for (std::size_t i = 0; i < s_.platform().nodes.size(); ++i) {
    const NodeCfg& n = s_.platform().nodes[i];
    const DeviceMaker* make = n.is(NodeKind::Endpoint) ? find_device_maker(n.endpoint.type->name) : nullptr;
    if (!make) continue;
    DeviceContext ctx;
    ctx.node = n.name;
    for (int e = 0; e < n.endpoint.type->engines; ++e)
      ctx.engines.push_back(&fabric_->engine(s_.device_engine(static_cast<int>(i), e)));
    ctx.endpoint = t.endpoint_of_node[i];
    ctx.host_memory = t.endpoint_of_node[t.host_of[i]];
    ctx.flow_id = static_cast<uint32_t>(apps_.size() + devices_.size() + 1);
    devices_.push_back((*make)((n.name + "_device").c_str(), n.endpoint, std::move(ctx)));
    device_nodes_.push_back(static_cast<int>(i));
  }
}

std::string System::stuck_report() const {
  std::vector<std::string> parts = fabric_->waiting();
  if (tracker_.open_transfers() > 0) parts.push_back(std::to_string(tracker_.open_transfers()) + " transfer(s) open");
  for (std::size_t k = 0; k < apps_.size(); ++k)
    if (!apps_[k]->finished()) parts.push_back("app '" + s_.config.apps[k].name + "' not finished");
  for (const auto& d : devices_)
    if (!d->finished()) parts.push_back("device '" + d->context().node + "' not finished");
  std::string s;
  for (std::size_t i = 0; i < parts.size() && i < 8; ++i) s += (i ? "; " : "") + parts[i];
  if (parts.size() > 8) s += "; and " + std::to_string(parts.size() - 8) + " more";
  return s;
}

void System::trace(sc_core::sc_trace_file* tf) {
  fabric_->trace(tf);
  for (auto& g : gpus_) g->trace(tf);
}

void System::finish() {
  fabric_->finish();
  for (auto& g : gpus_) g->finish();
}

// A user trial: a periodic app's 1 MiB copy ended at 299.54 us in the flow mode and after
// the 300 us cut-off in the packet model, so the app read 2 copies against 3 (bytes +94 %,
// p50 tenfold) with no note for it.
std::vector<FidelityNote> System::cutoff_notes(double end_ns) const {
  const double time_ns = config().sim.time_ns, share = fabric_->timing_accuracy();
  if (share <= 0 || time_ns <= 0 || end_ns < time_ns) return {};
  const auto delivered = [this](uint64_t transfer) { return fabric_->delivered_bytes(transfer); };
  char text[160];
  std::snprintf(text, sizeof text, "copies ending within %g %% of their time of the sim.time_ns cut-off (%.3f us)",
                100 * share, time_ns / 1000.0);
  FidelityNote n{"fabric", text,
                 "whether such a copy counts (bytes, transfers, latencies, iterations, deadlines) can differ from the "
                 "packet model's, whose copy times this fidelity follows only that closely: compare copies that end "
                 "well before the cut-off, or run longer",
                 {}};
  for (std::size_t k = 0; k < apps_.size(); ++k)
    if (apps_[k]->copy_ends_near(end_ns, share, delivered)) n.flows.push_back(static_cast<uint32_t>(k + 1));
  if (n.flows.empty()) return {};
  return {n};
}

// Same-instant ties a queue served in an order the model does not define (same_instant_ties.h).
std::vector<FidelityNote> System::tie_notes() const {
  std::vector<FidelityNote> notes;
  const auto note = [&](const std::string& where, const char* what, const SameInstantTies& t) {
    if (t.times() == 0) return;
    char when[96];
    std::snprintf(when, sizeof when, " (first at %.3f us, %d time%s)", t.first_ns(), t.times(), t.times() == 1 ? "" : "s");
    FidelityNote n{where, std::string(what),
                   std::string("tie order not modelled: they are served in the order the simulation ran their "
                               "submitters, which the model does not define (swapping the apps' places in the config "
                               "can swap it); offset one's start by a picosecond to choose") + when,
                   {}};
    for (int owner : t.owners())
      if (owner > 0) n.flows.push_back(static_cast<uint32_t>(owner));
    notes.push_back(std::move(n));
  };
  for (const auto& g : gpus_)
    note(g->label(), "kernels of several apps submitted at the same instant, one waiting for SMs", g->kernel_ties());
  if (batch_runtime_)
    note("batch runtime", "batches of several apps issued at the same instant, one waiting for another", batch_runtime_->ties());
  return notes;
}

void System::restart_stats() {
  const auto delivered = [this](uint64_t transfer) { return fabric_->delivered_bytes(transfer); };
  for (auto& a : apps_) a->restart_stats(delivered);
  for (auto& d : devices_) d->restart_stats(delivered);
  fabric_->restart_stats();
  for (auto& g : gpus_) g->restart_stats();
}

std::vector<int> System::vc_counts() const {
  std::set<int> n;
  for (std::size_t d = 0; d < s_.walk.size(); ++d) n.insert(fabric_->link_vcs(static_cast<int>(d)));
  return {n.begin(), n.end()};
}

}  // namespace arbsim
