#include "models/flow/flow_scheduler.h"
#include <algorithm>
#include <set>
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
    : capacity_(std::move(capacity)),
      arbitration_(std::move(arbitration)),
      busy_(capacity_.size(), 0.0),
      on_edge_(capacity_.size()) {
  if (!arbitration_.empty() && arbitration_.size() != capacity_.size())
    throw std::invalid_argument("flow::Scheduler: one arbitration per edge needed");
}

// A flow's bytes moved over `dt` at its rate, not beyond what it has left.
static double moved_over(double rate, double left, double dt) {
  return rate == kUnbounded ? std::max(0.0, left) : rate * std::min(dt, std::max(0.0, left) / rate);
}

void Scheduler::progress(double now_ns) {
  if (now_ns < now_) throw std::invalid_argument("flow::Scheduler: time went backwards");
  const double dt = now_ns - now_;
  for (auto& [id, f] : flows_) {
    if (f.rate == kUnbounded) {
      f.left = 0;
      continue;
    }
    const double moved = moved_over(f.rate, f.left, dt);
    if (dt > 0 && f.left > 0) f.moved_at = f.rate;
    for (const Hop& h : f.spec.path) busy_[h.edge] += moved * h.weight / capacity_[h.edge];
    f.left -= f.rate * dt;
  }
  now_ = now_ns;
}

double Scheduler::sent_at(int id, double now_ns) const {
  const Running& f = flows_.at(id);
  return f.volume - f.left + moved_over(f.rate, f.left, std::max(0.0, now_ns - now_));
}

std::vector<double> Scheduler::busy_ns_at(double now_ns) const {
  std::vector<double> busy = busy_;
  const double dt = std::max(0.0, now_ns - now_);
  for (const auto& [id, f] : flows_) {
    if (f.rate == kUnbounded) continue;  // progress() counts no busy time for those either
    const double moved = moved_over(f.rate, f.left, dt);
    for (const Hop& h : f.spec.path) busy[h.edge] += moved * h.weight / capacity_[h.edge];
  }
  return busy;
}

std::vector<int> Scheduler::advance(double now_ns) {
  progress(now_ns);
  std::vector<int> done, touched;
  finished_rates_.clear();
  for (auto it = flows_.begin(); it != flows_.end();) {
    if (exhausted(it->second.left, it->second.rate, it->second.volume)) {
      done.push_back(it->first);
      finished_rates_.push_back(it->second.moved_at >= 0 ? it->second.moved_at : it->second.rate);
      for (const Hop& h : it->second.spec.path) touched.push_back(h.edge);
      unindex(it->first, it->second.spec);
      it = flows_.erase(it);
    } else {
      ++it;
    }
  }
  if (!done.empty()) recompute(touched);
  return done;
}

int Scheduler::add(double now_ns, double volume, FlowSpec spec) {
  progress(now_ns);
  Running f;
  f.volume = f.left = std::max(0.0, volume);
  f.spec = std::move(spec);
  f.most = f.spec.cap;
  for (const Hop& h : f.spec.path)
    if (!h.ahead && h.weight > 0) f.most = std::min(f.most, capacity_.at(static_cast<std::size_t>(h.edge)) / h.weight);
  std::vector<int> touched;
  for (const Hop& h : f.spec.path) {
    on_edge_.at(static_cast<std::size_t>(h.edge)).push_back(next_id_);
    touched.push_back(h.edge);
  }
  flows_.emplace(next_id_, std::move(f));
  recompute(touched);
  return next_id_++;
}

double Scheduler::next_finish_ns() const {
  double t = kUnbounded;
  for (const auto& [id, f] : flows_)
    t = std::min(t, f.rate == kUnbounded ? now_ : now_ + std::max(0.0, f.left) / f.rate);
  return t;
}

void Scheduler::unindex(int id, const FlowSpec& spec) {
  for (const Hop& h : spec.path) {
    std::vector<int>& on = on_edge_.at(static_cast<std::size_t>(h.edge));
    on.erase(std::remove(on.begin(), on.end(), id), on.end());
  }
}

bool Scheduler::can_bind(int edge) const {
  double most = 0;
  for (int id : on_edge_[static_cast<std::size_t>(edge)]) {
    const Running& f = flows_.at(id);
    for (const Hop& h : f.spec.path)
      if (h.edge == edge) most += f.most * h.weight;
  }
  return most >= capacity_[static_cast<std::size_t>(edge)] * (1 - 1e-9);
}

// The running flows on `edges` and those that share an edge that can bind with them,
// directly or through others: the only ones whose rates a change there can move (each
// component's rates depend on its own flows and binding edges alone). In id order.
std::vector<int> Scheduler::component(const std::vector<int>& edges) const {
  std::vector<char> seen_edge(capacity_.size(), 0);
  std::set<int> ids;
  std::vector<int> todo;
  auto reach = [&](int e) {
    if (!seen_edge[static_cast<std::size_t>(e)]) seen_edge[static_cast<std::size_t>(e)] = 1, todo.push_back(e);
  };
  for (int e : edges) reach(e);
  for (bool seeds = true; !todo.empty(); seeds = false) {
    std::vector<int> now;
    now.swap(todo);
    for (int e : now) {
      if (!seeds && !can_bind(e)) continue;
      for (int id : on_edge_[static_cast<std::size_t>(e)])
        if (ids.insert(id).second)
          for (const Hop& h : flows_.at(id).spec.path) reach(h.edge);
    }
  }
  return {ids.begin(), ids.end()};
}

void Scheduler::recompute(const std::vector<int>& edges) {
  std::vector<int> ids;
  if (edges.empty()) {
    for (const auto& [id, f] : flows_) ids.push_back(id);
  } else {
    ids = component(edges);
  }
  // Hops on edges that cannot bind weigh nothing: no share is computed there (the hop stays,
  // for the path: arbitrated_rates.h splits a requester's turn by the egress before it).
  std::vector<char> binds(capacity_.size(), 2);  // 2: not asked yet
  std::vector<FlowSpec> specs;
  specs.reserve(ids.size());
  for (int id : ids) {
    specs.push_back(flows_.at(id).spec);
    for (Hop& h : specs.back().path) {
      char& b = binds[static_cast<std::size_t>(h.edge)];
      if (b == 2) b = can_bind(h.edge) ? 1 : 0;
      if (!b) h.weight = 0;
    }
  }
  ArbitratedRates r;
  if (arbitration_.empty()) {
    r.rate = max_min_rates(capacity_, specs);
    r.bottleneck.assign(specs.size(), -1);
  } else {
    r = arbitrated_rates(capacity_, arbitration_, specs);
    unsettled_ += r.converged ? 0 : 1;
  }
  for (std::size_t i = 0; i < ids.size(); ++i) {
    Running& f = flows_.at(ids[i]);
    f.rate = r.rate[i];
    f.bottleneck = r.bottleneck[i];
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
