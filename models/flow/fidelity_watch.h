// What happens in a flow-mode run that the fluid does not represent, found each time the
// rates change. The fluid moves a flow at its bottleneck rate on every link of its path;
// the packet model's egress ports arbitrate without knowing what lies beyond them, so a
// flow held back at an egress beyond a link it shares still takes its arbitration turns on
// that link, and its TLPs queue in the receiver's buffers (docs/architecture.md, "Flow-level
// mode: what it leaves out"). What the others on that link then see depends on the receiver:
//
// - head-of-line blocking: behind a FIFO ingress (no virtual output queues), flows arriving
//   on the same port and VC for another egress wait behind the held flow's TLPs;
// - backpressure: with finite data credits for the held flow's class, its queued TLPs take
//   the link's credits and every flow on that link and VC waits for the ones it frees; the
//   queue then moves up to the link before, and so on while the credits are finite;
// - overdraw: with infinite credits, a held write keeps its full turn on the link, and the
//   others get less of the link than the fluid gives them (a read's tag window stops it).
//
// Each sighting is keyed by (what, the link the queue builds behind, the egress that holds
// the flow back) and keeps when it was first seen and for how long it held in all. Plain C++.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <tuple>
#include <vector>

namespace arbsim::flow {

struct WatchEdge {
  bool fifo_ingress = false;  // its receiver queues one FIFO per VC (no VOQ)
  bool finite_posted = false, finite_completion = false;  // its receiver advertises finite data credits
};

// One running flow: its data path (edges in order), a read's request path (its MRds queue
// with the rest), its TC, whether its data are completions (a read) and the edge that
// limits its rate (-1: none).
struct WatchFlow {
  const std::vector<int>* data_path = nullptr;
  const std::vector<int>* request_path = nullptr;  // may be null or empty
  int tc = 0;
  bool completions = false;
  int bottleneck = -1;
};

enum class Unrepresented { HeadOfLine, Backpressure, Overdraw };

struct Sighting {
  double first_ns = 0, total_ns = 0;
};

class FidelityWatch {
 public:
  using Key = std::tuple<Unrepresented, int, int>;  // (what, link in, egress that holds back)
  using VcOf = std::function<int(int edge, int tc)>;

  explicit FidelityWatch(std::vector<WatchEdge> edges) : edges_(std::move(edges)) {}
  // The flows as they run from `now_ns` on; the conditions seen at the previous look held
  // until now.
  void look(double now_ns, const std::vector<WatchFlow>& flows, const VcOf& vc_of);
  void finish(double now_ns) { look(now_ns, {}, nullptr); }
  const std::map<Key, Sighting>& sightings() const { return seen_; }

 private:
  struct Crossing {
    std::size_t flow, pos;  // flows[flow] crosses the edge at position pos of its path
    bool request;           // of its request path (else its data path)
  };
  void index(const std::vector<WatchFlow>& flows);
  void holding_back(std::size_t fi, std::size_t at, const std::vector<WatchFlow>& flows, const VcOf& vc_of);
  void note(Unrepresented what, int in, int out);
  std::vector<WatchEdge> edges_;
  std::map<Key, Sighting> seen_;
  std::vector<Key> active_;  // held since the last look
  std::vector<std::vector<Crossing>> by_edge_;
  double last_ns_ = 0;
};

}  // namespace arbsim::flow
