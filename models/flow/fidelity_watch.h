// What happens in a flow-mode run that the fluid does not represent, found each time the
// rates change. The fluid moves a flow at its bottleneck rate on every link of its path;
// the packet model's egress ports arbitrate without knowing what lies beyond them, so a
// flow held back at an egress beyond a link it shares still takes its arbitration turns on
// that link, and its TLPs queue in the receiver's buffers (docs/architecture.md, "Flow-level
// mode: what it leaves out"). What the others on that link then see depends on the receiver:
//
// - head-of-line blocking: behind a FIFO ingress (no virtual output queues), flows arriving
//   on the same port and VC for another egress wait behind the held flow's TLPs;
// - backpressure: with finite credits for the held flow's class that it can fill (a write
//   always; a read where its tag window holds as many TLPs of the class: the rule the rate
//   computation backs a queue up by, arbitrated_rates.cpp), its queued TLPs take the link's
//   credits and every flow on that link and VC waits for the ones it frees; the queue then
//   moves up to the link before, and so on while it can fill the credits there;
// - overdraw: with infinite credits, a held write keeps its full turn on the link, and the
//   others get less of the link than the fluid gives them (a read's tag window stops it);
// - credits filled ahead of the pace: with finite credits it can fill, a held flow not held
//   on the link before gets more turns there than its pace until they run out (and gives
//   them back at its end); a flow below it under unguarded strict priority, or held on that
//   link, loses the credits' worth of its TLPs (fill_delay_ns());
// - a read's window in a held flow's queue: its requests, fewer than the held flow's backlog
//   in the same ingress queue (same port, VC and egress), also spend their round trip
//   outside it, which the fluid's share of the queue leaves out (window_in_queue());
// - a shared queue: flows of one ingress queue that the held flow's egress carries in
//   different VCs leave in the queue's order, not as that egress's VC arbiter divides;
// - an overtaken tail: a copy held beyond its first link ends in the fluid when its data has
//   left its engine, but its last TLPs still queue on the way; its engine's next copy, in
//   another VC there, overtakes them, and the first copy ends later than the fluid's (the
//   fluid holds the copy until its tail can leave where the next copy goes strictly first:
//   FlowFabric::overtaken_tail(); named all the same, for what it leaves out). Also a
//   copy held so once (stopped by priorities further on, say) and held at two links in a row
//   since: what queued between them never drains (survey seed 30092 t0: 114 us late, the
//   same at 4x the size; without its engine's next copy, or not stopped, within 0.7 %);
// - a transient: a read's tag window of completions arrives in a burst at its start, up to
//   tags x MRRS bytes ahead of the fluid's share on each link it shares (a sharer of under
//   33 windows' bytes sees it: 3 % or more of its time; a read of under 33 windows gains
//   as much); its requests burst the same way on its request path: a window of MRds queued
//   at once, which a short copy they go ahead of (a lower VC under strict VC priority, fewer
//   turns under weighted round robin, or the same ingress queue) waits out while they leave (a user trial: a GPU's 4 KiB write behind its own
//   64 KiB read's 128 MRds under strict VC priority on a Gen3 x16 link, p99 714 ns in the
//   packet model against the fluid's 512, with no note until 2026-11-26);
// - a pile of requests: a read engine issues the requests of all the reads it holds at once,
//   up to its tags, and a stream of writes from another engine on a link they pile up at
//   takes turns with them one TLP for one, each TLP waiting an MRd's time, where the fluid
//   spreads the requests at the reads' pace (request_pile(); a user trial: 64 B writes 64
//   deep beside four 64 KiB reads on a Gen3 x16 GPU link, p99 574 ns against 484, unnamed
//   until 2026-11-27);
// - a short copy in the very queue a held flow backs up (the same port, VC and egress): it
//   waits behind that backlog (the receiver's credits' worth, or without limit with infinite
//   credits), where the fluid gives it its share of the queue's drain at once (a user trial:
//   two 1000 B reads behind a GPU's own writes backed up at a Gen3 uplink under a Gen4 link,
//   p50 3.18 us in the packet model against 0.88 us, no note until 2026-11-26; with infinite
//   credits the fluid held them until the writes ended: p99 646.5 us against 117.6 us);
// - a read's tag window queued at its completer: its requests reach the completer (host
//   memory, a GPU) faster than the completer serves their data, so up to tags x MRRS bytes
//   of its completions leave there in request order, ahead of the other reads it serves,
//   however lightly loaded the completer is on average (seed 000's platform: an 8 KiB read
//   beside a 1 MiB read of 4 KiB requests, p99 21.8 us in the packet model against the
//   fluid's 1.4 us, with no note until 2026-11-26);
// - a read held to its tag window's pace on a saturated link: its cap takes a request's round
//   trip alone, where in the packet model each request's completions also wait their turns
//   on that link, so it moves slower (Gen3 x1, one tag, beside a peer write: 20 % slower);
// - a credit loop: a receiver's credits that carry less per round trip than the copy could
//   move alone (few credits, or a long flight: flow_network.h, credit_loop_cap()); the
//   packet model sends a window and waits for its credits, the fluid moves the copy at its
//   share of the link (1 MiB over a Gen4 x16 link of 1 us flight: 67.7 us against 41.4);
// - waits behind other reads' windows at a completer, which a read held to its tag window's
//   pace cannot catch up on: counted for reads below a queueing one in the completer's strict
//   VC order, named at 3 % of its least time (completer_waits());
// - strict VC priority on a link with room: a read's window bursting ahead of a lower VC's
//   copy, or a read held to its window's pace below a running higher VC (burst_above(),
//   tag_queueing());
// - a read's requests held on its request path by copies of at most 3 % of its window, which
//   its window absorbs in the packet model (requests_held_briefly());
// - credits pooled beyond their pace: copies of one class and VC whose rates together need
//   more of a receiver's credits per round trip than it has, though each alone needs fewer
//   (a user trial: four Gen3 x4 GPUs writing 1 MiB copies up a Gen4 x16 link of 8 posted-
//   header credits, 22.3 Gb/s each in the packet model against the fluid's 26.6, unnamed);
// - a queue left behind: a write whose hold moves from a link beyond to one nearer its
//   source leaves its TLPs queued before the old hold, which still leave at its old rate, so
//   the packet model's copy runs ahead of the fluid by that queue (moved_back());
// - a remap while queues stand: a TC/VC map change that moves the TC of a flow crossing a
//   saturated link (some flow held there); the packet model first drains that TC's TLPs
//   queued on its old VC, and the new VC's receive buffers may still hold TLPs of the TC
//   that left it, which leave at that TC's new, lower place (seed 000's qos escalating a
//   read at rc0->sw0: it waited 7.8 us for the demoted read's queued tag window, against the
//   fluid's at once; remaps() keeps these, apart from the sightings: a remap is an instant).
//
// Each sighting is keyed by (what, the link the queue builds behind, the egress that holds
// the flow back) and keeps when it was first seen and for how long it held in all.
//
// Incremental (issue 12: an event costs what it can affect): each flow keeps the sightings
// it causes; a look re-examines only the flows whose holds changed and the held flows on
// the links of a flow that started or ended. A copy that starts at the instant one ended
// with the same description (its engine's next copy of a stream: the same paths, TC, owner,
// windows and credit loops, and a size on the same side of every burst threshold) takes the
// ended one's place, its sightings and holds: nothing changes for the others, which are not
// re-examined (the ended copy's effects on them wait for the look, where a copy that took
// its place cancels them). Plain C++.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>
#include "models/flow/edge_share.h"
#include "models/flow/max_min.h"

