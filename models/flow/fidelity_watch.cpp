#include "models/flow/fidelity_watch.h"
#include <algorithm>

namespace arbsim::flow {

void FidelityWatch::add(int id, const WatchFlow& f) {
  flows_[id] = Watched{f, {}, false};
  index(id, f, true);
  mark(id);
  touch_held_on(f, id);
}

void FidelityWatch::remove(int id) {
  const auto it = flows_.find(id);
  if (it == flows_.end()) return;
  for (const Key& k : it->second.causes) count(k, -1);
  const WatchFlow f = it->second.flow;
  index(id, f, false);
  flows_.erase(it);
  touch_held_on(f, id);
}

void FidelityWatch::set_held(int id, const std::vector<int>& edges) {
  Watched& w = flows_.at(id);
  if (w.flow.held == edges) return;
  w.flow.held = edges;
  mark(id);
}

void FidelityWatch::remap() {
  for (auto& [id, w] : flows_) mark(id);
}

void FidelityWatch::mark(int id) {
  Watched& w = flows_.at(id);
  if (w.dirty) return;
  w.dirty = true;
  dirty_.push_back(id);
}

// by_edge_[e]: every (flow, position, request?) crossing edge e, so that a held flow meets
// only the flows of its own links.
void FidelityWatch::index(int id, const WatchFlow& f, bool add) {
  const auto walk = [&](const std::vector<int>* path, bool request) {
    if (!path) return;
    for (std::size_t p = 0; p < path->size(); ++p) {
      std::vector<Crossing>& on = by_edge_[static_cast<std::size_t>((*path)[p])];
      if (add) {
        on.push_back({id, static_cast<int>(p), request});
      } else {
        on.erase(std::find_if(on.begin(), on.end(),
                              [&](const Crossing& c) { return c.id == id && c.request == request && c.pos == static_cast<int>(p); }));
      }
    }
  };
  walk(f.data_path, false);
  walk(f.request_path, true);
}

// A flow that starts or ends on a link changes what a flow held beyond it causes there.
void FidelityWatch::touch_held_on(const WatchFlow& f, int except) {
  const auto walk = [&](const std::vector<int>* path) {
    if (!path) return;
    for (int e : *path)
      for (const Crossing& c : by_edge_[static_cast<std::size_t>(e)])
        if (c.id != except && !flows_.at(c.id).flow.held.empty()) mark(c.id);
  };
  walk(f.data_path);
  walk(f.request_path);
}

void FidelityWatch::look(double now_ns) {
  now_ = now_ns;
  for (int id : dirty_) {
    const auto it = flows_.find(id);
    if (it != flows_.end() && it->second.dirty) examine(id, it->second);
  }
  dirty_.clear();
}

// The sightings flow `id` causes now; counted in before the old ones are counted out, so
// one that goes on is not cut in two.
void FidelityWatch::examine(int id, Watched& w) {
  w.dirty = false;
  std::vector<Key> causes;
  for (int e : w.flow.held)
    for (const bool request : {false, true}) {
      const std::vector<int>* path = request ? w.flow.request_path : w.flow.data_path;
      if (!path) continue;
      const auto at = std::find(path->begin(), path->end(), e);
      // Held back at its first hop, a flow waits in its own engine: no shared buffer fills.
      if (at != path->end() && at != path->begin())
        holding_back(id, w.flow, request, static_cast<std::size_t>(at - path->begin()), causes);
    }
  std::sort(causes.begin(), causes.end());
  causes.erase(std::unique(causes.begin(), causes.end()), causes.end());
  for (const Key& k : causes) count(k, +1);
  for (const Key& k : w.causes) count(k, -1);
  w.causes = std::move(causes);
}

// Flow f is held back at egress path[at] (its data path, or a read's request path): its
// TLPs queue in the receiver of the link before it. Each other flow on that link that
// leaves by another egress (or ends there), its data or a read's requests, is affected as
// the header says; one that leaves by the same egress is arbitrated there, as the fluid
// has it. Where that link's credits for f's class are finite they run out, and the queue
// moves up to the link before it, and so on to the source or to a link with infinite
// credits. A read never overdraws, by its completions or its MRds: its tag window bounds
// what it has in flight, so once that many wait it sends no more than it drains
// (flow_network.h).
void FidelityWatch::holding_back(int id, const WatchFlow& f, bool request, std::size_t at,
                                 std::vector<Key>& out) const {
  const std::vector<int>& path = request ? *f.request_path : *f.data_path;
  const bool write = !request && !f.completions;
  for (std::size_t j = at; j-- > 0;) {
    const int in = path[j], next = path[j + 1];
    const WatchEdge& e = edges_[static_cast<std::size_t>(in)];
    const bool credits = request ? e.finite_nonposted : f.completions ? e.finite_completion : e.finite_posted;
    const int vc = vc_of_(in, f.tc);
    for (const Crossing& c : by_edge_[static_cast<std::size_t>(in)]) {
      if (c.id == id) continue;
      const WatchFlow& g = flows_.at(c.id).flow;
      const std::vector<int>& gp = c.request ? *g.request_path : *g.data_path;
      if (static_cast<std::size_t>(c.pos) + 1 < gp.size() && gp[static_cast<std::size_t>(c.pos) + 1] == next) continue;
      const bool same_vc = vc_of_(in, g.tc) == vc;
      if (e.fifo_ingress && same_vc) out.emplace_back(Unrepresented::HeadOfLine, in, next);
      if (credits && same_vc) out.emplace_back(Unrepresented::Backpressure, in, next);
      if (!credits && write) out.emplace_back(Unrepresented::Overdraw, in, next);
    }
    if (!credits) break;
  }
}

// A sighting holds while some flow causes it: from the first to the last, its time counts.
void FidelityWatch::count(const Key& k, int delta) {
  auto& [causes, since] = active_[k];
  if (causes == 0) {
    since = now_;
    seen_.emplace(k, Sighting{now_, 0});
  }
  causes += delta;
  if (causes == 0) {
    seen_[k].total_ns += now_ - since;
    active_.erase(k);
  }
}

void FidelityWatch::finish(double now_ns) {
  now_ = now_ns;
  for (const auto& [k, a] : active_) seen_[k].total_ns += now_ - a.second;
  active_.clear();
}

}  // namespace arbsim::flow
