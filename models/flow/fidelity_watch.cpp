#include "models/flow/fidelity_watch.h"
#include <algorithm>

namespace arbsim::flow {

namespace {

// Where `edge` sits in `path`, or -1.
int position(const std::vector<int>& path, int edge) {
  const auto it = std::find(path.begin(), path.end(), edge);
  return it == path.end() ? -1 : static_cast<int>(it - path.begin());
}

// `path` crosses `in` and leaves its receiver by another egress than `out` (or ends there).
bool elsewhere(const std::vector<int>& path, int in, int out) {
  const int q = position(path, in);
  if (q < 0) return false;
  const std::size_t next = static_cast<std::size_t>(q) + 1;
  return next >= path.size() || path[next] != out;
}

}  // namespace

void FidelityWatch::look(double now_ns, const std::vector<WatchFlow>& flows, const VcOf& vc_of) {
  for (const Key& k : active_) seen_[k].total_ns += now_ns - last_ns_;
  active_.clear();
  last_ns_ = now_ns;
  for (const WatchFlow& f : flows) {
    if (f.bottleneck < 0) continue;
    const int at = position(*f.data_path, f.bottleneck);
    // Held back at its first hop, a flow waits in its own engine: no shared buffer fills.
    if (at >= 1) holding_back(f, static_cast<std::size_t>(at), flows, vc_of);
  }
}

// `f` is held back at egress data_path[at]: its TLPs queue in the receiver of the link
// before it. Each other flow on that link that leaves by another egress (or ends there),
// its data or a read's requests, is affected as the header says; one that leaves by the same egress is arbitrated there, as
// the fluid has it. Where that link's credits for f's class are finite they run out, and
// the queue moves up to the link before it, and so on to the source or to a link with
// infinite credits. A read's completions never overdraw: its tag window bounds what it has
// in flight, so once that many wait it sends no more than it drains (flow_network.h).
void FidelityWatch::holding_back(const WatchFlow& f, std::size_t at, const std::vector<WatchFlow>& flows,
                                 const VcOf& vc_of) {
  const std::vector<int>& path = *f.data_path;
  for (std::size_t j = at; j-- > 0;) {
    const int in = path[j], out = path[j + 1];
    const WatchEdge& e = edges_[static_cast<std::size_t>(in)];
    const bool credits = f.completions ? e.finite_completion : e.finite_posted;
    const int vc = vc_of(in, f.tc);
    for (const WatchFlow& g : flows) {
      if (&g == &f || !(elsewhere(*g.data_path, in, out) || (g.request_path && elsewhere(*g.request_path, in, out))))
        continue;
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