namespace arbsim::flow {

// One running flow: its data path (edges in order), a read's request path (its MRds queue
// with the rest), its TC, whether its data are completions (a read) and the edges that
// hold it to its rate (arbitrated_rates.h; none: nothing does). The paths must outlive the
// flow's time in the watch.
struct WatchFlow {
  const std::vector<int>* data_path = nullptr;
  const std::vector<int>* request_path = nullptr;  // may be null or empty
  int tc = 0;
  bool completions = false;
  std::vector<int> held;
  uint32_t owner = 0;  // what the run's notes call it by (FlowFabric: the copy's flow id)
  double bytes = 0;   // its volume
  double window = 0;  // a read's tag window in bytes (tags x MRRS), 0 for a write
  // TLPs it can have in flight on its data path (a read's completions) and its request path
  // (MRds): unbounded for a write (flow_network.h, Hop::window).
  double data_tlps = kUnbounded, request_tlps = kUnbounded;
  // Edges whose receiver's credits bound it alone (TransferPlan::credit_loops), and whether
  // on its request path (a read's MRds) rather than its data path.
  std::vector<std::pair<int, bool>> credit_loops;
  // Edges whose credits could not carry its pace either, but hold all its TLPs of the class
  // (TransferPlan::shared_credit_loops): (edge, request path?, the credits' round trip, ns,
  // the TLPs of its size they hold).
  struct SharedLoop {
    int edge = 0;
    bool request = false;
    double round_trip_ns = 0;
    double window = kUnbounded;  // TLPs of its size the credits hold (flow::Edge::window_tlps())
    bool operator==(const SharedLoop& o) const {
      return edge == o.edge && request == o.request && round_trip_ns == o.round_trip_ns && window == o.window;
    }
  };
  std::vector<SharedLoop> shared_credit_loops{};
  // Edges whose credits of its class carry less of its TLPs per round trip than the link
  // could (TransferPlan::credit_pools), with the credits it holds there per unit of rate:
  // its TLPs per unit of its volume times their round trip (Little's law: credits out =
  // TLPs per ns x ns each is out), in headers and in data credits; and the receiver's
  // headers and data credits of the class (kUnbounded: infinite). The copies of a pool
  // (edge, class, VC) hold at most those together (pooled_credit_limited()).
  struct CreditPool {
    int edge = 0;
    bool request = false;
    double credit_ns_per_unit = 0;  // header credits x ns
    double data_ns_per_unit = 0;    // data credits x ns
    double headers = kUnbounded, data = kUnbounded;
    double round_trip_ns = 0;       // of one of its TLPs' credits there
  };
  std::vector<CreditPool> credit_pools{};
  // A read held to its tag window's pace (FlowFabric: by nothing else), whose cap takes a
  // request's round trip alone: on a saturated link the packet model's requests and
  // completions also wait their turns there, so the read moves slower (set_window_bound()).
  bool window_bound = false;
  // A read whose requests reach its completer faster than the completer serves their data:
  // how long the part of its tag window that queues there holds up what the completer serves
  // after it (FlowFabric::completer_delay_ns()), 0 for none.
  double completer_delay_ns = 0;
  double completer_bytes_per_ns = kUnbounded;  // the rate its completer serves it at
  // Payload bytes per TLP on its data path (MPS, or a read's completion size) and per request
  // on its request path (MRRS): how many TLPs it queues (0: not known, not counted).
  double data_tlp_bytes = 0, request_tlp_bytes = 0;
  // The requester it arrives through at each egress of its data path and of its request path
  // (flow::Hop::slot): strict port priority goes by it.
  std::vector<int> data_slots{}, request_slots{};
  // A read's first tag window of requests (MRds), which leave at once at its start: their wire
  // bytes on its request path's first link (0 for a write).
  double request_burst_bytes = 0;
  double request_burst_ns = 0;  // how long that burst takes to leave its slowest link
  // Its least time in the fabric: its first TLP's latency and its bytes at its peak (0: not
  // known, never named for TLP turns).
  double least_ns = 0;
  // The most it can move per ns: its data path's slowest link, or its pace (its time is at
  // least its bytes over that).
  double peak_bytes_per_ns = kUnbounded;
  // What its copy engine holds at the look (FlowEngine): for a read, the requests (MRds) its
  // engine opened at this instant, up to its tags, which the packet model's engine queues at
  // once; for a write, its engine's write TLPs queued behind it. Empty: not known.
  std::function<double()> engine_queue{};
  // A write's: when the copy holding the k-th of the TLPs queued behind it (k >= 1; below: its
  // own) was submitted to its engine, ns.
  std::function<double(double k)> submitted_ns{};
  // A read's: when its engine sent the last request of the reads it holds, none queued behind
  // (its timeline of soonest times, FlowEngine; kUnbounded: not known, or more to come), and
  // how many of its requests are out (their reads not done).
  std::function<std::pair<double, double>()> requests_out{};
};

enum class Unrepresented { HeadOfLine, Backpressure, Overdraw, SharedQueue, Transient, OvertakenTail, CreditLoop, TagQueueing,
                           CompleterQueue, SameQueue, RequestBurst, TlpTurns, SharedCreditLoop, PooledCreditLoop,
                           RequestsHeldBriefly, TagQueueingBelow, BurstAbove, FillAhead, WindowInQueue, RequestPile,
                           RequestsGone, EarlySuccessor, LeftQueue, UnbackedSharedQueue, StreamInQueue };

// The kinds of TLP a flow sends over a link (how long one holds the link: FidelityWatch::TlpTime).
enum class TlpKind { Request, Write, Completion };

// Inserts v into the ascending vector `into` unless it holds it already; whether it did.
template <class T>
bool insert_sorted(std::vector<T>& into, const T& v) {
  const auto at = std::lower_bound(into.begin(), into.end(), v);
  if (at != into.end() && *at == v) return false;
  into.insert(at, v);
  return true;
}

struct Sighting {
  double first_ns = 0, total_ns = 0;
  // The flows it concerned (held back, or held up behind), ascending.
  std::vector<uint32_t> owners;
  // A bit per owner id below kKnownBits already in `owners`: every look offers the same
  // owners again, thousands of times a look on a saturated root complex uplink, and a bit
  // answers "already" where the sorted vector's search cost the watch a fifth of its time.
  std::vector<uint64_t> known;
  static constexpr uint32_t kKnownBits = 1u << 16;
  void concerns(uint32_t owner) {
    if (owner < kKnownBits) {
      const std::size_t word = owner / 64;
      const uint64_t bit = uint64_t{1} << (owner % 64);
      if (word >= known.size()) known.resize(word + 1, 0);
      if (known[word] & bit) return;
      known[word] |= bit;
    }
    insert_sorted(owners, owner);
  }
};

class FidelityWatch {
 public:
  using Key = std::tuple<Unrepresented, int, int>;  // (what, link in, egress that holds back)
  using VcOf = std::function<int(int edge, int tc)>;

