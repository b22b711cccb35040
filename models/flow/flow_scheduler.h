// The event loop of seed 002 Algorithm 1 (ComputeNextEvent), generalised to any graph and
// to flows that start while others run: rates are constant between events and recomputed
// by max-min fair sharing (max_min.h), or as each edge's egress arbitrates when the edges
// have arbitrations (arbitrated_rates.h), only when a flow starts or finishes ("the throughput
// of concurrent data transfers is constant as long as no transfer starts or completes",
// seed 002 §3.2). Times in ns, volumes in bytes, rates in bytes/ns (GB/s). Plain C++.
//
// Cost: an event costs the flows it can affect, not the platform (issue 12). A start or an
// end marks the edges it crosses; the rates are recomputed once, when next asked, for the
// component of the marked edges: the running flows that share an edge that can bind with
// them, directly or through others (an edge whose flows, each at the most it can ever move,
// fit in its capacity never holds anyone back under any arbiter, each dividing
// work-conservingly, so it neither joins components nor enters the computation). Several
// starts and ends at one instant thus cost one computation. A flow's progress is kept as
// (bytes left, time) at its last change of rate, and finish times in two heaps, so nothing
// walks every running flow per event. A read whose requests come to be held keeps moving the
// data of the requests it has out until they have drained (flow_scheduler.cpp, "A read's
// window draining").
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <vector>
#include "models/flow/arbitrated_rates.h"
#include "models/flow/indexed_heap.h"
#include "models/flow/max_min.h"
#include "models/flow/rate_memo.h"

