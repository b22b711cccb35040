#include "models/flow/fidelity_watch.h"
#include <algorithm>

namespace arbsim::flow {

namespace {

// Where `edge` sits in `path`, or -1.
int position(const std::vector<int>& path, int edge) {
  const auto it = std::find(path.begin(), path.end(), edge);
  return it == path.end() ? -1 : static_cast<int>(it - path.begin());
}

}  // namespace

void FidelityWatch::look(double now_ns, const std::vector<WatchFlow>& flows, const VcOf& vc_of) {
  for (const Key& k : active_) seen_[k].total_ns += now_ns - last_ns_;
  active_.clear();
  last_ns_ = now_ns;
  index(flows);
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const WatchFlow& f = flows[i];
    if (f.bottleneck < 0) continue;
    const int at = position(*f.data_path, f.bottleneck);
    // Held back at its first hop, a flow waits in its own engine: no shared buffer fills.
    if (at >= 1) holding_back(i, static_cast<std::size_t>(at), flows, vc_of);
  }
}

// by_edge_[e]: every (flow, position, request?) crossing edge e, so that a held flow meets
// only the flows of its own links (a look costs the flows' hops, not their pairs).
void FidelityWatch::index(const std::vector<WatchFlow>& flows) {
  by_edge_.resize(edges_.size());
  for (auto& v : by_edge_) v.clear();
  for (std::size_t i = 0; i < flows.size(); ++i) {
    for (std::size_t p = 0; p < flows[i].data_path->size(); ++p)
      by_edge_[static_cast<std::size_t>((*flows[i].data_path)[p])].push_back({i, p, false});
    if (flows[i].request_path)
      for (std::size_t p = 0; p < flows[i].request_path->size(); ++p)
        by_edge_[static_cast<std::size_t>((*flows[i].request_path)[p])].push_back({i, p, true});
  }
}

// Flow `fi` is held back at egress data_path[at]: its TLPs queue in the receiver of the link
// before it. Each other flow on that link that leaves by another egress (or ends there),
// its data or a read's requests, is affected as the header says; one that leaves by the
// same egress is arbitrated there, as the fluid has it. Where that link's credits for f's
// class are finite they run out, and the queue moves up to the link before it, and so on
// to the source or to a link with infinite credits. A read's completions never overdraw:
// its tag window bounds what it has in flight, so once that many wait it sends no more
// than it drains (flow_network.h).
void FidelityWatch::holding_back(std::size_t fi, std::size_t at, const std::vector<WatchFlow>& flows,
                                 const VcOf& vc_of) {
  const WatchFlow& f = flows[fi];
  const std::vector<int>& path = *f.data_path;
  for (std::size_t j = at; j-- > 0;) {
    const int in = path[j], out = path[j + 1];
    const WatchEdge& e = edges_[static_cast<std::size_t>(in)];
    const bool credits = f.completions ? e.finite_completion : e.finite_posted;
    const int vc = vc_of(in, f.tc);
    for (const Crossing& c : by_edge_[static_cast<std::size_t>(in)]) {
      const WatchFlow& g = flows[c.flow];
      const std::vector<int>& gp = c.request ? *g.request_path : *g.data_path;
      if (c.flow == fi || (c.pos + 1 < gp.size() && gp[c.pos + 1] == out)) continue;
      const bool same_vc = vc_of(in, g.tc) == vc;
      if (e.fifo_ingress && same_vc) note(Unrepresented::HeadOfLine, in, out);
      if (credits && same_vc) note(Unrepresented::Backpressure, in, out);
      if (!credits && !f.completions) note(Unrepresented::Overdraw, in, out);
    }
    if (!credits) break;
  }
}

void FidelityWatch::note(Unrepresented what, int in, int out) {
  const Key key{what, in, out};
  seen_.emplace(key, Sighting{last_ns_, 0});
  if (std::find(active_.begin(), active_.end(), key) == active_.end()) active_.push_back(key);
}

}  // namespace arbsim::flow