  // `edges`: each edge's arbitration as the rate computation has it (its receiver's FIFO
  // ingress and credits in TLPs per class are what the watch reads).
  explicit FidelityWatch(std::vector<EdgeArbitration> edges, VcOf vc_of)
      : edges_(std::move(edges)), vc_of_(std::move(vc_of)), by_edge_(edges_.size()), held_count_(edges_.size(), 0),
        merged_by_edge_(edges_.size()) {}
  // The instant the holds and rates heard next are of (before the look of that instant:
  // set_held() and set_rate() keep when a hold started).
  void at(double now_ns) { now_ = now_ns; }
  // A flow starts (`id` unique among running flows), ends, or where it is held changes.
  // What follows is seen at the next look().
  void add(int id, const WatchFlow& f);
  void remove(int id, double now_ns);  // what it alone caused ends at now_ns
  void set_held(int id, const std::vector<int>& edges);
  void set_window_bound(int id, bool bound);
  // Its rate (units of its volume per ns), for the copies sharing credits (credit_pools):
  // a flow with none is not looked at again for it.
  void set_rate(int id, double rate);
  // How long one TLP of a kind, with `payload` bytes, holds an edge (request_burst(): where a
  // burst of MRds piles up; tlp_turns()). Unset: no burst is taken to pile up in an ingress
  // queue, and no copy is named for TLP turns.
  using TlpTime = std::function<double(int edge, TlpKind kind, double payload)>;
  void set_tlp_time(TlpTime t) { tlp_ns_ = std::move(t); }
  void remap();  // TC/VC maps changed: every flow is examined again
  // The same, `moved(edge, tc)` saying which TCs changed VC where: a saturated link that a
  // flow of a moved TC crosses (its holds as the old map left them) is kept in remaps(), by
  // edge, where a look at that instant finds another flow crossing it too.
  void remap(double now_ns, const std::function<bool(int edge, int tc)>& moved);
  // The conditions as they hold from `now_ns` on (those seen before held until now).
  void look(double now_ns);
  void finish(double now_ns);
  const std::map<Key, Sighting>& sightings() const { return seen_; }
  uint64_t examinations() const { return examined_; }  // flows examined so far (its cost)
  // Remaps while queues stood (remap(now, moved)), by the saturated edge.
  struct Remapped {
    double first_ns = 0;
    int times = 0;
    std::vector<uint32_t> owners;  // the flows crossing it then, ascending
  };
  const std::map<int, Remapped>& remaps() const { return remaps_; }

