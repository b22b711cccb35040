#include "models/flow/flow_scheduler.h"
#include <algorithm>
#include <stdexcept>

namespace arbsim::flow {

namespace {

// A flow is done when what is left would take under 1 ps (the packet kernel's resolution,
// to which the caller rounds event times) or is under a byte per GB of volume.
bool exhausted(double left, double rate, double volume) {
  return left <= rate * 1e-3 + volume * 1e-9;
}

}  // namespace

Scheduler::Scheduler(std::vector<double> capacity, std::vector<EdgeArbitration> arbitration)
    : capacity_(std::move(capacity)), arbitration_(std::move(arbitration)), busy_(capacity_.size(), 0.0) {
  if (!arbitration_.empty() && arbitration_.size() != capacity_.size())
    throw std::invalid_argument("flow::Scheduler: one arbitration per edge needed");
}

void Scheduler::progress(double now_ns) {
  if (now_ns < now_) throw std::invalid_argument("flow::Scheduler: time went backwards");
  const double dt = now_ns - now_;
  for (auto& [id, f] : flows_) {
    if (f.rate == kUnbounded) {
      f.left = 0;
      continue;
    }
    const double moved = f.rate * std::min(dt, std::max(0.0, f.left) / f.rate);  // not beyond its volume
    if (dt > 0 && f.left > 0) f.moved_at = f.rate;
    for (const Hop& h : f.spec.path) busy_[h.edge] += moved * h.weight / capacity_[h.edge];
    f.left -= f.rate * dt;
  }
  now_ = now_ns;
}

std::vector<int> Scheduler::advance(double now_ns) {
  progress(now_ns);
  std::vector<int> done;
  finished_rates_.clear();
  for (auto it = flows_.begin(); it != flows_.end();) {
    if (exhausted(it->second.left, it->second.rate, it->second.volume)) {
      done.push_back(it->first);
      finished_rates_.push_back(it->second.moved_at >= 0 ? it->second.moved_at : it->second.rate);
      it = flows_.erase(it);
    } else {
      ++it;
    }
  }
  if (!done.empty()) recompute();
  return done;
}

int Scheduler::add(double now_ns, double volume, FlowSpec spec) {
  progress(now_ns);
  Running f;
  f.volume = f.left = std::max(0.0, volume);
  f.spec = std::move(spec);
  flows_.emplace(next_id_, std::move(f));
  recompute();
  return next_id_++;
}

double Scheduler::next_finish_ns() const {
  double t = kUnbounded;
  for (const auto& [id, f] : flows_)
    t = std::min(t, f.rate == kUnbounded ? now_ : now_ + std::max(0.0, f.left) / f.rate);
  return t;
}

void Scheduler::recompute() {
  std::vector<FlowSpec> specs;
  specs.reserve(flows_.size());
  for (const auto& [id, f] : flows_) specs.push_back(f.spec);
  ArbitratedRates r;
  if (arbitration_.empty()) {
    r.rate = max_min_rates(capacity_, specs);
    r.bottleneck.assign(specs.size(), -1);
  } else {
    r = arbitrated_rates(capacity_, arbitration_, specs);
    unsettled_ += r.converged ? 0 : 1;
    most_rounds_ = std::max(most_rounds_, r.rounds);
  }
  std::size_t i = 0;
  for (auto& [id, f] : flows_) {
    f.rate = r.rate[i];
    f.bottleneck = r.bottleneck[i++];
  }
}

void Scheduler::set_tc_map(double now_ns, int edge, const std::array<uint8_t, 8>& tc_to_vc) {
  progress(now_ns);
  if (arbitration_.empty()) return;  // flat max-min: no VCs
  arbitration_.at(static_cast<std::size_t>(edge)).tc_to_vc = tc_to_vc;
}

void Scheduler::set_port_weights(double now_ns, int edge, const std::vector<double>& weights) {
  progress(now_ns);
  if (arbitration_.empty()) throw std::logic_error("flow::Scheduler: no arbitration to reweight");
  arbitration_.at(static_cast<std::size_t>(edge)).port.weights = weights;
}

void Scheduler::reshare(double now_ns) {
  progress(now_ns);
  recompute();
}

}  // namespace arbsim::flow