namespace arbsim::flow {

// When a flow counts as released (Scheduler::add()): once no more than `left` bytes are left
// (0: at its end), and not before `not_before_ns`.
struct Release {
  double left = 0;
  double not_before_ns = 0;
};

// A cap that applies only once `after` bytes of a flow have moved (Scheduler::add()): a
// read requests its first tag window at once, so the tags bound only what follows it
// (docs/architecture.md, "Flow-level mode").
struct LaterCap {
  double after = 0;
  double cap = kUnbounded;
};

class Scheduler {
 public:
  // Without `arbitration` (or with an empty one) every edge shares flat max-min per flow;
  // with one, arbitration[e] is edge e's (arbitrated_rates.h).
  explicit Scheduler(std::vector<double> capacity, std::vector<EdgeArbitration> arbitration = {});
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Moves time on to `now_ns` and removes the flows that have sent their whole volume (what
  // is left would take under 1 ps at their rate, or is under a byte per GB of volume);
  // returns their ids (ascending, i.e. in start order).
  std::vector<int> advance(double now_ns);
  // The rates the flows the last advance() removed last moved at (over the last interval in
  // which they moved: a share recomputed at the instant a flow runs out, because another
  // starts then, is not the rate it finished at), in its order; for a flow whose later cap
  // applied, the rate before it (a read's windows come back in bursts at its share of the
  // links, the tags only spacing them: LaterCap).
  const std::vector<double>& finished_rates() const { return finished_rates_; }
  // When each of them last had its requests passing (a read not held on its requests,
  // or the time its requests out at its start went: add(); -1: never; a write: kUnbounded),
  // in the same order.
  const std::vector<double>& finished_opened_ns() const { return finished_opened_; }
  // A queue that backs up holding a flow (ArbitratedRates::queued_window), at every
  // computation since `since_ns`: what of its window waited there at the last (0: no queue
  // held it at the last), and its volume left at `since_ns`.
  struct QueueHold {
    double window = 0, since_ns = -1, left = 0;
  };
  // Of the same flows, each one's (in the same order).
  const std::vector<QueueHold>& finished_holds() const { return finished_holds_; }
  // A flow of `volume` bytes starts at `now_ns` (call advance(now_ns) first, so flows that
  // finish by then do not share the new rates). Returns its id. Throws
  // std::invalid_argument on a spec arbitrated_rates() refuses. With a `release` (left > 0) it
  // is released before its end, as that says (a read's engine has issued its last request when
  // only its tag window is still to come): advance() reports that in released(). With a
  // `later` cap, the flow's cap becomes the least of its own and that one once `later.after`
  // bytes have moved (the rates are recomputed then).
  // A read's `requests_out` (in units of its volume) are out at its start: their data come at
  // what its data path gives even where its requests are held (flow_scheduler.cpp, "A read's
  // window draining"); they went out at `opened_ns` (the last time the requests of the
  // reads before it passed).
  int add(double now_ns, double volume, FlowSpec spec, Release release = {}, LaterCap later = {},
          double requests_out = 0, double opened_ns = -1);
  // The most a flow of `spec` can move over its links alone (its slowest edge that shares
  // fairly): a cap at or above it never binds.
  double links_most(const FlowSpec& spec) const;
  // Each edge's arbitration, as the next computation reads it (empty: flat max-min).
  const std::vector<EdgeArbitration>& arbitration() const { return arbitration_; }
  // When the next flow runs out or is released; kUnbounded when nothing is due.
  double next_finish_ns() const;
  // Whether rates are to be recomputed (a start, an end, a later cap, a read's drained
  // window, a reshare since the last computation): the next query makes the computation.
  bool pending() const { return pending_all_ || !pending_.empty(); }
  // The flows the last advance() released and did not remove (ascending ids).
  const std::vector<int>& released() const { return released_; }
  // Reprograms edge `edge`'s TC/VC map from `now_ns` on (a driver policy's remap); reshare()
  // then recomputes the rates (once for all the edges a remap changes).
  void set_tc_map(double now_ns, int edge, const std::array<uint8_t, 8>& tc_to_vc);
  void reshare(double now_ns);
  // Reloads edge `edge`'s port weights (a WRR port arbiter's table, driver.share_control);
  // reshare() applies them. Throws std::logic_error without arbitration.
  void set_port_weights(double now_ns, int edge, const std::vector<double>& weights);
  // Recomputations whose iteration did not settle, or settled only when damped
  // (arbitrated_rates.h), and (kept as above) the ids of the flows in those since the last
  // call; damped() counts the second kind.
  int unsettled() const { return unsettled_; }
  int damped() const { return damped_; }
  // Recomputations whose rates came from the memo (rate_memo.h) instead of the solver.
  uint64_t memo_hits() const { return memo_.hits(); }
  // Starts that took the place of an end of the same spec at the same instant, where nothing
  // else changed: the component's rates stay (settle(), "Replacements").
  uint64_t replacements() const { return replacements_; }
  std::vector<int> take_unsettled();

  bool running(int id) const { return slot_of_.count(id) > 0; }
  double rate(int id) const;
  double sent(int id) const { return sent_at(id, now_); }
  std::size_t running_count() const { return slot_of_.size(); }
  double now_ns() const { return now_; }
  // Time edge e has been busy so far: the integral of its flows' rate x weight / capacity
  // (<= the elapsed time: max-min never fills an edge beyond its capacity).
  double busy_ns(int e) const;
  // What progress to `now_ns` (>= now_ns()) would make sent(id) and every busy_ns(e), the
  // flows left untouched (a flow due to end then is still there for advance() to retire).
  double sent_at(int id, double now_ns) const;
  std::vector<double> busy_ns_at(double now_ns) const;
  // The edges that hold a running flow to its rate, in path order (none: its cap, or
  // nothing), as last computed (arbitrated_rates.h; flat max-min names none). The
  // reference lasts until the next add().
  const std::vector<int>& held(int id) const;
  // Once asked to keep them: the ids whose rates were recomputed since the last call (each
  // computation's, in order; some may have ended since), for a watcher that follows where
  // flows are held (fidelity_watch.h), and those of computations that did not settle.
  // Recomputes first if a start or end is pending.
  void keep_recomputed() { keep_recomputed_ = true; }
  std::vector<int> take_recomputed();

 private:
  struct Running {
    int id = -1;
    double volume = 0;
    double left = 0, since = 0;  // bytes left at time `since`, the flow's last change of rate
    double rate = 0;
    double moved_at = -1;  // the rate over its last interval of positive length (-1: none yet)
    std::vector<int> held;
    QueueHold hold;  // (hold.window: its ArbitratedRates::queued_window at its last computation)
    double most = kUnbounded;  // the most it can ever move: its cap, or its slowest edge alone
    FlowSpec spec;
    uint64_t hash = 0;  // spec_hash(spec): its place in the solver's order (rate_memo.h)
    // New since the last computation, with a spec no earlier flow had (hash): a computation
    // it is in cannot have been made before.
    bool fresh = true;
    bool converged = true;  // its last computation settled (arbitrated_rates.h)
    Release release;  // when it is released (left 0: at its end)
    bool released = false;
    LaterCap later;   // still to apply where later.cap is finite
    double burst = -1;  // the rate before its later cap applied (-1: none applied)
    // A read (its requests start at path[requests_at] < path.size()): what its tag window
    // lets it have requested and not yet received (`window`, in units of its rate), and what
    // it has now (`backlog`, at `since`). Where its requests come to hold it, the data of the
    // requests already out still come at what its data path gives (`drain`: the backlog's
    // fall per ns, 0 when not draining): "A read's window draining", flow_scheduler.cpp.
    std::size_t requests_at = 0;
    double window = 0, backlog = 0, drain = 0;
    double opened_ns = -1;  // when its requests last passed (-1: not yet)
    bool read() const { return requests_at < spec.path.size(); }
  };
  void move_to(double now_ns);
  Running& at(int id);
  const Running& at(int id) const;
  // Recomputes the pending component, if any. The rates are a cache of the running flows
  // (mutable: queries settle them first); single-threaded, as SystemC runs the model.
  void settle() const;
  void recompute(const std::vector<int>& slots) const;
  const ArbitratedRates& rates_of_order() const;
  void set_rate(int slot, double rate) const;
  void note_hold(Running& f, double queued_window) const;
  void rebase(Running& f, double now_ns) const;
  void keyed(int slot) const;
  static double released_at(const Running& f);
  static double capped_at(const Running& f);
  void apply_later_cap(int slot);
  const std::vector<int>& component() const;
  bool can_bind(int edge) const;
  bool queues(int edge) const;
  bool binds(int edge) const;
  void retire(int slot);
  bool requests_hold(const Running& f, const int* held, const int* end) const;
  const ArbitratedRates& with_drains(const ArbitratedRates& r) const;
  void end_drain(int slot);
  void window_out(Running& f) const;
  bool replaces_only() const;
  void take_over() const;
  // This instant's ends (with the rates their last computation gave them) and starts, each
  // start with the end of the same spec it replaces (-1: none), and whether anything else
  // changed the rates' inputs (a later cap, a remap, new weights, a reshare): settle().
  struct Ended {
    FlowSpec spec;
    uint64_t hash = 0;
    double rate = 0;
    std::vector<int> held;
    double queued_window = 0;
    bool usable = false, taken = false;
    bool drained = false;  // a read held by its requests: a start does not take its rates
  };
  mutable std::vector<Ended> ended_;
  mutable std::vector<std::pair<int, int>> started_;
  mutable bool other_change_ = false;
  mutable uint64_t replacements_ = 0;

  std::vector<double> capacity_;
  std::vector<EdgeArbitration> arbitration_;
  double now_ = 0;
  int next_id_ = 0;
  // Running flows in slots (reused), found by id.
  mutable std::vector<Running> slots_;
  std::vector<int> free_;
  std::unordered_map<int, int> slot_of_;
  std::vector<std::vector<int>> on_edge_;  // [edge] slots of the running flows crossing it
  mutable std::vector<double> busy_;       // [edge] ns, up to each crossing flow's `since`
  // Finish times: when a flow's bytes run out, and when it first counts as done (advance());
  // release times of the flows with a release still to come.
  mutable IndexedHeap finish_, done_, release_;
  mutable IndexedHeap later_;  // when a later cap applies (LaterCap)
  mutable IndexedHeap drain_;  // when a draining read's backlog runs out
  // with_drains()'s scratch: the first solve's rates, and the specs without requests.
  mutable ArbitratedRates first_;
  mutable std::vector<FlowSpec> unrequested_;
  mutable std::vector<const FlowSpec*> drain_specs_;
  mutable std::vector<int> draining_;
  // Edges a start, an end or a reshare touched since the last recomputation.
  mutable std::vector<int> pending_;
  mutable bool pending_all_ = false;
  mutable std::vector<int> recomputed_;
  bool keep_recomputed_ = false;
  mutable ArbitratedSolver solver_;
  mutable int unsettled_ = 0, damped_ = 0;
  mutable std::vector<int> unsettled_ids_;
  mutable std::vector<char> binds_, seen_edge_;  // [edge] scratch of a recomputation
  // A recomputation's epoch: binds_[e] is this one's where binds_epoch_[e] is; a slot whose
  // slot_epoch_ is has joined its component.
  mutable uint32_t epoch_ = 0;
  mutable std::vector<uint32_t> binds_epoch_, slot_epoch_;
  // can_bind(e) of this recomputation where can_epoch_[e] is its epoch (queues() asks it of
  // every edge after a queue, for each flow there).
  mutable std::vector<char> can_;
  mutable std::vector<uint32_t> can_epoch_;
  // A recomputation's slots and the component search's edges (scratch: no allocation per event).
  mutable std::vector<int> slots_scratch_, todo_, next_, touched_;
  // A recomputation's flows in the solver's order (slots), their specs, hashes and hops'
  // binds (rate_memo.h), and each slot's place in that order.
  mutable std::vector<int> order_, place_;
  mutable std::vector<const FlowSpec*> specs_;
  mutable std::vector<uint64_t> hashes_;
  mutable std::vector<char> hop_binds_;
  mutable RateMemo memo_;
  // The spec hashes of flows added so far (bounded; forgetting only costs a lookup): a
  // computation with a fresh flow is neither looked up nor stored. Copies of random sizes
  // are all fresh, so they pay for neither (nor does a stream's first copy).
  std::unordered_set<uint64_t> specs_seen_;
  mutable ArbitratedRates flat_;  // flat max-min's rates, as the solver gives its own
  std::vector<double> finished_rates_;
  std::vector<double> finished_opened_;
  std::vector<QueueHold> finished_holds_;
  std::vector<int> released_;
};

}  // namespace arbsim::flow