 private:
  // A sighting a flow causes, and the flow it concerns besides the one causing it (by id).
  using Cause = std::pair<Key, int>;
  struct Watched;
  struct Crossing {
    int id, pos;     // flow `id` crosses the edge at position pos of its path
    bool request;    // of its request path (else its data path)
    uint32_t owner;  // the flow's owner (a knock-on names it without finding the flow)
    Watched* watched;  // the flow (an element of flows_: stays put until it is removed)
  };
  struct Watched {
    WatchFlow flow;
    std::vector<Key> causes;  // the sightings it makes now
    bool dirty = false;
    std::vector<Cause> tails;  // (a successor) the held copies whose queued TLPs it overtakes
    // Its TLPs queue on the way: held beyond a link it is not held at, or held so once and
    // tied since (what queued between two links at one rate stays: an overtaken tail).
    bool backlog = false;
    // The sightings whose knock-ons on it look number `expanded_in` named (concern()).
    uint64_t expanded_in = 0;
    std::vector<Key> expanded;
    // The sightings with knock-ons that concern it (concern()): while one holds, a copy that
    // starts held on one of its links is a knock-on too (examine()).
    std::vector<Key> concerned_by;
    // It took an ended copy's place with that one's holds (add()): its first set_held()
    // counts no backlog from before, as for a copy that starts with none.
    bool took_place = false;
    double started_ns = -1;  // its first look's time (examine()): the instant it starts
    double rate = 0;         // (set_rate(), for its credit pools)
    double completer_waits_ns = 0;  // behind other reads' windows at its completer (queue_at_completer())
    // Its hold moved from a link beyond its first, not held since, to one before it (moved_back()):
    // that link, the rate it had there, when, and until when its queue there stands (-1: not yet
    // reckoned).
    int left_hold = -1;
    double left_rate = 0, left_ns = 0, standing_until = -1;
    // The queue it left there puts it ahead of the fluid (moved_back()): named if it ends
    // before it is held beyond a link again (link in -1: not).
    Key left_queue{Unrepresented::LeftQueue, -1, -1};
    double left_queued = 0;  // the bytes it had queued there
  };
  // A copy removed at this instant, its effects on the others not yet applied (look()).
  struct Removed {
    int id;
    WatchFlow flow;  // its paths are the copies below (the flow's die with it)
    std::vector<int> data_path, request_path;
    std::vector<Key> causes;
    bool dirty, had_tails;
    bool waited = false;  // it waited at its completer (its own count: no stand-in takes it)
  };
  // The sightings whose crossings on an edge look number `in` counted (concern()).
  struct Merged {
    uint64_t in = 0;
    std::vector<Key> keys;
  };
  // A copy that ended with a backlog (Watched::backlog): its last TLPs still queue on the way.
  struct Tail {
    int id, tc;
    std::vector<int> held, path;  // where it was held; its data path (copied: the flow's dies with it)
    double drain_ns;              // how long what queued before its hold takes to leave (tail_drain_ns())
  };
  double tail_drain_ns(const WatchFlow& ended) const;
  double queued_before(const WatchFlow& f, int edge) const;
  void index(int id, const WatchFlow& f, Watched* added);  // added null: removes it
  std::vector<Removed>::iterator same_as_removed(const WatchFlow& f);
  void take_place(int id, const WatchFlow& f, std::vector<Removed>::iterator ended);
  void apply_removals();
  void count_window(const WatchFlow& f, int delta);
  void touch_held_on(const WatchFlow& f, int except);
  void mark(int id);
  void mark(int id, Watched& w);
  static bool first_in_look(std::vector<Key>& keys, uint64_t& stamp, uint64_t look, const Key& key);
  void examine(int id, Watched& w);
  // `standing`: held at the link before too, with its backlog (a queue that built and stays).
  void holding_back(int id, const WatchFlow& f, bool request, std::size_t at, bool standing,
                    std::vector<Cause>& out) const;
  void burst(int id, const WatchFlow& f, std::vector<Cause>& out) const;
  void burst_above(int id, const WatchFlow& f, int e, std::vector<Cause>& out) const;
  void request_burst(int id, const WatchFlow& f, std::vector<Cause>& out) const;
  void request_pile(const WatchFlow& f, std::vector<Cause>& out) const;
  void requests_gone(int id, const WatchFlow& g, std::vector<Cause>& out) const;
  bool gone_by(const WatchFlow& r, std::size_t k) const;
  double write_latency_ns(const WatchFlow& g, double kth, double own, double t) const;
  template <class Difference>
  bool moves_a_tlp(const WatchFlow& g, double own, double queued, double t, double fraction, Difference difference) const;
  static double margin(double own, double queued);
  void pile_at(const WatchFlow& f, std::size_t k, double piled, double t_m, double gap, std::vector<Cause>& out) const;
  bool takes_turns(const WatchFlow& f, std::size_t k, const Crossing& c) const;
  bool burst_ahead(const WatchFlow& f, std::size_t k, const Crossing& c) const;
  double tlp_ns(int edge, const WatchFlow& f, bool request) const;
  double longest_tlp_ns(const WatchFlow& f) const;
  void tlp_turns(int id, const WatchFlow& f, std::vector<Cause>& out) const;
  void sharers_of_turns(int id, int e, std::vector<Cause>& out) const;
  void requests_held_briefly(int id, const WatchFlow& f, std::vector<Cause>& out) const;
  bool short_copy(const WatchFlow& f) const;
  static double turns_bound(const WatchFlow& f);
  static void credit_limited(int id, const WatchFlow& f, std::vector<Cause>& out);
  void shared_credit_limited(int id, const WatchFlow& f, std::vector<Cause>& out) const;
  void pooled_credit_limited(const WatchFlow& f, std::vector<Cause>& out) const;
  void touch_pools(const WatchFlow& f);
  void queue_at_completer(int id, const WatchFlow& f);
  void completer_waits(int id, const Watched& w, std::vector<Cause>& out) const;
  static WatchFlow::CreditPool full_size(const WatchFlow& g, bool request, const WatchFlow::CreditPool& p);
  static const WatchFlow::CreditPool* pool_at(const WatchFlow& f, int edge, bool request);
  // As EdgeArbitration::buffered: posted (a write), non-posted (MRds), completion (a read's data).
  static int credit_class(const WatchFlow& f, bool request) { return request ? 1 : f.completions ? 2 : 0; }
  static bool fills_credits(const EdgeArbitration& e, const WatchFlow& g, bool request);
  static double tlps(const WatchFlow& f, bool request);
  void tag_queueing(int id, const WatchFlow& f, std::vector<Cause>& out) const;
  void overtakes(int id, Watched& w);
  void concern(const Key& key, int about, uint32_t owner);
  void knock_ons(const Key& key, Watched& a);
  int looked_up(std::array<int, 8>& vcs, int edge, int tc) const;  // vc_of_, kept in vcs[tc]
  Sighting& sighting(const Key& key);
  bool held_at(int edge) const;
  bool strict_at(int e, bool unguarded) const;
  static bool strict(const SharePolicy& p, bool unguarded);
  static double backlog(const WatchFlow& f, double buffered, double stream);
  static bool stream_in_queue(const WatchFlow& f, double queued, double buffered, int other);
  static double queued_stream(const WatchFlow& f);
  double fill_delay_ns(int id, const WatchFlow& f, int in, double buffered) const;
  bool fill_ahead(double fill, const WatchFlow& f, std::size_t j, const Crossing& c) const;
  bool strictly_below(const WatchFlow& f, std::size_t j, const Crossing& c) const;
  static bool held_on(const WatchFlow& f, int edge);
  static bool queued_behind(double queued, const WatchFlow& g, bool request);
  bool window_in_queue(const WatchFlow& f, double queued, int next, const WatchFlow& g) const;
  bool starts_behind(int id, const WatchFlow& f, double queued, int in, int next, const Crossing& c) const;
  static bool queues_beyond(const WatchFlow& f);
  static int held_beyond(const WatchFlow& f);
  void moved_back(int id, Watched& w, std::vector<Cause>& out);
  bool left_queue_ahead(const Watched& w) const;
  static double first_tlp_ns(const WatchFlow& f);
  static bool tied(const WatchFlow& f);
  void count_held(const std::vector<int>& edges, int delta);
  void count(const Key& k, int delta);

