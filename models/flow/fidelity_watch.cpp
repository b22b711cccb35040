#include "models/flow/fidelity_watch.h"
#include <cmath>
#include <algorithm>
#include <array>

namespace arbsim::flow {

void FidelityWatch::add(int id, const WatchFlow& f) {
  count_window(f, +1);
  least_bytes_ = std::min(least_bytes_, f.bytes);
  most_peak_ = std::max(most_peak_, f.peak_bytes_per_ns);
  if (tlp_ns_) most_tlp_ns_ = std::max(most_tlp_ns_, longest_tlp_ns(f));
  if (const auto ended = same_as_removed(f); ended != removed_.end()) {
    take_place(id, f, ended);
  } else {
    Watched& w = flows_[id] = Watched{f, {}, false, {}, queues_beyond(f), 0, {}, {}};
    count_held(f.held, +1);
    overtakes(id, w);
    index(id, f, &w);
    mark(id);
    touch_held_on(f, id);
  }
  if (f.completer_delay_ns > 0) queueing_.push_back(id);  // (at the look: after this instant's remaps)
  touch_pools(f);
}

// A read whose requests reach its completer faster than the completer serves them queues
// part of its window there (WatchFlow::completer_delay_ns). Where the completer's egress
// serves its VC strictly above another read's (no starvation guard), that read's
// completions wait behind the whole of it: each such start costs it that long once more
// (completer_waits() adds them up). In one VC, or under round robin, they take turns: the
// same user trial under the rr policy agrees within 0.7 %.
void FidelityWatch::queue_at_completer(int id, const WatchFlow& f) {
  if (!(f.completer_delay_ns > 0) || f.data_path->empty()) return;
  const int e = f.data_path->front();
  if (!strict_at(e, true)) return;
  const int above = vc_of_(e, f.tc);
  for (const Crossing& c : by_edge_[static_cast<std::size_t>(e)])
    if (c.id != id && !c.request && c.pos == 0 && vc_of_(e, c.watched->flow.tc) < above) {
      c.watched->completer_waits_ns += f.completer_delay_ns;
      mark(c.id, *c.watched);
    }
}

// A read held to its tag window's pace (window_bound) cannot catch up on a wait at its
// completer: its requests go out only as its tags return, so every wait adds to its time.
// Reads that start one after another there (a stream of copies each queueing its window at
// host memory) add up to 3 % of its least time or more: named for it (a user trial: 8 tags
// reading 256 KiB from host memory beside a stream of 64 KiB reads ranked above it by the
// qos policy, 22 % slower in the packet model, each of the 25 copies' windows a ~1.1 us
// wait, unnamed; one such wait alone is 1.4 % of its time).
void FidelityWatch::completer_waits(int id, const Watched& w, std::vector<Cause>& out) const {
  const WatchFlow& f = w.flow;
  if (f.window_bound && f.least_ns > 0 && w.completer_waits_ns >= 0.03 * f.least_ns && !f.data_path->empty())
    out.push_back({{Unrepresented::CompleterQueue, f.data_path->front(), f.data_path->front()}, id});
}

// Its crossings go at once (its paths die with it); the rest of its removal waits for the
// look, unless a copy takes its place (add()).
void FidelityWatch::remove(int id, double now_ns) {
  const auto it = flows_.find(id);
  if (it == flows_.end()) return;
  now_ = now_ns;  // (flows ending together: no look between them sets it)
  const Watched& w = it->second;
  const WatchFlow& ended = w.flow;
  if (std::get<1>(w.left_queue) >= 0 && left_queue_ahead(w)) {  // ahead of the fluid by the queue it left
    count(w.left_queue, +1);
    sighting(w.left_queue).concerns(ended.owner);
    count(w.left_queue, -1);
  }
  if (w.backlog) {  // its last TLPs still queue on the way
    tails_.push_back({id, ended.tc, ended.held, *ended.data_path, tail_drain_ns(ended)});
    owner_of_ended_[id] = ended.owner;
  }
  count_window(ended, -1);
  touch_pools(ended);
  for (const WatchFlow::SharedLoop& l : ended.shared_credit_loops) {  // its credits are out a round trip more
    auto& sent = recent_[{l.edge, credit_class(ended, l.request), vc_of_(l.edge, ended.tc)}];
    sent.emplace_back(now_ns, tlps(ended, l.request));
    while (!sent.empty() && sent.front().first < now_ns - l.round_trip_ns) sent.pop_front();
  }
  index(id, ended, nullptr);
  Removed r{id, ended, *ended.data_path, {}, w.causes, w.dirty, !w.tails.empty(), w.completer_waits_ns > 0};
  if (ended.request_path) r.request_path = *ended.request_path;
  r.flow.data_path = r.flow.request_path = nullptr;  // (the copies above, once it is applied)
  flows_.erase(it);
  removed_.push_back(std::move(r));
}

// An ended copy of this instant the new one can stand for: every field an examination reads
// alike (held aside: it takes the ended one's), and its size on the same side of each read
// window's burst threshold (burst()). One whose sightings came from tails (overtakes()) is
// not: those are its own.
std::vector<FidelityWatch::Removed>::iterator FidelityWatch::same_as_removed(const WatchFlow& f) {
  const auto empty_or = [](const std::vector<int>* p) { return p ? *p : std::vector<int>{}; };
  return std::find_if(removed_.begin(), removed_.end(), [&](const Removed& r) {
    const WatchFlow& e = r.flow;
    if (r.had_tails || r.waited || !f.shared_credit_loops.empty() || !e.shared_credit_loops.empty() || !f.credit_pools.empty() ||
        !e.credit_pools.empty() || e.tc != f.tc || e.completions != f.completions || e.owner != f.owner ||
        e.window != f.window || e.data_tlps != f.data_tlps || e.request_tlps != f.request_tlps ||
        e.request_burst_bytes != f.request_burst_bytes ||
        e.credit_loops != f.credit_loops || r.data_path != *f.data_path || r.request_path != empty_or(f.request_path))
      return false;
    // (No threshold between the two sizes' 3 %: the same side of every one, in a look-up.)
    const auto between = windows_.lower_bound(std::min(e.bytes, f.bytes) * 0.03);
    if (between != windows_.end() && between->first < std::max(e.bytes, f.bytes) * 0.03) return false;
    // (A copy that could be named for TLP turns: its least time against every TLP's.)
    return (!short_copy(e) && !short_copy(f)) || e.least_ns == f.least_ns;
  });
}

// Flow `id` stands for the ended copy: its sightings and holds are that one's (so no count
// moves), it overtakes nothing of its own predecessor (same TC), and the others see it as
// they saw that one.
void FidelityWatch::take_place(int id, const WatchFlow& f, std::vector<Removed>::iterator ended) {
  Watched& w = flows_[id] = Watched{f, ended->causes, false, {}, false, 0, {}, {}};
  w.flow.held = ended->flow.held;
  w.backlog = queues_beyond(w.flow);  // as its first set_held() would make it, from no history
  w.took_place = true;
  overtakes(id, w);
  index(id, w.flow, &w);
  if (ended->dirty) mark(id, w);
  removed_.erase(ended);
}

// The ended copies no new one took the place of: their sightings and holds go, and the
// flows on their links are examined again.
void FidelityWatch::apply_removals() {
  for (const Removed& r : removed_) {
    for (const Key& k : r.causes) count(k, -1);
    count_held(r.flow.held, -1);
    WatchFlow f = r.flow;
    f.data_path = &r.data_path;
    f.request_path = &r.request_path;
    touch_held_on(f, r.id);
  }
  removed_.clear();
}

// Both of a read's bursts are thresholds a copy's size is on one side of (burst()).
void FidelityWatch::count_window(const WatchFlow& f, int delta) {
  for (double burst : {f.window, f.request_burst_bytes})
    if (burst > 0 && (windows_[burst] += delta) == 0) windows_.erase(burst);
}

void FidelityWatch::set_window_bound(int id, bool bound) {
  Watched& w = flows_.at(id);
  if (w.flow.window_bound == bound) return;
  w.flow.window_bound = bound;
  mark(id);
}

void FidelityWatch::set_rate(int id, double rate) {
  Watched& w = flows_.at(id);
  const bool moved = std::abs(rate - w.rate) > 1e-9 * std::max(std::abs(rate), std::abs(w.rate));
  w.rate = rate;
  if (moved) touch_pools(w.flow);
}

// A pool's sighting is made by the copies with a pool entry there examined while it was
// over: each is looked at again when a rate on its link changes, or a copy comes or goes.
void FidelityWatch::touch_pools(const WatchFlow& f) {
  const auto walk = [&](const std::vector<int>* path) {
    if (!path) return;
    for (int e : *path)
      if (pooled_on_[static_cast<std::size_t>(e)] > 0)
        for (const Crossing& c : by_edge_[static_cast<std::size_t>(e)])
          if (pool_at(c.watched->flow, e, c.request)) mark(c.id, *c.watched);
  };
  walk(f.data_path);
  walk(f.request_path);
}

void FidelityWatch::set_held(int id, const std::vector<int>& edges) {
  Watched& w = flows_.at(id);
  const bool history = !w.took_place;
  w.took_place = false;
  if (w.flow.held == edges) return;
  count_held(w.flow.held, -1);
  const int beyond = held_beyond(w.flow);
  w.flow.held = edges;
  // Its hold moved back along its way: what queued before the old one stands (moved_back()).
  w.left_hold = -1;
  if (history && beyond >= 0 && !held_on(w.flow, beyond) && held_beyond(w.flow) < 0 && !w.flow.held.empty())
    w.left_hold = beyond, w.left_rate = w.rate, w.left_ns = now_, w.standing_until = -1;
  count_held(w.flow.held, +1);
  const bool beyond_now = queues_beyond(w.flow);
  if (beyond_now) std::get<1>(w.left_queue) = -1;  // (a queue builds again: moved_back())
  w.backlog = beyond_now || (history && w.backlog && tied(w.flow));
  mark(id);
}

void FidelityWatch::remap() {
  for (auto& [id, w] : flows_) mark(id);
}

void FidelityWatch::remap(double now_ns, const std::function<bool(int edge, int tc)>& moved) {
  for (std::size_t e = 0; e < by_edge_.size(); ++e) {
    const int edge = static_cast<int>(e);
    if (!held_at(edge)) continue;
    PendingRemap p{now_ns, edge, {}};
    for (const Crossing& c : by_edge_[e])
      if (moved(edge, c.watched->flow.tc)) p.moved.insert(c.id);
    if (!p.moved.empty()) pending_remaps_.push_back(std::move(p));
  }
  remap();
}

// A remap's queues matter where another flow crosses the link: one there then, or one that
// starts at the same instant (the command whose arrival made the policy re-rank, which
// takes the VC the moved TC's queued TLPs still hold). Checked at each look of that instant.
void FidelityWatch::settle_remaps() {
  for (PendingRemap& p : pending_remaps_) {
    if (p.at_ns != now_ || p.moved.empty()) continue;
    const std::vector<Crossing>& on = by_edge_[static_cast<std::size_t>(p.edge)];
    std::set<int> ids;
    for (const Crossing& c : on) ids.insert(c.id);
    if (ids.size() < 2) continue;  // alone at its bottleneck: its queue blocks no one
    Remapped& r = remaps_.try_emplace(p.edge, Remapped{now_, 0, {}}).first->second;
    ++r.times;
    for (const Crossing& c : on) insert_sorted(r.owners, c.owner);
    p.moved.clear();  // recorded once
  }
  pending_remaps_.erase(std::remove_if(pending_remaps_.begin(), pending_remaps_.end(),
                                       [&](const PendingRemap& p) { return p.at_ns < now_ || p.moved.empty(); }),
                        pending_remaps_.end());
}

void FidelityWatch::mark(int id) { mark(id, flows_.at(id)); }

void FidelityWatch::mark(int id, Watched& w) {
  if (w.dirty) return;
  w.dirty = true;
  dirty_.push_back(id);
}

// by_edge_[e]: every (flow, position, request?) crossing edge e, so that a held flow meets
// only the flows of its own links.
void FidelityWatch::index(int id, const WatchFlow& f, Watched* added) {
  const auto walk = [&](const std::vector<int>* path, bool request) {
    if (!path) return;
    for (std::size_t p = 0; p < path->size(); ++p) {
      std::vector<Crossing>& on = by_edge_[static_cast<std::size_t>((*path)[p])];
      if (pool_at(f, (*path)[p], request)) pooled_on_[static_cast<std::size_t>((*path)[p])] += added ? 1 : -1;
      if (added) {
        on.push_back({id, static_cast<int>(p), request, f.owner, added});
      } else {
        on.erase(std::find_if(on.begin(), on.end(),
                              [&](const Crossing& c) { return c.id == id && c.request == request && c.pos == static_cast<int>(p); }));
      }
    }
  };
  walk(f.data_path, false);
  walk(f.request_path, true);
}

// A flow that starts or ends on a link changes what a flow held beyond it causes there, and
// whom a sighting concerning a flow there knocks on (examine()).
void FidelityWatch::touch_held_on(const WatchFlow& f, int except) {
  const auto walk = [&](const std::vector<int>* path) {
    if (!path) return;
    for (int e : *path) {
      const bool holds_here = held_on(f, e);  // (a knock-on of a sighting concerning those there)
      for (const Crossing& c : by_edge_[static_cast<std::size_t>(e)])
        if (c.id != except && (!c.watched->flow.held.empty() || c.watched->flow.window > 0 ||
                               short_copy(c.watched->flow) || (holds_here && !c.watched->concerned_by.empty())))
          mark(c.id, *c.watched);
    }
  };
  walk(f.data_path);
  walk(f.request_path);
}

void FidelityWatch::look(double now_ns) {
  now_ = now_ns;
  apply_removals();
  for (int id : queueing_)
    if (const auto it = flows_.find(id); it != flows_.end()) queue_at_completer(id, it->second.flow);
  queueing_.clear();
  ++looks_;
  for (std::size_t k = 0; k < dirty_.size(); ++k) {
    const int id = dirty_[k];
    const auto it = flows_.find(id);
    if (it != flows_.end() && it->second.dirty) examine(id, it->second);
  }
  dirty_.clear();
  tails_.clear();  // a successor starts at the instant its engine's copy ends
  owner_of_ended_.clear();
  if (!pending_remaps_.empty()) settle_remaps();
}

// A copy starting where one just ended held (the engine's next copy): on a link of their
// common way before where the first was held, in another VC, it overtakes the first one's
// queued TLPs (the first ends later than the fluid's). Named while the successor runs.
// In the same VC all along, where its way leaves the first one's before the link after which
// the first's tail queued (in a queue it passes, the tail is still ahead of it), it
// started early instead: the packet model's engine frees once the first's last TLP has left
// it, while its tail still queues before the hold, so the successor, not held there, starts
// that tail's drain ahead of the fluid, which starts it at the first's end. Named where that
// drain is 3 % or more of the successor's least time. (A user trial of trees: a GPU's 32 KiB
// writes to host memory 16 deep behind its 162 KiB peer writes to a GPU on a slower link,
// queued through a switch and the root complex, p50 166.5 us in the packet model against the
// fluid's 173.4, unnamed.)
void FidelityWatch::overtakes(int id, Watched& w) {
  const std::vector<int>& path = *w.flow.data_path;
  for (const Tail& t : tails_) {
    if (path.empty() || t.path.empty() || path[0] != t.path[0]) continue;
    const std::size_t held = static_cast<std::size_t>(
        std::find_first_of(t.path.begin() + 1, t.path.end(), t.held.begin(), t.held.end()) - t.path.begin());
    bool other_vc = false;
    for (std::size_t k = 0; k < held && k < path.size() && path[k] == t.path[k]; ++k)
      if (vc_of_(path[k], w.flow.tc) != vc_of_(path[k], t.tc)) {
        w.tails.push_back({{Unrepresented::OvertakenTail, path[k], t.path[std::min(held, t.path.size() - 1)]}, t.id});
        other_vc = true;
        break;
      }
    const bool leaves = held < t.path.size() && std::find(path.begin(), path.end(), t.path[held - 1]) == path.end();
    if (!other_vc && leaves && t.drain_ns >= 0.03 * w.flow.least_ns)
      w.tails.push_back({{Unrepresented::EarlySuccessor, path[0], t.path[held]}, t.id});
    if (!w.tails.empty()) mark(id);
  }
}

// What an ended copy held beyond its first link left queued before its hold: at the receiver
// of the link before it, up to the credits there (all of its TLPs with infinite ones), at
// the held link's time per TLP.
double FidelityWatch::tail_drain_ns(const WatchFlow& ended) const {
  const std::vector<int>& path = *ended.data_path;
  const auto at = std::find_first_of(path.begin() + (path.empty() ? 0 : 1), path.end(), ended.held.begin(), ended.held.end());
  if (at == path.end() || !tlp_ns_ || ended.data_tlp_bytes <= 0) return 0.0;
  return queued_before(ended, *(at - 1)) * tlp_ns(*at, ended, false);
}

// The TLPs of write f queued at the receiver of `edge` when held beyond it: up to the credits
// of its class there, and no more than it can have in flight or has (tail_drain_ns(),
// moved_back()).
double FidelityWatch::queued_before(const WatchFlow& f, int edge) const {
  const EdgeArbitration& e = edges_[static_cast<std::size_t>(edge)];
  return std::min({e.buffered[static_cast<std::size_t>(credit_class(f, false))], f.data_tlps, tlps(f, false)});
}

// The sightings flow `id` causes now; counted in before the old ones are counted out, so
// one that goes on is not cut in two.
void FidelityWatch::examine(int id, Watched& w) {
  w.dirty = false;
  ++examined_;
  std::vector<Cause>& found = found_;
  found.clear();
  for (int e : w.flow.held)
    for (const bool request : {false, true}) {
      const std::vector<int>* path = request ? w.flow.request_path : w.flow.data_path;
      if (!path) continue;
      const auto at = std::find(path->begin(), path->end(), e);
      // Held back at its first hop, a flow waits in its own engine: no shared buffer fills.
      // Held at the link before too (a tie), it arrives no faster than it leaves: no queue
      // builds, but one that built while it was held beyond (its backlog) stands, blocking
      // as before (survey of a user trial: a 16 KiB push held beyond rc0->sw0 while a stream's
      // copies paused, then tied there, kept their next 4 KiB copies 31 % longer, unnamed).
      if (at == path->end() || at == path->begin()) continue;
      const bool tie = held_on(w.flow, *(at - 1));
      if (!tie || w.backlog) holding_back(id, w.flow, request, static_cast<std::size_t>(at - path->begin()), tie, found);
    }
  if (w.left_hold >= 0) moved_back(id, w, found);
  if (w.flow.window > 0) burst(id, w.flow, found);
  if (w.started_ns < 0) w.started_ns = now_;  // (its first look: the instant it starts)
  if (now_ <= w.started_ns + w.flow.request_burst_ns) request_burst(id, w.flow, found);
  if (now_ == w.started_ns) request_pile(w.flow, found), requests_gone(id, w.flow, found);
  if (w.flow.window_bound) tag_queueing(id, w.flow, found);
  credit_limited(id, w.flow, found);
  shared_credit_limited(id, w.flow, found);
  completer_waits(id, w, found);
  pooled_credit_limited(w.flow, found);
  tlp_turns(id, w.flow, found);
  if (w.flow.window > 0) requests_held_briefly(id, w.flow, found);
  found.insert(found.end(), w.tails.begin(), w.tails.end());
  std::vector<Key>& causes = causes_;  // (the buffers swap: no allocation per examination)
  causes.clear();
  for (const auto& [key, about] : found) causes.push_back(key);
  std::sort(causes.begin(), causes.end());
  causes.erase(std::unique(causes.begin(), causes.end()), causes.end());
  for (const Key& k : causes) count(k, +1);
  for (const Key& k : w.causes) count(k, -1);
  std::swap(w.causes, causes);
  for (const auto& [key, about] : found) {
    concern(key, about, w.flow.owner);
    // A FIFO leaves in its order, so the held flow waits behind the TLPs it holds up as they
    // wait behind its own: its rate moves too, and so do its sharers' (held-out seed 30514:
    // t2 held at sw1 -> gpu3, 13 % early in the fluid; t1, sharing host memory with it, 19 %
    // late and named by nothing).
    if (std::get<0>(key) == Unrepresented::HeadOfLine) knock_ons(key, w);
  }
  // A copy that started held on one of its links since a sighting concerned it moves at
  // another rate in the packet model too (touch_held_on() marked this one): a knock-on.
  for (const Key& k : w.concerned_by)
    if (active_.count(k)) knock_ons(k, w);
}

// The sighting of `key` (an examination's causes come in runs of one key: the last is kept).
Sighting& FidelityWatch::sighting(const Key& key) {
  if (!last_key_ || *last_key_ != key) {
    const auto it = seen_.try_emplace(key).first;
    last_key_ = &it->first;
    last_seen_ = &it->second;
  }
  return *last_seen_;
}

// A sighting concerns the flow causing it (`owner`), the one it affects (`about`), and the
// flows sharing a saturated link (some flow held there) with that one: it moves at another
// rate than the fluid's, and so, in turn, do they (a knock-on); behind a FIFO, those of the
// held flow too (examine()).
// TLP turns concern the copies the rule names alone (tlp_turns(): the short copy, and under
// strict VC priority the lower VCs' copies beside it), not their sharers in turn; so do a
// read's requests held briefly (requests_held_briefly()), a tag-bound read below a higher VC
// (tag_queueing()) and a read's window in a held flow's queue (window_in_queue()).
void FidelityWatch::concern(const Key& key, int about, uint32_t owner) {
  Sighting& who = sighting(key);
  const Unrepresented what = std::get<0>(key);
  const bool alone = what == Unrepresented::TlpTurns || what == Unrepresented::RequestsHeldBriefly ||
                     what == Unrepresented::TagQueueingBelow || what == Unrepresented::WindowInQueue ||
                     what == Unrepresented::RequestPile || what == Unrepresented::RequestsGone ||
                     what == Unrepresented::EarlySuccessor;
  if (!alone) who.concerns(owner);
  const auto it = flows_.find(about);
  if (it == flows_.end()) {
    if (const auto ended = owner_of_ended_.find(about); ended != owner_of_ended_.end()) who.concerns(ended->second);
    return;
  }
  who.concerns(it->second.flow.owner);
  if (alone) return;
  insert_sorted(it->second.concerned_by, key);
  knock_ons(key, it->second);
}

// The flows sharing a saturated link with flow `a`, which sighting `key` concerns.
void FidelityWatch::knock_ons(const Key& key, Watched& a) {
  if (!first_in_look(a.expanded, a.expanded_in, looks_, key)) return;  // its knock-ons already, this look
  Sighting& who = sighting(key);
  const WatchFlow& f = a.flow;
  // An edge's crossings, once per sighting and look (they do not change during a look; on
  // a root complex's saturated uplink, 32 flows' sightings would each count its 32 crossings).
  for (const std::vector<int>* path : {f.data_path, f.request_path})
    if (path)
      for (int e : *path)
        if (held_at(e) && first_in_look(merged_by_edge_[static_cast<std::size_t>(e)].keys,
                                        merged_by_edge_[static_cast<std::size_t>(e)].in, looks_, key))
          for (const Crossing& c : by_edge_[static_cast<std::size_t>(e)]) who.concerns(c.owner);
}

int FidelityWatch::looked_up(std::array<int, 8>& vcs, int edge, int tc) const {
  int& vc = vcs[static_cast<std::size_t>(tc)];
  if (vc < 0) vc = vc_of_(edge, tc);
  return vc;
}

// Whether `key` is new to `keys` in look `look` (stamp: the look they are of; older are
// forgotten). A flow or edge meets a few sightings a look: a short vector.
bool FidelityWatch::first_in_look(std::vector<Key>& keys, uint64_t& stamp, uint64_t look, const Key& key) {
  if (stamp != look) {
    stamp = look;
    keys.clear();
  }
  if (std::find(keys.begin(), keys.end(), key) != keys.end()) return false;
  keys.push_back(key);
  return true;
}

// Flow f is held back at egress path[at] (its data path, or a read's request path): its
// TLPs queue in the receiver of the link before it. Each other flow on that link that
// leaves by another egress (or ends there), its data or a read's requests, is affected as
// the header says; one that leaves by the same egress is arbitrated there, as the fluid
// has it. Where that link's credits for f's class are finite and f can fill them they run
// out, and the queue moves up to the link before it, and so on to the source or to a link
// whose credits it cannot fill. A read never overdraws, by its completions or its MRds: its
// tag window bounds what it has in flight, so once that many wait it sends no more than it
// drains (flow_network.h).
void FidelityWatch::holding_back(int id, const WatchFlow& f, bool request, std::size_t at, bool standing,
                                 std::vector<Cause>& out) const {
  const std::vector<int>& path = request ? *f.request_path : *f.data_path;
  const bool write = !request && !f.completions;
  const double stream = write ? queued_stream(f) : 0.0;  // one walk of f's engine queue per look
  for (std::size_t j = at; j-- > 0;) {
    const int in = path[j], next = path[j + 1];
    const EdgeArbitration& e = edges_[static_cast<std::size_t>(in)];
    const auto cls = static_cast<std::size_t>(credit_class(f, request));
    // Its TLPs fill the receiver's credits of their class only where it can have as many in
    // flight (arbitrated_rates.cpp, back_up(), which also takes off what the queues after this
    // one hold of its window: here each queue is given the whole window, which names more).
    const bool credits = fills_credits(e, f, request);
    // Each TC's VC on `in` and on `next`, asked once (tens of crossings ask them).
    std::array<int, 8> in_vc, next_vc;
    in_vc.fill(-1);
    next_vc.fill(-1);
    const auto vc_in = [&](int tc) { return looked_up(in_vc, in, tc); };
    const auto vc_next = [&](int tc) { return looked_up(next_vc, next, tc); };
    const int vc = vc_in(f.tc);
    bool shared_queue = false, order_fills = false;  // (order_fills: one of its other flows fills its credits)
    const double fill = credits && !standing && !request ? fill_delay_ns(id, f, in, e.buffered[cls]) : 0.0;
    const double queued = backlog(f, e.buffered[cls], stream);
    for (const Crossing& c : by_edge_[static_cast<std::size_t>(in)]) {
      if (c.id == id) continue;
      const WatchFlow& g = c.watched->flow;
      const std::vector<int>& gp = c.request ? *g.request_path : *g.data_path;
      const bool same_vc = vc_in(g.tc) == vc;
      if (static_cast<std::size_t>(c.pos) + 1 < gp.size() && gp[static_cast<std::size_t>(c.pos) + 1] == next) {
        // Leaving by the same egress, g is arbitrated there as the fluid has it, but for two
        // queues the fluid does not see: f's TLPs waiting for credits further on head the
        // queue toward `next` (f is held beyond it), and one queue feeding `next` in
        // different VCs leaves in its own order, not as next's VC arbiter divides.
        if (same_vc && j + 1 < at) out.push_back({{Unrepresented::Backpressure, in, next}, c.id});
        else if (fill_ahead(fill, f, j, c)) out.push_back({{Unrepresented::FillAhead, in, next}, c.id});
        if (same_vc && j + 1 == at && vc_next(g.tc) != vc_next(f.tc)) {
          shared_queue = true;
          order_fills = order_fills || fills_credits(e, g, c.request);
        }
        // In the very queue f backs up (same port, VC and egress), a copy of fewer TLPs than
        // f's backlog there waits behind it; the fluid's share of the queue's drain holds only
        // for copies long against it. Else, beside a stream of short writes, the fluid's
        // division of that queue by credit class counts one copy (stream_in_queue()).
        if (same_vc && j + 1 == at && !request) {
          if (queued_behind(queued, g, c.request) || starts_behind(id, f, queued, in, next, c))
            out.push_back({{Unrepresented::SameQueue, in, next}, c.id});
          else if (c.request && window_in_queue(f, queued, next, g))
            out.push_back({{Unrepresented::WindowInQueue, in, next}, c.id});
          else if (stream_in_queue(f, queued, e.buffered[cls], credit_class(g, c.request)))
            out.push_back({{Unrepresented::StreamInQueue, in, next}, c.id});
        }
        continue;
      }
      if (e.fifo_ingress && same_vc) out.push_back({{Unrepresented::HeadOfLine, in, next}, c.id});
      if (credits && same_vc) out.push_back({{Unrepresented::Backpressure, in, next}, c.id});
      else if (fill_ahead(fill, f, j, c)) out.push_back({{Unrepresented::FillAhead, in, next}, c.id});
      // A standing queue (a tie) takes no more than its share of `in`: no overdraw.
      if (!credits && write && !standing) out.push_back({{Unrepresented::Overdraw, in, next}, c.id});
    }
    // f's share at `next` is then not the fluid's either: every flow there is concerned. The
    // fluid keeps the queue's order in steady state where the queue backs up there too (a
    // FIFO ingress, or credits f or another flow of the queue fills: arbitrated_rates.cpp,
    // back_up()).
    if (shared_queue)
      for (const Crossing& x : by_edge_[static_cast<std::size_t>(next)])
        out.push_back({{credits || e.fifo_ingress || order_fills ? Unrepresented::SharedQueue
                                                                 : Unrepresented::UnbackedSharedQueue,
                        in, next},
                       x.id});
    if (!credits) break;
  }
}

// Whether flow g's TLPs (its requests', or its data's) can fill the credits of their class
// on an edge of arbitration e: it can have as many in flight (arbitrated_rates.cpp, back_up()).
bool FidelityWatch::fills_credits(const EdgeArbitration& e, const WatchFlow& g, bool request) {
  const double room = e.buffered[static_cast<std::size_t>(credit_class(g, request))];
  return room < EdgeArbitration::kNoLimit && (request ? g.request_tlps : g.data_tlps) >= room;
}

// A flow held beyond `in` whose TLPs fill the receiver's credits there (a write, or a read's
// completions where its tag window holds as many) and is not held at `in` itself: its egress
// there, blind to what lies beyond, gives it more turns than its pace until the credits run
// out, and gives them back when it ends (its last `buffered` TLPs are already past). The
// fluid moves it at its pace throughout. While it fills, the flows it takes the turns from
// lose B TLPs of its time in all, B the credits in TLPs: a flow below it under unguarded
// strict priority waits the whole fill, B T / (1 - s) (T its TLP's time on `in`, s the share
// of `in` its pace takes), and one held at `in` loses about as much. A user trial (priority_l,
// guard 2): a 512 KiB push to a GPU behind an x4 link beside 256 KiB pushes to a GPU on x16,
// both over one Gen3 x16 link: the short pushes took 30.39 us starting with it, 25.27 us
// starting halfway, 27.25 us in the fluid (hand: B T / (1 - s) = 128 x 19.7 ns / 0.744 =
// 3.39 us, 3.14 measured). Survey seed 30105: a GPU's reads on its lower engine behind its
// d2h writes at a strict port arbiter, 1.8 % faster than the uplink they are held at, sent no
// request for 229 us (hand: 128 x 17.7 ns / 0.018 = 126 us of fill, per copy). Named where that
// delay is 3 % of the flow's least time or more. 0 where f cannot fill them.
double FidelityWatch::fill_delay_ns(int id, const WatchFlow& f, int in, double buffered) const {
  if (f.data_tlp_bytes <= 0 || !tlp_ns_ || f.bytes < buffered * f.data_tlp_bytes) return 0;
  const double t = tlp_ns(in, f, false);
  const double pace = std::min(flows_.at(id).rate * t / f.data_tlp_bytes, 0.999);
  return buffered * t / (1 - pace);
}

// Whether flow c crossing f's j-th data link loses `fill` ns to f filling the credits there
// (fill_delay_ns()): held there, or below f under unguarded strict priority.
bool FidelityWatch::fill_ahead(double fill, const WatchFlow& f, std::size_t j, const Crossing& c) const {
  const WatchFlow& g = c.watched->flow;
  if (!(fill > 0) || g.least_ns <= 0 || fill < 0.03 * g.least_ns) return false;
  return held_on(g, (*f.data_path)[j]) || strictly_below(f, j, c);
}

// Whether c's flow is below f at f's j-th data link under strict priority with no starvation
// guard: in a lower VC there, or in the same VC from a lower requester (port strict priority
// goes by the slot: the highest first, as the packet model's arbiter has it).
bool FidelityWatch::strictly_below(const WatchFlow& f, std::size_t j, const Crossing& c) const {
  const int in = (*f.data_path)[j];
  const WatchFlow& g = c.watched->flow;
  const int vf = vc_of_(in, f.tc), vg = vc_of_(in, g.tc);
  if (vf != vg) return strict_at(in, true) && vf > vg;
  const SharePolicy& port = edges_[static_cast<std::size_t>(in)].port;
  const std::vector<int>& slots = c.request ? g.request_slots : g.data_slots;
  const auto at = static_cast<std::size_t>(c.pos);
  if (!strict(port, true) || j >= f.data_slots.size() || at >= slots.size()) return false;
  return f.data_slots[j] > slots[at];
}

// A read's tag window arrives as a burst at its start: on each link of its data path up to
// where it is held, a saturated link (some flow held there) shared with a flow of under 33
// windows' bytes gives that flow 3 % or more less service for a while than the fluid's share;
// a read of under 33 windows itself gains as much (up to a window ahead of its share: 3 % or
// more of its bytes), and every sharer there gives it up.
// At its completer (its data path's first link) part of the window queues whatever the load
// there when its requests arrive faster than the completer serves them
// (WatchFlow::completer_delay_ns): a read served there after it starts late by that delay,
// but catches up where its own slowest link is slower than the completer; its end moves by
// 3 % or more of its least time (bytes / peak) where delay + bytes / completer reaches
// 1.03 x bytes / peak. (Its bytes against the queue's named 64 KiB reads whose own links, 14
// times slower than the 200 GB/s memory, absorbed a 0.22 us delay: they agreed within 0.14 %.)
void FidelityWatch::burst(int id, const WatchFlow& f, std::vector<Cause>& out) const {
  const bool small = f.bytes * 0.03 <= f.window;
  const std::vector<int>& path = *f.data_path;
  // The loop below costs every read from a busy memory port a walk of its crossings at each
  // look (1,024 GPUs: 0.33 -> 0.55 s per simulated ms); first, whether the smallest copy seen
  // at the fastest pace seen could be named at all (both bounds only loosen as flows come).
  const bool could = f.completer_delay_ns >= least_bytes_ * (1.03 / most_peak_ - 1 / f.completer_bytes_per_ns);
  if (could && f.completer_delay_ns > 0 && !path.empty() && !held_at(path.front()))
    for (const Crossing& c : by_edge_[static_cast<std::size_t>(path.front())]) {
      const WatchFlow& g = c.watched->flow;
      if (c.id != id && f.completer_delay_ns >= g.bytes * (1.03 / g.peak_bytes_per_ns - 1 / f.completer_bytes_per_ns))
        out.push_back({{Unrepresented::CompleterQueue, path.front(), path.front()}, c.id});
    }
  for (int e : path) {
    if (held_at(e)) {
      for (const Crossing& c : by_edge_[static_cast<std::size_t>(e)])
        if (c.id != id && (small || c.watched->flow.bytes * 0.03 <= f.window))
          out.push_back({{Unrepresented::Transient, e, e}, c.id});
    } else {
      burst_above(id, f, e, out);
    }
    if (std::find(f.held.begin(), f.held.end(), e) != f.held.end()) break;
  }
}

// On a link with room whose VC arbiter is strict (no starvation guard), the burst goes ahead
// of every flow in a lower VC as a whole: such a flow of under 33 windows' bytes waits it out
// (a user trial under priority_l: a 1 MiB read's 256 KiB windows, ranked above an 8-tag 2 MiB
// read, held its completions back for the ~16 us each took on a Gen3 x16 link, 766 us in the
// packet model against the fluid's 683, unnamed). Named for that flow.
void FidelityWatch::burst_above(int id, const WatchFlow& f, int e, std::vector<Cause>& out) const {
  if (!strict_at(e, true)) return;
  const int mine = vc_of_(e, f.tc);
  for (const Crossing& c : by_edge_[static_cast<std::size_t>(e)])
    if (c.id != id && c.watched->flow.bytes * 0.03 <= f.window && vc_of_(e, c.watched->flow.tc) < mine)
      out.push_back({{Unrepresented::BurstAbove, e, e}, c.id});
}

// Its requests' window leaves at once at its start (looked at while it leaves, request_burst_ns:
// a sharer starting later meets MRds going out one per returned tag), and goes ahead of a
// sharer as a whole where their VC outranks the sharer's (burst_ahead()), or where the
// sharer's TLPs join theirs in one ingress queue (same VC, same link in) behind them; elsewhere the two
// take turns and the sharer waits one MRd per TLP (a GPU's own engines at its egress: a
// 4 KiB write beside a 64 KiB read 2.5 % slower). On each saturated link of its request path
// up to where it is held, a sharer it goes ahead of, of under 33 bursts' bytes, then waits
// 3 % or more of its time behind the MRds, where the fluid gives it its share at once.
void FidelityWatch::request_burst(int id, const WatchFlow& f, std::vector<Cause>& out) const {
  if (!(f.request_burst_bytes > 0) || !f.request_path) return;
  const std::vector<int>& path = *f.request_path;
  for (std::size_t k = 0; k < path.size(); ++k) {
    const int e = path[k];
    if (held_at(e))
      for (const Crossing& c : by_edge_[static_cast<std::size_t>(e)])
        if (c.id != id && c.watched->flow.bytes * 0.03 <= f.request_burst_bytes && burst_ahead(f, k, c))
          out.push_back({{Unrepresented::RequestBurst, e, e}, c.id});
    if (std::find(f.held.begin(), f.held.end(), e) != f.held.end()) return;
  }
}

// A pile of requests: a read engine in the packet model issues the requests of every read it
// holds at once, up to its tags (models/pcie/dma_engine.h). They queue at its node's egress,
// and on each link after it no faster than every link before it; there a write stream of
// another engine takes turns with them one TLP for one, so its k-th TLP waits min(k - 1, N)
// MRds' time, T_m each (N the requests piled; its first goes ahead where both start at once).
// The fluid gives the stream the link less the reads' MRd share s throughout: its k-th TLP
// waits k T s (T its mean TLP's time there). Named for the writes where the difference is 3 %
// or more (2 % where copies queue behind g's: margin()) of that TLP's copy's latency in the
// packet model (how long it has waited since its submission, g's least time, the queue ahead
// of it, the waits) at the stream's middle TLP or its last (its copies' median and last
// latency; Q: g's TLPs and those queued behind it on its engine). User trials: 64 B writes
// 64 deep beside four 64 KiB reads on one Gen3 x16 GPU link, p99 574 ns in the packet model
// against the fluid's 484, unnamed (hand at the last: 63 x 1.69 - 64 x 6.19 x 0.043 = 89 ns,
// 16 %); 26 B writes of gpu1 64 deep beside 4 KiB
// reads of gpu0 16 deep up a Gen3 x4 switch uplink, 1,503 against 1,120 ns (hand: 63 x 6.6 -
// 64 x 13.8 x 0.043 = 378 ns). Not named: one 4 KiB write beside one 64 KiB read (16 TLPs,
// 128 MRds), 411 against 399 ns (hand: 15 x 1.69 - 16 x 19.7 x 0.043 = 11.7 ns, 2.9 %).
// (Taken at the TLP after the pile, where the difference is largest, it named 39 apps of a
// 300-config trial whose median, p99 and last latency were all within 3 %; here, 3.) A
// read's first look only: the instant its engine opens its requests.
void FidelityWatch::request_pile(const WatchFlow& f, std::vector<Cause>& out) const {
  if (!f.completions || !f.engine_queue || !f.request_path || f.request_path->empty() || !tlp_ns_) return;
  const double piled = f.engine_queue();
  if (!(piled > 0)) return;
  // The pile stands on each link of its path no faster than every link before it (its MRds
  // arrive there at least as fast as they leave), and on a faster one where they arrive
  // faster than taking turns with a write lets them leave (pile_at()).
  double slowest = 0;
  for (std::size_t k = 0; k < f.request_path->size(); ++k) {
    const int e = (*f.request_path)[k];
    const double t_m = tlp_ns(e, f, true);
    pile_at(f, k, piled, t_m, slowest, out);
    slowest = std::max(slowest, t_m);
  }
}

// The writes taking turns with read f's pile of `piled` requests at its request path's k-th
// link, t_m each there, where they arrive one per `gap` ns (request_pile()). On a link faster
// than one before it the MRds pile up only where a turn of a write's TLP and an MRd (t + t_m)
// outlasts that gap: a user trial, 64 B writes of gpu0 64 deep beside gpu1's 20 MRds, both
// GPUs on Gen3 x16 links (1.689 ns an MRd) below a Gen4 x8 uplink (1.658 ns): p50 428 ns in
// the packet model against the fluid's 403 (5.8 %), unnamed while only links no faster than
// the one before were looked at (hand at the 32nd write: 20 x 1.658 - 32 x 5.5 x 0.046 =
// 25 ns). A stream is named once, at its first such link.
void FidelityWatch::pile_at(const WatchFlow& f, std::size_t k, double piled, double t_m, double gap,
                            std::vector<Cause>& out) const {
  const int e = (*f.request_path)[k];
  const std::vector<Crossing>& there = by_edge_[static_cast<std::size_t>(e)];
  // The fluid's MRd share of the link: every read's requests crossing it.
  double share = 0;
  for (const Crossing& c : there)
    if (c.request && c.watched->flow.request_tlp_bytes > 0) share += c.watched->rate / c.watched->flow.request_tlp_bytes * t_m;
  for (const Crossing& c : there) {
    const WatchFlow& g = c.watched->flow;
    if (c.request || g.completions || !g.engine_queue || g.least_ns <= 0 || g.data_tlp_bytes <= 0 || !takes_turns(f, k, c))
      continue;
    // At the stream's middle TLP and its last (its copies' median and last latency): its
    // copy's TLPs and those queued behind it on its engine.
    const double own = tlps(g, false), queued = own + g.engine_queue();
    const double t = tlp_ns_(e, TlpKind::Write, g.bytes / own);  // (its mean TLP: a copy under MPS, its size)
    const auto piled_for_g = [&](const Cause& x) { return std::get<0>(x.first) == Unrepresented::RequestPile && x.second == c.id; };
    if (t_m + t <= gap || std::any_of(out.begin(), out.end(), piled_for_g)) continue;
    // Its k-th TLP waits min(piled, k - 1) MRds, where the fluid charges it k T s.
    const bool moved = moves_a_tlp(g, own, queued, t, margin(own, queued), [&](double kth) {
      const double waits = std::min(piled, kth - 1) * t_m;
      return std::make_pair(waits - kth * t * std::min(share, 1.0), waits);
    });
    if (moved) out.push_back({{Unrepresented::RequestPile, e, e}, c.id});
  }
}

// Whether a difference between the fidelities at a write stream g's middle TLP or its last
// (own: its copy's TLPs; queued: with those queued behind it on its engine; t each) is
// `fraction` of its latency there or more: at the k-th TLP, difference(k) gives the
// difference and what the packet model adds to the latency (request_pile(), requests_gone()).
template <class Difference>
bool FidelityWatch::moves_a_tlp(const WatchFlow& g, double own, double queued, double t, double fraction,
                                Difference difference) const {
  for (const double kth : {std::max(own, std::ceil(queued / 2)), queued}) {
    const auto [delta, added] = difference(kth);
    if (delta >= fraction * (write_latency_ns(g, kth, own, t) + added)) return true;
  }
  return false;
}

// The packet model's latency of the copy of a write stream g holding the kth of its TLPs and
// those queued behind it (own: its copy's), t each, leaving out the MRds' waits: how long it
// has waited since its submission, g's least time and the queue ahead of it (request_pile()).
double FidelityWatch::write_latency_ns(const WatchFlow& g, double kth, double own, double t) const {
  const double waited = g.submitted_ns ? std::max(0.0, now_ - g.submitted_ns(kth - own)) : 0.0;
  return waited + g.least_ns + (kth - own) * t;
}

// The share of a write's copy latency from which a pile's difference, estimated by hand, is
// named (request_pile()): 3 %, and 2 % for a stream with copies queued behind the one running:
// its later copies, submitted as earlier ones end, meet the pile too, and the one look at its start estimates their latency from the
// queue it sees (trial t130: 256 B writes 16 deep, 32 in all, beside 60 MRds on one Gen4 x8
// link: at the 16th write 11.4 ns estimated against 11.6 measured at p99, on a latency
// estimated at 422 ns where the packet model's p99 is 406 and its p50 336: 3.5 % apart at
// p50, unnamed at 3 %). On the 300-config trial (docs/architecture.md) 2 % names 5 more of
// the 96 apps outside 3 % (12 -> 7 silent) and 6 more within it (5 -> 11 of 78 named).
constexpr double kQueuedPileMargin = 0.02;
double FidelityWatch::margin(double own, double queued) { return queued > own ? kQueuedPileMargin : 0.03; }

// Whether read r's engine has sent every request of its reads and they have all gone past its
// request path's k-th link by now: the last one sent, and then, at most, all its requests out
// queued there, one per MRd time of the slowest link up to it (requests_gone()).
bool FidelityWatch::gone_by(const WatchFlow& r, std::size_t k) const {
  if (!r.requests_out || r.request_tlp_bytes <= 0 || !r.request_path || k >= r.request_path->size()) return false;
  const auto [sent_ns, out] = r.requests_out();
  double slowest = 0;
  for (std::size_t i = 0; i <= k; ++i) slowest = std::max(slowest, tlp_ns((*r.request_path)[i], r, true));
  return now_ > sent_ns + out * slowest;
}

// Requests gone ahead: once a read engine has sent every request of its reads (no more than
// its tags were asked for, none queued behind) and they have left (gone_by()), a read it runs
// has none on its request path in the packet model; the fluid charges the links its MRd share
// s for as long as its data run. A write stream starting after that, taking turns with those
// requests on a link that holds it (takes_turns()), so has the link without them in the
// packet model and its k-th TLP k T s later in the fluid (T its TLP's time there). Named for
// the writes, at their first look, where that is 3 % or more of their latency at their middle
// TLP or their last (write_latency_ns(), as request_pile() takes them). A user trial (t005):
// 4 KiB writes 13 deep starting 2.6 us after four 16 KiB reads of one Gen3 x16 GPU link (128
// MRds, all out at 0; s = 4.3 %): p50 2,277 ns in the packet model, 2,376 in the fluid
// (hand at the 52nd of 104 TLPs: 52 x 33.2 x 0.043 = 74 ns, 4 % of its 1.8 us), unnamed.
void FidelityWatch::requests_gone(int id, const WatchFlow& g, std::vector<Cause>& out) const {
  if (g.completions || !g.engine_queue || !g.data_path || g.least_ns <= 0 || g.data_tlp_bytes <= 0 || !tlp_ns_) return;
  const double own = tlps(g, false), queued = own + g.engine_queue();
  for (const int e : *g.data_path) {
    const std::vector<Crossing>& there = by_edge_[static_cast<std::size_t>(e)];
    const auto mine = std::find_if(there.begin(), there.end(), [&](const Crossing& c) { return c.id == id && !c.request; });
    if (mine == there.end() || std::find(g.held.begin(), g.held.end(), e) == g.held.end()) continue;
    double share = 0;  // the gone requests' share of the link in the fluid
    for (const Crossing& c : there)
      if (c.request && gone_by(c.watched->flow, static_cast<std::size_t>(c.pos)) &&
          takes_turns(c.watched->flow, static_cast<std::size_t>(c.pos), *mine))
        share += c.watched->rate / c.watched->flow.request_tlp_bytes * tlp_ns(e, c.watched->flow, true);
    if (!(share > 0)) continue;
    const double t = tlp_ns_(e, TlpKind::Write, g.bytes / own);
    const bool moved =
        moves_a_tlp(g, own, queued, t, 0.03, [&](double kth) { return std::make_pair(kth * t * std::min(share, 1.0), 0.0); });
    if (moved) {
      out.push_back({{Unrepresented::RequestsGone, e, e}, id});
      return;
    }
  }
}

// Whether the flow crossing f's k-th request link at c takes turns with f's requests there
// TLP for TLP: in f's VC or under round robin between VCs, and not above f's requester under
// strict port priority (request_pile()).
bool FidelityWatch::takes_turns(const WatchFlow& f, std::size_t k, const Crossing& c) const {
  const int e = (*f.request_path)[k];
  const EdgeArbitration& a = edges_[static_cast<std::size_t>(e)];
  const WatchFlow& g = c.watched->flow;
  if (vc_of_(e, f.tc) != vc_of_(e, g.tc) && a.vc.kind != ShareKind::RoundRobin) return false;
  const auto at = static_cast<std::size_t>(c.pos);
  return !(strict(a.port, false) && k < f.request_slots.size() && at < g.data_slots.size() &&
           g.data_slots[at] > f.request_slots[k]);
}

// Whether read f's requests, crossing its request path's k-th link, go there ahead of the
// flow crossing it at `c` as a whole (request_burst()).
bool FidelityWatch::burst_ahead(const WatchFlow& f, std::size_t k, const Crossing& c) const {
  const std::vector<int>& path = *f.request_path;
  const int e = path[k];
  const WatchFlow& g = c.watched->flow;
  const int mine = vc_of_(e, f.tc), theirs = vc_of_(e, g.tc);
  // The burst stays one where it left its requester, or arrives no slower than it leaves.
  const auto mrd = [&](int edge) { return tlp_ns_ ? tlp_ns(edge, f, true) : 0.0; };
  // Ahead by its VC: under strict priority above the sharer's, or under weighted round robin
  // with more of the turns (a re-trial: weights 1:16 for the read's VC, the write 34 % slower
  // in the packet model, unnamed; 1:2, 9 %; 2:1, as the fluid).
  const SharePolicy& vcs = edges_[static_cast<std::size_t>(e)].vc;
  const auto weight = [&](int vc) { return static_cast<std::size_t>(vc) < vcs.weights.size() ? vcs.weights[static_cast<std::size_t>(vc)] : 0.0; };
  const bool outranks = (vcs.kind == ShareKind::Strict && mine > theirs) ||
                        (vcs.kind == ShareKind::Weighted && weight(mine) > weight(theirs));
  if (outranks) return k == 0 || mrd(path[k - 1]) <= mrd(e);
  // In one ingress queue it is a pile only where it arrives faster than it leaves (an equal
  // link before this one hands on what its own turns interleaved).
  if (mine != theirs || k == 0 || c.pos == 0 || !(mrd(path[k - 1]) < mrd(e))) return false;
  const std::vector<int>* other = c.request ? g.request_path : g.data_path;
  return (*other)[static_cast<std::size_t>(c.pos) - 1] == path[k - 1];
}

// How long one of f's TLPs holds `edge`: an MRd on its request path, else a data TLP.
double FidelityWatch::tlp_ns(int edge, const WatchFlow& f, bool request) const {
  if (request) return tlp_ns_(edge, TlpKind::Request, 0);
  return tlp_ns_(edge, f.completions ? TlpKind::Completion : TlpKind::Write, f.data_tlp_bytes);
}

double FidelityWatch::longest_tlp_ns(const WatchFlow& f) const {
  double most = 0;
  for (const bool request : {false, true})
    if (const std::vector<int>* path = request ? f.request_path : f.data_path)
      for (int e : *path) most = std::max(most, tlp_ns(e, f, request));
  return most;
}

// A copy of a few TLPs beside another flow's TLPs on a link: the packet model's arbiters
// turn whole TLPs, so the copy waits for a sharer's TLP on the wire, or slips between its
// TLPs, up to about one TLP's time at a turn, where the fluid shares the link by the byte.
// Where one TLP of each sharer there (a turn) can move the copy's time by 3 % or more
// (turns_bound()), its latency can move by that much (a user trial: 256 B writes beside
// 1000 B ones up a store-and-forward switch's Gen3 x8 uplink, p50 287 ns in the packet model
// against the fluid's 326, unnamed). Named for the short copy: its sharers, many TLPs long,
// do not move by it, except in lower VCs under strict VC priority (sharers_of_turns()). The cause lives with the short copy, which a sharer's start or end
// on its links marks for a look again (touch_held_on()), so it holds while both run.
void FidelityWatch::tlp_turns(int id, const WatchFlow& f, std::vector<Cause>& out) const {
  if (!short_copy(f)) return;
  const double bound = turns_bound(f);
  for (const bool request : {false, true}) {
    const std::vector<int>* path = request ? f.request_path : f.data_path;
    if (!path) continue;
    for (int e : *path) {
      double turns = 0;  // one TLP of each sharer there: a turn each before the copy's (a re-trial:
                         // three 256 B copies beside it, 9.85 ns each, 9.6 % apart)
      for (const Crossing& c : by_edge_[static_cast<std::size_t>(e)])
        if (c.id != id && (turns += tlp_ns(e, c.watched->flow, c.request)) >= bound) {
          out.push_back({{Unrepresented::TlpTurns, e, e}, id});
          if (held_at(e)) sharers_of_turns(id, e, out);
          break;  // (once per link)
        }
    }
  }
}

// On a saturated link (some flow held there) whose VC arbiter is strict, short copies in a
// higher VC take the link back to back in the fluid, where in the packet model the gaps
// between them (a copy's TLPs leave one at a time, and the next copy starts later) let a TLP
// of a lower VC in, which then holds them up for its whole time: the sharers in lower VCs move
// too (a user trial: 456 B copies two deep in a strict VC above 64 KiB ones on a x4 link,
// the 64 KiB copies 41 % slower in the fluid, unnamed; with round robin VCs both agree).
// Those are named too, with a starvation guard or without (the trial's guard of 64 changed
// nothing).
void FidelityWatch::sharers_of_turns(int id, int e, std::vector<Cause>& out) const {
  if (!strict_at(e, false)) return;
  const int above = vc_of_(e, flows_.at(id).flow.tc);
  for (const Crossing& c : by_edge_[static_cast<std::size_t>(e)])
    if (c.id != id && vc_of_(e, c.watched->flow.tc) < above) out.push_back({{Unrepresented::TlpTurns, e, e}, c.id});
}

// A read held to its share of a link on its request path (its MRds') by copies of at most
// 3 % of its tag window (all the data copies there: a long one holds it as the fluid does):
// in the packet model its completions keep coming from the requests
// already out while its MRds wait, so waits that short cost its data nothing, where the
// fluid holds the whole read to its requests' share while those copies run (a user trial:
// 4 KiB reads 32 deep, 32 KiB of tags, beside 128 B writes 16 deep up one uplink under round
// robin, 96.2 Gb/s in the packet model against the fluid's 82.3, and 41.2 under WRR 3:1 for
// the writes, unnamed; a 64 KiB read beside one 4 KiB write, 3.1 % of its window, agrees
// within 0.2 %). Named for the read alone: the short copies take their turns in both.
void FidelityWatch::requests_held_briefly(int id, const WatchFlow& f, std::vector<Cause>& out) const {
  // (First, whether the smallest copy seen could be one: a read on a busy root port would
  // otherwise walk every crossing there at each look.)
  if (!f.request_path || least_bytes_ > 0.03 * f.window) return;
  for (int e : f.held) {
    if (std::find(f.request_path->begin(), f.request_path->end(), e) == f.request_path->end()) continue;
    bool brief = false;  // every copy beside it there short (a long one holds it as the fluid does)
    for (const Crossing& c : by_edge_[static_cast<std::size_t>(e)])
      if (c.id != id && !c.request && !(brief = c.watched->flow.bytes <= 0.03 * f.window)) break;
    if (brief) out.push_back({{Unrepresented::RequestsHeldBriefly, e, e}, id});
  }
}

// The sharers' turn (one TLP of each) that moves copy f by 3 %: a turn T can delay it by T,
// and its time is at least its least time, or with sharers that always have a TLP waiting,
// its n TLPs each behind a turn: T >= 0.03 (least + n T), T >= 0.03 least / (1 - 0.03 n).
// A copy of 34 TLPs or more is never moved 3 % by one turn (by least time alone, 64 KiB
// copies beside 31 others at a root port could be named).
double FidelityWatch::turns_bound(const WatchFlow& f) {
  const double left = 1 - 0.03 * tlps(f, false);
  return left > 0 && f.least_ns > 0 ? 0.03 * f.least_ns / left : kUnbounded;
}

// Whether f could be named for TLP turns: its bound under the longest TLP any watched flow
// sends (a bound that only loosens as flows come) times its sharers on its busiest link.
bool FidelityWatch::short_copy(const WatchFlow& f) const {
  const double bound = turns_bound(f);
  if (!tlp_ns_ || bound == kUnbounded) return false;
  std::size_t sharers = 0;
  for (const std::vector<int>* path : {f.data_path, f.request_path})
    if (path)
      for (int e : *path) sharers = std::max(sharers, by_edge_[static_cast<std::size_t>(e)].size());
  return bound < most_tlp_ns_ * static_cast<double>(std::max<std::size_t>(sharers, 2) - 1);
}

// A read held to its tag window's pace: on each saturated link of its paths (some flow held
// there) its requests' round trip grows by their turns there; it and its sharers there. On a
// link with room whose VC arbiter is strict, a flow running in a higher VC does the same to
// it alone: its requests or completions wait behind that flow's TLPs queued ahead of them (a
// request's CplDs come in a burst), and every wait adds to the round trip that sets its pace
// (user trials under priority_l: 8 tags reading 2 MiB beside a 1 MiB read ranked above it,
// 10.9 % slower in the packet model; 8 tags reading 256 KiB beside a stream of 64 KiB reads,
// 8.6 %; both unnamed). Under round robin it waits a TLP at most, and agrees (0.7 %).
void FidelityWatch::tag_queueing(int id, const WatchFlow& f, std::vector<Cause>& out) const {
  for (const bool request : {false, true}) {
    const std::vector<int>* path = request ? f.request_path : f.data_path;
    if (!path) continue;
    for (int e : *path) {
      if (held_at(e)) {
        for (const Crossing& c : by_edge_[static_cast<std::size_t>(e)]) out.push_back({{Unrepresented::TagQueueing, e, e}, c.id});
      } else if (strict_at(e, false)) {
        const int mine = vc_of_(e, f.tc);
        for (const Crossing& c : by_edge_[static_cast<std::size_t>(e)])
          if (c.id != id && c.watched->rate > 0 && vc_of_(e, c.watched->flow.tc) > mine) {
            out.push_back({{Unrepresented::TagQueueingBelow, e, e}, id});
            break;
          }
      }
    }
  }
}

// Flow f's credits bind it alone at each of its credit loops, whatever else runs.
void FidelityWatch::credit_limited(int id, const WatchFlow& f, std::vector<Cause>& out) {
  for (const auto& [e, request] : f.credit_loops) out.push_back({{Unrepresented::CreditLoop, e, e}, id});
}

// Copies whose TLPs of a class the credits hold all of (no loop of their own) can still find
// them out together: a TLP holds its credits a round trip from its start on the wire, and
// copies shorter than that follow one another (a stream kept `depth` deep) or run side by
// side in the class and VC before they are back. Where the TLPs of those running and of
// those that ended within a round trip (taken as sent at their end) exceed what the
// receiver holds, the packet model sends them no faster than the credits return, the fluid
// at their share of the link (a user trial: 100 B writes two deep behind 4 posted-header
// credits of a 280 ns round trip, 12.1 Gb/s against 20.3, unnamed; one deep, 3 TLPs a round
// trip, they agree). Named for the copy (a stand-in for an ended one is never taken for
// such copies, same_as_removed(): the count differs copy by copy).
void FidelityWatch::shared_credit_limited(int id, const WatchFlow& f, std::vector<Cause>& out) const {
  for (const WatchFlow::SharedLoop& l : f.shared_credit_loops) {
    const int cls = credit_class(f, l.request), vc = vc_of_(l.edge, f.tc);
    const auto e = static_cast<std::size_t>(l.edge);
    double out_now = 0;  // TLPs whose credits are out
    if (const auto it = recent_.find({l.edge, cls, vc}); it != recent_.end())
      for (const auto& [end_ns, n] : it->second)
        if (end_ns >= now_ - l.round_trip_ns) out_now += n;
    for (const Crossing& c : by_edge_[e])
      if (credit_class(c.watched->flow, c.request) == cls && vc_of_(l.edge, c.watched->flow.tc) == vc)
        out_now += tlps(c.watched->flow, c.request);
    if (out_now > l.window) out.push_back({{Unrepresented::SharedCreditLoop, l.edge, l.edge}, id});
  }
}

// Copies of one credit class and VC on a link whose credits carry less of their TLPs per
// round trip than the link could (credit_pools) hold credits for their TLPs' round trips:
// at the fluid's rates, sum of rate x credit-ns per unit (Little's law). Where that exceeds
// what the receiver advertises by more than 3 % with two copies or more, the packet model's
// egress waits for returning credits and moves them slower than the fluid does (one copy
// alone beyond its credits is a credit loop: credit_limited()). The round trip is the least
// one: a queue in the receiver holds credits longer, so this names no copy the credits do
// not hold back. All the pool's copies are named.
void FidelityWatch::pooled_credit_limited(const WatchFlow& f, std::vector<Cause>& out) const {
  for (const WatchFlow::CreditPool& p : f.credit_pools) {
    const int cls = credit_class(f, p.request), vc = vc_of_(p.edge, f.tc);
    const auto e = static_cast<std::size_t>(p.edge);
    const std::size_t named = out.size();  // the pool's copies are named as they are added up
    double headers = 0, data = 0;  // out at the fluid's rates
    int copies = 0;
    for (const Crossing& c : by_edge_[e]) {
      const WatchFlow& g = c.watched->flow;
      if (credit_class(g, c.request) != cls || vc_of_(p.edge, g.tc) != vc) continue;
      const WatchFlow::CreditPool q = pool_at(g, p.edge, c.request) ? *pool_at(g, p.edge, c.request) : full_size(g, c.request, p);
      headers += c.watched->rate * q.credit_ns_per_unit;
      data += c.watched->rate * q.data_ns_per_unit;
      copies += c.watched->rate > 0;
      out.push_back({{Unrepresented::PooledCreditLoop, p.edge, p.edge}, c.id});
    }
    if (copies < 2 || !(headers > 1.03 * p.headers || data > 1.03 * p.data)) out.resize(named);
  }
}

// A copy with no pool entry on the link sends TLPs its credits could not run out on alone
// (mostly full-size ones: MPS, the completion size, MRds of MRRS), but they take credits of
// the pool too: per unit of rate one TLP of its mean size, for pool p's round trip.
WatchFlow::CreditPool FidelityWatch::full_size(const WatchFlow& g, bool request, const WatchFlow::CreditPool& p) {
  WatchFlow::CreditPool q = p;
  const double per = request ? g.request_tlp_bytes : g.data_tlp_bytes;
  const double units = per > 0 && g.bytes > 0 ? g.bytes / tlps(g, request) : per;  // its mean TLP
  q.credit_ns_per_unit = units > 0 ? p.round_trip_ns / units : 0.0;
  q.data_ns_per_unit = request ? 0.0 : q.credit_ns_per_unit * std::ceil(units / 16.0);
  return q;
}

const WatchFlow::CreditPool* FidelityWatch::pool_at(const WatchFlow& f, int edge, bool request) {
  for (const WatchFlow::CreditPool& p : f.credit_pools)
    if (p.edge == edge && p.request == request) return &p;
  return nullptr;
}

// The TLPs flow f sends on its data path (its data TLPs) or its request path (its MRds).
double FidelityWatch::tlps(const WatchFlow& f, bool request) {
  const double per = request ? f.request_tlp_bytes : f.data_tlp_bytes;
  return per > 0 ? std::ceil(f.bytes / per) : 1.0;
}

// The link beyond its first where its data path is held and the link before is not (its TLPs
// queue before it), -1 for none.
int FidelityWatch::held_beyond(const WatchFlow& f) {
  const std::vector<int>& path = *f.data_path;
  for (std::size_t k = 1; k < path.size(); ++k)
    if (held_on(f, path[k]) && !held_on(f, path[k - 1])) return path[k];
  return -1;
}

// A write held beyond its first link whose hold moved back to a link before (a flow taking a
// share there): it now arrives at the old hold a little slower than it leaves, so the queue it
// built there drains at the difference, its old rate less its new one, and stands meanwhile,
// blocking as before (holding_back(), as for a tie). Reckoned at its first look after the move,
// from the credits' worth it had queued there. A user trial of trees (u582): a GPU's peer
// writes held at its switch's Gen3 x16 link to the other GPU (12.994 GB/s), then at its own
// Gen4 x8 link when its 1 KiB reads started (12.943 GB/s: their requests' share): the reads'
// requests waited 125 ns behind the queue in the switch's FIFO ingress, every read 137 ns
// later than the fluid's (6.3 % at p99), unnamed.
void FidelityWatch::moved_back(int id, Watched& w, std::vector<Cause>& out) {
  const WatchFlow& f = w.flow;
  const std::vector<int>& path = *f.data_path;
  const auto at = std::find(path.begin(), path.end(), w.left_hold);
  if (f.completions || at == path.end() || f.data_tlp_bytes <= 0) {  // (held_beyond(): never its first link)
    w.left_hold = -1;
    return;
  }
  if (w.standing_until < 0) {
    const double queued = queued_before(f, *(at - 1));
    const double drain = w.left_rate - w.rate;  // GB/s: bytes per ns
    w.standing_until = drain > 0 && queued < kUnbounded ? w.left_ns + queued * f.data_tlp_bytes / drain : 0;
    // That queue leaves at the old rate while the new one fills it, so the copy runs ahead of
    // the fluid by what has drained of it, up to all of it; where the copy ends before it is
    // held beyond again (which fills the queue back up), remove() names it for that
    // (left_queue_ahead()).
    if (w.standing_until > 0) {
      w.left_queue = {Unrepresented::LeftQueue, *(at - 1), w.left_hold};
      w.left_queued = queued * f.data_tlp_bytes;
    }
  }
  if (now_ >= w.standing_until) {
    w.left_hold = -1;
    return;
  }
  holding_back(id, f, false, static_cast<std::size_t>(at - path.begin()), true, out);
}

// Held beyond a link of its data path it is not held at: its TLPs queue before that link.
bool FidelityWatch::queues_beyond(const WatchFlow& f) { return held_beyond(f) >= 0; }

// Held at two links in a row (a tie): what queued between them drains no faster than it
// arrives, so it stays.
bool FidelityWatch::tied(const WatchFlow& f) {
  const std::vector<int>& path = *f.data_path;
  for (std::size_t k = 1; k < path.size(); ++k)
    if (held_on(f, path[k]) && held_on(f, path[k - 1])) return true;
  return false;
}

// g, crossing on its request path or its data path the queue f backs up with `queued` TLPs
// (backlog()), in fewer TLPs than that.
bool FidelityWatch::queued_behind(double queued, const WatchFlow& g, bool request) {
  return (request ? g.request_tlp_bytes : g.data_tlp_bytes) > 0 && tlps(g, request) < queued;
}

// A copy g (crossing c of `in`) starting now in the queue flow f (`id`) backs up there with
// `queued` TLPs: its first TLP (a read's first request) joins the queue's tail and waits its
// drain, B t (t one of f's TLPs at `next`), which the fluid, sharing the drain from g's start,
// leaves out. Named where that is 3 % or more of g's time at its fluid rate (its first TLP's
// latency and its bytes at that rate), where the queue stands by then (f has run the drain's
// time: for g's data, by g's end at that rate, its last TLP waiting it; for a read's
// requests, at its start), and where no earlier copy of g's app is in the queue (its copies back to
// back wait the drain once: 64 KiB reads 2 deep behind such a queue agree within 0.01 %). A
// copy of fewer TLPs than B is named in any case (queued_behind()). A user trial: a GPU's
// 198 KiB reads one deep beside its 249 KiB writes 15 deep, held at a Gen3 x8 switch uplink
// behind one FIFO ingress queue of 128 posted TLPs (4.55 us): each read 35.8 us in the packet
// model, 31.0 us in the fluid (13.2 %), unnamed.
bool FidelityWatch::starts_behind(int id, const WatchFlow& f, double queued, int in, int next, const Crossing& c) const {
  const Watched& g = *c.watched;
  if (!(g.started_ns < 0 || g.started_ns == now_) || g.rate <= 0 || !tlp_ns_ || f.data_tlp_bytes <= 0 || !(queued < kUnbounded))
    return false;
  const double drain = queued * tlp_ns(next, f, false);
  // Its data (a write's TLPs) in the queue: its last TLP waits what stands by its end (f
  // starting now: -1). A read's requests: what stands at its start (later ones go out ahead
  // of their data, within its tags: reads starting with f agree within 0.01 %).
  const double started = flows_.at(id).started_ns;
  const double by = c.request ? now_ : now_ + g.flow.bytes / g.rate;
  if ((c.request && started < 0) || by - (started < 0 ? now_ : started) < drain) return false;
  for (const Crossing& x : by_edge_[static_cast<std::size_t>(in)])
    if (x.id != c.id && x.owner == c.owner && x.request == c.request && x.watched->started_ns >= 0 && x.watched->started_ns < now_)
      return false;
  return drain >= 0.03 * (first_tlp_ns(g.flow) + g.flow.bytes / g.rate);
}

// A read g whose requests wait in the queue f backs up (its tag window of MRds fewer than
// f's backlog there): the fluid gives it turns as the TLPs it keeps in the queue, its whole
// window, so one window per drain of the backlog; in the packet model each request also
// spends its round trip outside the queue, so its window takes that round trip (rtt, its
// first TLP's latency) plus the backlog's drain. Named where rtt is 3 % of that drain or more
// (B t, t one of f's TLPs at `next`). A user trial: 64 KiB reads of 16 tags behind a 2 MiB
// write backed up at a 12 GB/s memory port (rc0 without VOQ): 53.2 us in the packet model,
// 42.1 us in the fluid (hand: 823 + 116 x 21.33 = 3,298 ns per window against 128 x 21.33 =
// 2,731: 17.2 % slower, 20.9 % measured), unnamed; with the write held at its own x8 link
// (no backlog) both agree within 1.1 %.
bool FidelityWatch::window_in_queue(const WatchFlow& f, double queued, int next, const WatchFlow& g) const {
  if (!g.completions || !(g.request_tlps < queued) || f.data_tlp_bytes <= 0 || !tlp_ns_ || g.least_ns <= 0) return false;
  const double rtt = g.least_ns - g.bytes / g.peak_bytes_per_ns;
  const double drain = queued * tlp_ns(next, f, false);
  return rtt >= 0.03 * drain;
}

// Whether write f, held at the egress after the queue it backs up, keeps more of that queue
// than its own TLPs (`queued`, with the copies queued behind it on its engine: backlog()),
// where TLPs of another credit class (`other`) wait in the same queue. The fluid divides such
// a queue among its classes by what each can keep in it (division_tree.cpp, queue()), and
// counts a write's own TLPs only (flow_network.cpp, limit_write_window()); the packet model's
// engine issues the next copy's TLPs once the last one's have left it, so a stream of short
// writes keeps the queue's credits as one long write does. Trees trial u1607, named by
// nothing: 8 KiB writes 13 deep (32 TLPs each against 128 posted credits) beside their GPU's
// reads in a switch's ingress queue; the fluid gave the reads' MRds 26.2 turns per us to the
// writes' 11.6, the packet model 85 MRds to 90 MWrs per 5 us, and the writes' median latency
// was 54 % late (docs/performance.md, "a write stream's window").
bool FidelityWatch::stream_in_queue(const WatchFlow& f, double queued, double buffered, int other) {
  if (f.completions || other == credit_class(f, false)) return false;
  return f.data_tlps < buffered && queued > f.data_tlps;
}

// f's backlog in a queue of `buffered` TLPs of its class (its credits: unbounded with infinite
// ones): no more than f can have in flight, with a write's `stream`, the TLPs of the writes
// queued behind it on its engine (queued_stream()), which issues the next copy's TLPs once
// the last one's have left it: a stream of short copies backs a queue up as one
// (a user trial: 48 KiB reads of 32 tags beside their GPU's 2 KiB writes 32 deep, held at a
// Gen3 x8 switch uplink, the reads' requests behind 128 posted TLPs in the switch's ingress;
// p99 46.1 us in the packet model against the fluid's 29.8, unnamed: one copy's 8 TLPs were
// taken for the backlog).
double FidelityWatch::backlog(const WatchFlow& f, double buffered, double stream) {
  return std::min(buffered, f.data_tlps + stream);
}

double FidelityWatch::queued_stream(const WatchFlow& f) {
  return !f.completions && f.engine_queue ? f.engine_queue() : 0.0;
}

bool FidelityWatch::held_on(const WatchFlow& f, int edge) {
  return std::find(f.held.begin(), f.held.end(), edge) != f.held.end();
}

// Whether edge e's VC arbiter is strict priority (`unguarded`: and without a starvation
// guard, whose floor lets a lower VC in).
bool FidelityWatch::strict_at(int e, bool unguarded) const {
  return strict(edges_[static_cast<std::size_t>(e)].vc, unguarded);
}

// Whether an arbiter's policy is strict priority (`unguarded`: and without a starvation guard).
bool FidelityWatch::strict(const SharePolicy& p, bool unguarded) {
  return p.kind == ShareKind::Strict && !(unguarded && p.guard > 0);
}

bool FidelityWatch::held_at(int edge) const { return held_count_[static_cast<std::size_t>(edge)] > 0; }

void FidelityWatch::count_held(const std::vector<int>& edges, int delta) {
  for (int e : edges) held_count_[static_cast<std::size_t>(e)] += delta;
}

// A sighting holds while some flow causes it: from the first to the last, its time counts.
void FidelityWatch::count(const Key& k, int delta) {
  auto& [causes, since] = active_[k];
  if (causes == 0) {
    since = now_;
    seen_.emplace(k, Sighting{now_, 0, {}, {}});
  }
  causes += delta;
  if (causes == 0) {
    seen_[k].total_ns += now_ - since;
    active_.erase(k);
  }
}

void FidelityWatch::finish(double now_ns) {
  now_ = now_ns;
  apply_removals();
  for (const auto& [k, a] : active_) seen_[k].total_ns += now_ - a.second;
  active_.clear();
}

// Its first TLP's latency: its least time less its bytes at its peak (starts_behind(),
// left_queue_ahead(): its time at a rate is this plus its bytes at that rate).
double FidelityWatch::first_tlp_ns(const WatchFlow& f) {
  return std::max(0.0, f.least_ns - (f.peak_bytes_per_ns < kUnbounded ? f.bytes / f.peak_bytes_per_ns : 0.0));
}

// A copy ending now that left a queue behind when its hold moved back (moved_back()): in the
// packet model that queue has drained at its old rate less its new one since, up to all of
// it, and the copy ends that far ahead of the fluid. Named where that is 3 % of its time at
// its rate or more. A user trial of trees (u1752): rc0's 32 KiB pushes to a Gen3 x8 GPU, held
// there, then at rc0->sw0 below a strict higher VC's pushes with a guard of 2 (6.6 -> 4.3
// GB/s): 128 TLPs queued at sw0, the stream 7.0 us ahead in the packet model, 7.6 by hand,
// p50 34 % apart, unnamed. (A hold that moves back for a hair of rate, 12.994 -> 12.943 GB/s,
// drains its queue at the difference: nothing to name.)
bool FidelityWatch::left_queue_ahead(const Watched& w) const {
  const WatchFlow& f = w.flow;
  if (!(w.rate > 0) || f.least_ns <= 0) return false;
  const double ahead = std::min(w.left_queued, std::max(0.0, w.left_rate - w.rate) * (now_ - w.left_ns));
  return ahead >= 0.03 * (first_tlp_ns(f) * w.rate + f.bytes);
}

}  // namespace arbsim::flow
