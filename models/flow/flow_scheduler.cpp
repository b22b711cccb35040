#include "models/flow/flow_scheduler.h"
#include <algorithm>

namespace arbsim::flow {

namespace {

// A flow's bytes moved over `dt` at its rate, not beyond what it has left.
double moved_over(double rate, double left, double dt) {
  return rate == kUnbounded ? std::max(0.0, left) : rate * std::min(dt, std::max(0.0, left) / rate);
}

}  // namespace

Scheduler::Scheduler(std::vector<double> capacity, std::vector<EdgeArbitration> arbitration)
    : capacity_(std::move(capacity)),
      arbitration_(std::move(arbitration)),
      on_edge_(capacity_.size()),
      busy_(capacity_.size(), 0.0),
      solver_(capacity_, arbitration_),
      binds_(capacity_.size(), 0),
      seen_edge_(capacity_.size(), 0),
      binds_epoch_(capacity_.size(), 0),
      can_(capacity_.size(), 0),
      can_epoch_(capacity_.size(), 0) {
  if (!arbitration_.empty() && arbitration_.size() != capacity_.size())
    throw std::invalid_argument("flow::Scheduler: one arbitration per edge needed");
  for (double c : capacity_)
    if (!(c > 0)) throw std::invalid_argument("flow::Scheduler: edge capacity must be > 0");
}

Scheduler::Running& Scheduler::at(int id) { return slots_[static_cast<std::size_t>(slot_of_.at(id))]; }
const Scheduler::Running& Scheduler::at(int id) const { return slots_[static_cast<std::size_t>(slot_of_.at(id))]; }

// Time moves on only once the rates of what happened before are settled: a start's rates
// apply from its instant. Changes at one instant wait for one another (no byte moves in no
// time), so an end and the start it lets in cost one computation.
void Scheduler::move_to(double now_ns) {
  if (now_ns < now_) throw std::invalid_argument("flow::Scheduler: time went backwards");
  if (now_ns > now_) settle();
  now_ = now_ns;
}

int Scheduler::add(double now_ns, double volume, FlowSpec spec, Release release, LaterCap later,
                   double requests_out, double opened_ns) {
  check_flow(spec, capacity_.size());
  move_to(now_ns);
  int slot;
  if (free_.empty()) {
    slot = static_cast<int>(slots_.size());
    slots_.emplace_back();
  } else {
    slot = free_.back();
    free_.pop_back();
  }
  Running& f = slots_[static_cast<std::size_t>(slot)];
  f = Running{};
  f.id = next_id_++;
  f.volume = f.left = std::max(0.0, volume);
  f.release = release;
  f.release.left = release.left > 0 ? std::min(release.left, f.volume) : 0.0;
  f.since = now_;
  f.spec = std::move(spec);
  // A cap at or above what the flow's links let it move never binds: left out, every such
  // flow of one path has one spec, so a start can take the place of an end of the same
  // instant (Replacements) whatever set the cap (a read's tag pace, a paced copy's rate).
  // (A read's tag cap kept while it could not bind made each h2d stream's second read on
  // 256 GPUs recompute its 32-flow root complex: twice the computations.)
  const double links = links_most(f.spec);
  if (f.spec.cap >= links) f.spec.cap = kUnbounded;
  f.most = std::min(f.spec.cap, links);
  f.hash = spec_hash(f.spec);
  if (specs_seen_.size() >= (std::size_t{1} << 16)) specs_seen_.clear();
  f.fresh = specs_seen_.insert(f.hash).second;
  for (const Hop& h : f.spec.path) {
    on_edge_[static_cast<std::size_t>(h.edge)].push_back(slot);
    pending_.push_back(h.edge);
  }
  // A later cap above the most the flow can ever move never binds: none.
  if (later.cap < f.most && later.after < f.volume) f.later = later;
  // A read: its requests start at the first hop after its data's that starts. Its first
  // window counts as out only once its requests pass (with_drains()): where they are held
  // from its start, they wait before the link that holds them (survey seed 30136: a read's
  // MRds behind a strict VC's writes at sw1->rc0 from its start; none of its data came in
  // 560 us, in the packet model).
  f.requests_at = f.spec.path.size();
  for (std::size_t k = 1; k < f.spec.path.size(); ++k)
    if (f.spec.path[k].starts) {
      f.requests_at = k;
      const Hop& h = f.spec.path[k];
      f.window = h.window < kUnbounded ? h.window * h.tlp : 0.0;
      f.backlog = std::min(std::max(0.0, requests_out), f.volume);
      f.opened_ns = opened_ns;
      break;
    }
  slot_of_.emplace(f.id, slot);
  int ends = -1;  // the end of this instant it replaces, if any
  for (std::size_t k = 0; k < ended_.size() && ends < 0; ++k) {
    Ended& e = ended_[k];
    if (e.usable && !e.taken && e.hash == f.hash && spec_equal(e.spec, f.spec)) e.taken = true, ends = static_cast<int>(k);
  }
  started_.emplace_back(slot, ends);
  keyed(slot);
  return f.id;
}

double Scheduler::links_most(const FlowSpec& spec) const {
  double most = kUnbounded;
  for (const Hop& h : spec.path)
    if (!h.ahead && h.weight > 0) most = std::min(most, capacity_[static_cast<std::size_t>(h.edge)] / h.weight);
  return most;
}

std::vector<int> Scheduler::advance(double now_ns) {
  move_to(now_ns);
  std::vector<int> done;
  while (!done_.empty() && done_.top_key() <= now_) {
    done.push_back(done_.top());
    done_.erase(done_.top());
  }
  std::sort(done.begin(), done.end(), [&](int a, int b) { return slots_[a].id < slots_[b].id; });
  released_.clear();
  // Due within 1 ps (the kernel's resolution: a wake rounded to the picosecond can fall a
  // hair short of the key, and would then be asked for again at the same instant).
  while (!release_.empty() && release_.top_key() <= now_ + 1e-3) {
    Running& f = slots_[static_cast<std::size_t>(release_.top())];
    f.released = true;
    release_.erase(release_.top());
    if (std::find(done.begin(), done.end(), slot_of_.at(f.id)) == done.end()) released_.push_back(f.id);
  }
  std::sort(released_.begin(), released_.end());
  while (!later_.empty() && later_.top_key() <= now_ + 1e-3) apply_later_cap(later_.top());
  while (!drain_.empty() && drain_.top_key() <= now_ + 1e-3) end_drain(drain_.top());
  finished_rates_.clear();
  finished_opened_.clear();
  finished_holds_.clear();
  std::vector<int> ids;
  for (int slot : done) {
    Running& f = slots_[static_cast<std::size_t>(slot)];
    rebase(f, now_);
    finished_rates_.push_back(f.burst >= 0 ? f.burst : f.moved_at >= 0 ? f.moved_at : f.rate);
    finished_opened_.push_back(f.read() ? f.opened_ns : kUnbounded);
    finished_holds_.push_back(f.hold);
    ids.push_back(f.id);
    retire(slot);
  }
  return ids;
}

void Scheduler::retire(int slot) {
  Running& f = slots_[static_cast<std::size_t>(slot)];
  for (const Hop& h : f.spec.path) {
    std::vector<int>& on = on_edge_[static_cast<std::size_t>(h.edge)];
    on.erase(std::find(on.begin(), on.end(), slot));
    pending_.push_back(h.edge);
  }
  finish_.erase(slot);
  done_.erase(slot);
  release_.erase(slot);
  later_.erase(slot);
  drain_.erase(slot);
  slot_of_.erase(f.id);
  f.id = -1;
  const bool drained = f.drain > 0 || requests_hold(f, f.held.data(), f.held.data() + f.held.size());
  ended_.push_back({std::move(f.spec), f.hash, f.rate, std::move(f.held), f.hold.window, !f.fresh && f.converged, false, drained});
  f.spec.path.clear();
  f.held.clear();
  free_.push_back(slot);
}

double Scheduler::next_finish_ns() const {
  settle();
  double next = finish_.empty() ? kUnbounded : finish_.top_key();
  if (!release_.empty()) next = std::min(next, release_.top_key());
  if (!later_.empty()) next = std::min(next, later_.top_key());
  if (!drain_.empty()) next = std::min(next, drain_.top_key());
  return next == kUnbounded ? kUnbounded : std::max(now_, next);
}

double Scheduler::rate(int id) const {
  settle();
  return at(id).rate;
}

const std::vector<int>& Scheduler::held(int id) const {
  settle();
  return at(id).held;
}

std::vector<int> Scheduler::take_recomputed() {
  settle();
  std::vector<int> ids;
  ids.swap(recomputed_);
  return ids;
}

double Scheduler::sent_at(int id, double now_ns) const {
  settle();
  const Running& f = at(id);
  return f.volume - f.left + moved_over(f.rate, f.left, std::max(0.0, now_ns - f.since));
}

double Scheduler::busy_ns(int e) const {
  settle();
  double busy = busy_[static_cast<std::size_t>(e)];
  for (int slot : on_edge_[static_cast<std::size_t>(e)]) {
    const Running& f = slots_[static_cast<std::size_t>(slot)];
    if (f.rate == kUnbounded) continue;  // moves no busy time (it is done at once)
    const double moved = moved_over(f.rate, f.left, now_ - f.since);
    for (const Hop& h : f.spec.path)
      if (h.edge == e) busy += moved * h.weight / capacity_[static_cast<std::size_t>(e)];
  }
  return busy;
}

std::vector<double> Scheduler::busy_ns_at(double now_ns) const {
  std::vector<double> busy(capacity_.size());
  for (std::size_t e = 0; e < busy.size(); ++e) busy[e] = busy_ns(static_cast<int>(e));
  const double dt = std::max(0.0, now_ns - now_);
  for (const Running& f : slots_) {
    if (f.id < 0 || f.rate == kUnbounded) continue;
    const double left = f.left - f.rate * (now_ - f.since);
    const double moved = moved_over(f.rate, left, dt);
    for (const Hop& h : f.spec.path)
      busy[static_cast<std::size_t>(h.edge)] += moved * h.weight / capacity_[static_cast<std::size_t>(h.edge)];
  }
  return busy;
}

// The flow's progress at its old rate up to `now_ns` (its bytes, its edges' busy time, the
// rate it last moved at), from which it goes on at a new one.
void Scheduler::rebase(Running& f, double now_ns) const {
  const double dt = now_ns - f.since;
  f.since = now_ns;
  if (f.drain > 0) f.backlog = std::max(0.0, f.backlog - f.drain * std::max(0.0, dt));
  if (f.rate == kUnbounded) {
    f.left = 0;
    return;
  }
  const double moved = moved_over(f.rate, f.left, dt);
  for (const Hop& h : f.spec.path)
    busy_[static_cast<std::size_t>(h.edge)] += moved * h.weight / capacity_[static_cast<std::size_t>(h.edge)];
  if (dt > 0 && f.left > 0) f.moved_at = f.rate;
  f.left -= f.rate * dt;
}

// The flow's two finish times: when its bytes run out (next_finish_ns()), and when it first
// counts as done, with under 1 ps of bytes or a byte per GB of its volume left (advance()).
void Scheduler::keyed(int slot) const {
  const Running& f = slots_[static_cast<std::size_t>(slot)];
  double runs_out = kUnbounded, done = kUnbounded;
  if (f.rate == kUnbounded) {
    runs_out = f.since;
    done = -kUnbounded;
  } else if (f.rate > 0) {
    runs_out = f.since + std::max(0.0, f.left) / f.rate;
    done = f.since + (f.left - f.volume * 1e-9) / f.rate - 1e-3;
  } else if (f.left <= f.volume * 1e-9) {
    done = -kUnbounded;
  }
  finish_.set(slot, runs_out);
  done_.set(slot, done);
  if (f.release.left > 0 && !f.released) release_.set(slot, released_at(f));
  if (f.later.cap < kUnbounded) later_.set(slot, capped_at(f));
  if (f.drain > 0) drain_.set(slot, f.since + f.backlog / f.drain);
  else drain_.erase(slot);
}

// When flow f has moved its later cap's `after`, at its current rate.
double Scheduler::capped_at(const Running& f) {
  const double to_go = f.left - (f.volume - f.later.after);
  if (to_go <= 0 || f.rate == kUnbounded) return f.since;
  return f.rate > 0 ? f.since + to_go / f.rate : kUnbounded;
}

// Its cap from now on: the flow's spec changes, so its component's rates are recomputed.
void Scheduler::apply_later_cap(int slot) {
  Running& f = slots_[static_cast<std::size_t>(slot)];
  later_.erase(slot);
  rebase(f, now_);
  other_change_ = true;
  f.burst = f.moved_at >= 0 ? f.moved_at : f.rate;
  f.spec.cap = std::min(f.spec.cap, f.later.cap);
  f.most = std::min(f.most, f.spec.cap);
  f.later = LaterCap{};
  f.hash = spec_hash(f.spec);
  f.fresh = specs_seen_.insert(f.hash).second;
  for (const Hop& h : f.spec.path) pending_.push_back(h.edge);
  keyed(slot);
}

// When flow f has no more than its release left, at its current rate.
double Scheduler::released_at(const Running& f) {
  double at = kUnbounded;
  if (f.left <= f.release.left || f.rate == kUnbounded) at = f.since;
  else if (f.rate > 0) at = f.since + (f.left - f.release.left) / f.rate;
  return std::max(at, f.release.not_before_ns);
}

// Where a queue holds f at this computation (`queued_window` of it waits there), since when
// (without a break) and its volume left then (at its rate since its last rebase: set_rate()
// may not have rebased it).
void Scheduler::note_hold(Running& f, double queued_window) const {
  if (!(queued_window > 0)) {
    f.hold = {};
    return;
  }
  if (f.hold.since_ns < 0) f.hold = {0.0, now_, f.left - moved_over(f.rate, f.left, now_ - f.since)};
  f.hold.window = queued_window;
}

void Scheduler::set_rate(int slot, double rate) const {
  Running& f = slots_[static_cast<std::size_t>(slot)];
  if (rate == f.rate) return;
  rebase(f, now_);
  f.rate = rate;
  keyed(slot);
}

bool Scheduler::can_bind(int edge) const {
  const std::size_t e = static_cast<std::size_t>(edge);
  if (can_epoch_[e] == epoch_) return can_[e] != 0;
  double most = 0;
  for (int slot : on_edge_[e]) {
    const Running& f = slots_[static_cast<std::size_t>(slot)];
    for (const Hop& h : f.spec.path)
      if (h.edge == edge) most += f.most * h.weight;
  }
  can_epoch_[e] = epoch_;
  can_[e] = most >= capacity_[e] * (1 - 1e-9) ? 1 : 0;
  return can_[e] != 0;
}

// Whether a queue can back up at `edge`'s receiver with another flow waiting in it
// (arbitrated_rates.cpp, "Queues that back up"): its receiver's queue is bounded (finite
// credits) or shared by every egress (a FIFO), two flows cross it, and one of them crosses
// an edge further on that can bind (it may be held back there). Such an edge enters the
// computation though its capacity alone never binds.
bool Scheduler::queues(int edge) const {
  const std::vector<int>& on = on_edge_[static_cast<std::size_t>(edge)];
  if (arbitration_.empty() || on.size() < 2) return false;
  const EdgeArbitration& a = arbitration_[static_cast<std::size_t>(edge)];
  if (!a.fifo_ingress && std::all_of(a.buffered.begin(), a.buffered.end(),
                                     [](double n) { return n == EdgeArbitration::kNoLimit; }))
    return false;
  for (int slot : on) {
    bool after = false;
    for (const Hop& h : slots_[static_cast<std::size_t>(slot)].spec.path) {
      if (after && (h.starts || h.edge == edge)) break;  // its path ends (a read's requests start)
      if (after && can_bind(h.edge)) return true;
      after = after || h.edge == edge;
    }
  }
  return false;
}

// The running flows on the pending edges and those that share an edge that can bind with
// them, directly or through others: the only ones whose rates a change there can move (each
// component's rates depend on its own flows and binding edges alone). Slots, in id order.
const std::vector<int>& Scheduler::component() const {
  std::vector<int>&slots = slots_scratch_, &todo = todo_, &next = next_, &touched = touched_;
  slots.clear();
  todo.clear();
  for (int e : pending_)
    if (!seen_edge_[static_cast<std::size_t>(e)]) seen_edge_[static_cast<std::size_t>(e)] = 1, todo.push_back(e);
  touched = todo;
  slot_epoch_.resize(slots_.size(), 0);
  for (bool seeds = true; !todo.empty(); seeds = false) {
    next.clear();
    for (int e : todo) {
      if (!seeds && !binds(e)) continue;
      for (int slot : on_edge_[static_cast<std::size_t>(e)]) {
        if (slot_epoch_[static_cast<std::size_t>(slot)] == epoch_) continue;
        slot_epoch_[static_cast<std::size_t>(slot)] = epoch_;
        slots.push_back(slot);
        for (const Hop& h : slots_[static_cast<std::size_t>(slot)].spec.path)
          if (!seen_edge_[static_cast<std::size_t>(h.edge)]) {
            seen_edge_[static_cast<std::size_t>(h.edge)] = 1;
            next.push_back(h.edge);
            touched.push_back(h.edge);
          }
      }
    }
    todo.swap(next);
  }
  for (int e : touched) seen_edge_[static_cast<std::size_t>(e)] = 0;
  std::sort(slots.begin(), slots.end(), [&](int a, int b) { return slots_[a].id < slots_[b].id; });
  return slots;
}

// Whether `edge` can bind, asked once per recomputation (the epoch).
bool Scheduler::binds(int edge) const {
  const std::size_t e = static_cast<std::size_t>(edge);
  if (binds_epoch_[e] != epoch_) {
    binds_epoch_[e] = epoch_;
    binds_[e] = can_bind(edge) || queues(edge) ? 1 : 0;
  }
  return binds_[e] != 0;
}

// Replacements: where this instant's changes are all ends each replaced by a start of the
// same spec (a stream's next copy), the component's flows are the same specs as at its last
// computation, which no change since has made stale (any would have recomputed it), with
// the same edges able to bind (they depend on the specs alone). Its rates are then that
// computation's, position by position in the spec order: a replacing start takes the last
// place among its equals and the others move up, so where all of its equals have the same
// rate and holds (checked), it takes the ended one's and nothing else moves. Where that
// computation did not settle, it is made again (its failure is counted per computation).
bool Scheduler::replaces_only() const {
  if (pending_all_ || other_change_ || started_.empty() || started_.size() != ended_.size()) return false;
  for (const auto& [slot, ends] : started_) {
    if (ends < 0) return false;
    const Ended& e = ended_[static_cast<std::size_t>(ends)];
    if (e.spec.path.empty() || e.drained) return false;
    for (int other : on_edge_[static_cast<std::size_t>(e.spec.path.front().edge)]) {
      const Running& g = slots_[static_cast<std::size_t>(other)];
      if (other == slot || g.hash != e.hash || !spec_equal(g.spec, e.spec)) continue;
      if (g.fresh || g.rate != e.rate || g.held != e.held || g.hold.window != e.queued_window) return false;
    }
  }
  return true;
}

void Scheduler::take_over() const {
  for (const auto& [slot, ends] : started_) {
    const Ended& e = ended_[static_cast<std::size_t>(ends)];
    Running& f = slots_[static_cast<std::size_t>(slot)];
    f.fresh = false;
    set_rate(slot, e.rate);
    f.held = e.held;
    note_hold(f, e.queued_window);
    // A read whose requests pass has its window out (with_drains(), which a replacement skips;
    // one held by its requests replaces nothing: Ended::drained).
    if (f.read()) window_out(f);
    if (keep_recomputed_) recomputed_.push_back(f.id);
    ++replacements_;
  }
}

void Scheduler::settle() const {
  if (!pending_all_ && pending_.empty()) {  // (an instant's records go with it all the same)
    ended_.clear();
    started_.clear();
    other_change_ = false;
    return;
  }
  const bool replaced = replaces_only();
  if (replaced) take_over();
  ended_.clear();
  started_.clear();
  other_change_ = false;
  if (replaced) {
    pending_.clear();
    return;
  }
  ++epoch_;
  std::vector<int>& slots = slots_scratch_;
  if (pending_all_) {
    slots.clear();
    for (std::size_t slot = 0; slot < slots_.size(); ++slot)
      if (slots_[slot].id >= 0) slots.push_back(static_cast<int>(slot));
    std::sort(slots.begin(), slots.end(), [&](int a, int b) { return slots_[a].id < slots_[b].id; });
  } else {
    component();
  }
  pending_.clear();
  pending_all_ = false;
  recompute(slots);
  if (keep_recomputed_)
    for (int slot : slots) recomputed_.push_back(slots_[static_cast<std::size_t>(slot)].id);
}

// The component's flows go to the solver ordered by spec, identical specs by id: its
// inputs, and so its rates, are then those of any earlier computation over equal specs, and
// the memo gives them back (rate_memo.h). They are applied in id order as before.
void Scheduler::recompute(const std::vector<int>& slots) const {
  order_ = slots;
  std::sort(order_.begin(), order_.end(), [&](int a, int b) {
    const Running& x = slots_[static_cast<std::size_t>(a)];
    const Running& y = slots_[static_cast<std::size_t>(b)];
    if (spec_less(x.hash, x.spec, y.hash, y.spec)) return true;
    return !spec_less(y.hash, y.spec, x.hash, x.spec) && x.id < y.id;
  });
  specs_.clear();
  hashes_.clear();
  hop_binds_.clear();
  place_.resize(slots_.size());
  bool known = true;  // no flow is fresh
  for (std::size_t k = 0; k < order_.size(); ++k) {
    const Running& f = slots_[static_cast<std::size_t>(order_[k])];
    place_[static_cast<std::size_t>(order_[k])] = static_cast<int>(k);
    specs_.push_back(&f.spec);
    hashes_.push_back(f.hash);
    known = known && !f.fresh;
    // Hops on edges that cannot bind weigh nothing: no share is computed there (the hop
    // stays, for the path: arbitrated_rates.h splits a requester's turn by the egress before it).
    for (const Hop& h : f.spec.path) hop_binds_.push_back(binds(h.edge) ? 1 : 0);
  }
  const RateMemo::Key key{&specs_, &hashes_, &hop_binds_};
  const ArbitratedRates* r = known ? memo_.find(key) : nullptr;
  if (!r) {
    r = &rates_of_order();
    if (known) memo_.store(key, *r);
  }
  if (!arbitration_.empty()) r = &with_drains(*r);
  if (!r->converged || r->damped) {
    ++unsettled_;
    damped_ += r->damped;
    if (keep_recomputed_)
      for (int slot : slots) unsettled_ids_.push_back(slots_[static_cast<std::size_t>(slot)].id);
  }
  for (int slot : slots) {
    Running& f = slots_[static_cast<std::size_t>(slot)];
    f.fresh = false;
    f.converged = r->converged;
    const std::size_t i = static_cast<std::size_t>(place_[static_cast<std::size_t>(slot)]);
    set_rate(slot, r->rate[i]);
    if (f.read()) keyed(slot);  // (a read's drain that starts or stops changes no rate of its own)
    f.held.assign(r->held.begin() + r->held_start[i], r->held.begin() + r->held_start[i + 1]);
    note_hold(f, r->queued_window.empty() ? 0.0 : r->queued_window[i]);
  }
}

// A read's window draining. A read's engine has its tag window of requests out whenever its
// requests pass freely: held on its data path alone, by its tags, or by nothing. Where its
// requests come to hold it (a link on their way divides its turns among other flows),
// the data of those already out still come, at what its data path gives: the packet model
// moves them there until the window has drained to what its requests' pace keeps out
// (survey seed 30192: a GPU's read beside a push write, VC round robin at rc0->sw0, 3.03 GB/s
// each; at 124.9 us a D2H write holds the read's MRds at sw0->rc0 to 0.72 GB/s, and its
// 128 KiB window kept the push write at 3.03 GB/s for 42 us more, where the fluid gave it
// 5.29 at once: the push 3.6 % early). Whether a link on its requests' way holds it (with a
// link of its data's too, a tie, its requests do not pass either: a read held at 0 GB/s by
// a strict higher VC's writes up its own link, tied with a saturated downlink, got its window
// out, in a trees trial (u007), and 1 KiB reads ended 47 us early).
bool Scheduler::requests_hold(const Running& f, const int* held, const int* end) const {
  if (!f.read()) return false;
  const auto from = f.spec.path.begin() + static_cast<std::ptrdiff_t>(f.requests_at);
  for (const int* e = held; e != end; ++e)
    if (std::any_of(from, f.spec.path.end(), [&](const Hop& h) { return h.edge == *e; })) return true;
  return false;
}

// The rates with each read that its requests hold, and that has more out than none,
// moving at what its data path gives (its request hops weighing nothing) until that has
// drained: the rest share what it leaves. Its backlog falls by the difference of the two
// rates (its requests still go at the first), and its drain's end recomputes the rates. A
// read held anywhere else has its window out again (a request's time: at once, here).
const ArbitratedRates& Scheduler::with_drains(const ArbitratedRates& r) const {
  draining_.clear();
  for (std::size_t k = 0; k < order_.size(); ++k) {
    Running& f = slots_[static_cast<std::size_t>(order_[k])];
    if (!f.read()) continue;
    rebase(f, now_);
    const int* held = r.held.data();
    if (!requests_hold(f, held + r.held_start[k], held + r.held_start[k + 1])) {
      window_out(f);
    } else if (f.backlog > std::max(1.0, f.volume * 1e-9)) {
      draining_.push_back(static_cast<int>(k));
    } else {
      f.drain = 0;
    }
  }
  if (draining_.empty()) return r;
  first_ = r;
  // Each draining read as two flows: its data, its request hops weighing nothing, and its
  // requests, its data hops weighing nothing, at no more than the first solve gave them.
  unrequested_.resize(2 * draining_.size());
  drain_specs_ = specs_;
  for (std::size_t i = 0; i < draining_.size(); ++i) {
    const std::size_t k = static_cast<std::size_t>(draining_[i]);
    const Running& f = slots_[static_cast<std::size_t>(order_[k])];
    FlowSpec& data = unrequested_[2 * i];
    FlowSpec& requests = unrequested_[2 * i + 1];
    data = requests = f.spec;
    for (std::size_t h = 0; h < f.spec.path.size(); ++h) (h < f.requests_at ? requests : data).path[h].weight = 0;
    drain_specs_[k] = &data;
    if (first_.rate[k] > 0) {
      requests.cap = std::min(requests.cap, first_.rate[k]);
      drain_specs_.push_back(&requests);
    }
  }
  const ArbitratedRates& second = solver_.solve(drain_specs_, &binds_);
  bool any = false;
  for (int k : draining_) {
    Running& f = slots_[static_cast<std::size_t>(order_[static_cast<std::size_t>(k)])];
    const double data = second.rate[static_cast<std::size_t>(k)], asked = first_.rate[static_cast<std::size_t>(k)];
    f.drain = second.converged && data > asked * (1 + 1e-9) && data < kUnbounded ? data - asked : 0.0;
    any = any || f.drain > 0;
  }
  return any ? second : first_;
}

// Read f's requests pass now: its window is out (as much of it as it has left to move).
void Scheduler::window_out(Running& f) const {
  f.backlog = std::min(f.window, std::max(0.0, f.left));
  f.drain = 0;
  f.opened_ns = now_;
}

// A draining read's backlog has run out: its requests hold it again.
void Scheduler::end_drain(int slot) {
  Running& f = slots_[static_cast<std::size_t>(slot)];
  drain_.erase(slot);
  rebase(f, now_);
  f.backlog = 0;
  f.drain = 0;
  other_change_ = true;
  for (const Hop& h : f.spec.path) pending_.push_back(h.edge);
}

// The rates of specs_ (in their order), flat max-min's given as the solver gives its own.
const ArbitratedRates& Scheduler::rates_of_order() const {
  if (!arbitration_.empty()) return solver_.solve(specs_, &binds_);
  flat_.rate = max_min_rates(capacity_, specs_, &binds_);
  flat_.held_start.assign(specs_.size() + 1, 0);
  flat_.held.clear();
  flat_.queued_window.assign(specs_.size(), 0.0);
  flat_.rounds = 0;
  flat_.converged = true;
  return flat_;
}

std::vector<int> Scheduler::take_unsettled() {
  settle();
  std::vector<int> ids;
  ids.swap(unsettled_ids_);
  return ids;
}

void Scheduler::set_tc_map(double now_ns, int edge, const std::array<uint8_t, 8>& tc_to_vc) {
  move_to(now_ns);
  if (arbitration_.empty()) return;  // flat max-min: no VCs
  arbitration_.at(static_cast<std::size_t>(edge)).tc_to_vc = tc_to_vc;
  memo_.clear();  // rates computed under the old map
  other_change_ = true;
}

void Scheduler::set_port_weights(double now_ns, int edge, const std::vector<double>& weights) {
  move_to(now_ns);
  if (arbitration_.empty()) throw std::logic_error("flow::Scheduler: no arbitration to reweight");
  arbitration_.at(static_cast<std::size_t>(edge)).port.weights = weights;
  memo_.clear();
  other_change_ = true;
}

void Scheduler::reshare(double now_ns) {
  move_to(now_ns);
  pending_all_ = true;
}

}  // namespace arbsim::flow