  std::vector<EdgeArbitration> edges_;
  VcOf vc_of_;
  std::vector<std::vector<Crossing>> by_edge_;
  // The smallest copy and the fastest pace of every flow added so far (burst()'s first test).
  double least_bytes_ = kUnbounded, most_peak_ = 0;
  std::vector<int> held_count_;  // [edge] flows held there
  // Which look this is: a (sighting, flow) whose knock-ons it named is stamped on the flow
  // (Watched::expanded), a (sighting, edge) whose crossings it counted on the edge
  // (merged_by_edge_): a look on a forest of 16-GPU root complexes names thousands, and a
  // sorted vector's inserts cost the watch a sixth of its time. The causes an examination
  // finds, and their keys (scratch).
  uint64_t looks_ = 0;
  std::vector<Merged> merged_by_edge_;
  std::vector<Cause> found_;
  std::vector<Key> causes_;
  std::unordered_map<int, Watched> flows_;
  std::vector<int> dirty_;
  std::map<Key, Sighting> seen_;  // (never erased: a Sighting stays put)
  std::map<int, Remapped> remaps_;
  // A remap's saturated links with a moved TC's flows (ids), until a look of its instant
  // finds another flow there (settle_remaps()).
  struct PendingRemap {
    double at_ns;
    int edge;
    std::set<int> moved;
  };
  std::vector<PendingRemap> pending_remaps_;
  void settle_remaps();
  const Key* last_key_ = nullptr;  // the sighting concern() found last (the next is most often it)
  Sighting* last_seen_ = nullptr;
  std::map<Key, std::pair<int, double>> active_;  // flows causing it, since when
  std::vector<Tail> tails_;  // copies that ended held, this instant (their successors start now)
  std::map<int, uint32_t> owner_of_ended_;  // ids of the copies in tails_
  std::vector<Removed> removed_;  // this instant's, not yet applied
  std::vector<int> pooled_on_ = std::vector<int>(edges_.size(), 0);  // [edge] flows with a pool entry there
  std::vector<int> queueing_;  // reads added this instant that queue at their completer (queue_at_completer())
  TlpTime tlp_ns_;  // (set_tlp_time())
  // (edge, credit class, VC) -> (end, TLPs) of the copies with a shared credit loop there that
  // ended within its round trip (shared_credit_limited()), oldest first.
  std::map<std::tuple<int, int, int>, std::deque<std::pair<double, double>>> recent_;
  // The longest TLP time any watched flow has on its paths: a bound that tells most
  // examinations their copy cannot be named for TLP turns (short_copy()).
  double most_tlp_ns_ = 0;
  std::map<double, int> windows_;  // the read windows of the flows watched (burst thresholds), counted
  uint64_t examined_ = 0;
  double now_ = 0;
};

}  // namespace arbsim::flow
