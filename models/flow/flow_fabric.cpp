#include "models/flow/flow_fabric.h"
#include "models/common/sc_progress.h"
#include "models/common/model_log.h"
#include <cstdio>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include "models/pcie/tc_vc_map.h"

namespace arbsim {

namespace {

// The kernel runs at 1 ps resolution (checked in the constructor): a time's value is ps.
uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }
double now_ns() { return static_cast<double>(now_ps()) / 1000.0; }
sc_core::sc_time after_ps(uint64_t at_ps) { return sc_core::sc_time::from_value(at_ps > now_ps() ? at_ps - now_ps() : 0); }

// An overtaken tail's fluid (FlowFabric::overtaken_tail()): one byte, a marker that ends as
// soon as the tail gets a share at its hold.
constexpr double kTailBytes = 1.0;

}  // namespace

FlowFabric::FlowFabric(sc_core::sc_module_name name, flow::Network net, const flow::FabricParams& p,
                       std::vector<FlowEdgeVcs> vcs, std::vector<flow::EdgeArbitration> arbitration,
                       std::vector<int> node_of_endpoint, TransferTracker& tracker)
    : sc_core::sc_module(name),
      net_(std::move(net)),
      params_(p),
      sched_(net_.capacities(), arbitration),
      watch_(arbitration, [this](int edge, int tc) { return vcs_[static_cast<std::size_t>(edge)].tc_to_vc[static_cast<std::size_t>(tc)]; }),
      watching_(!arbitration.empty()),
      vcs_(std::move(vcs)),
      node_of_endpoint_(std::move(node_of_endpoint)),
      stats_(net_.edge_count()),
      tracker_(tracker) {
  if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS))
    SC_REPORT_FATAL("arbsim/flow", "the model needs the default 1 ps time resolution");
  watch_.set_tlp_time([this](int edge, flow::TlpKind kind, double payload) {
    const TlpType type = kind == flow::TlpKind::Request ? TlpType::MRd
                         : kind == flow::TlpKind::Write ? TlpType::MWr
                                                        : TlpType::CplD;
    return net_.edge(edge).serialize_ns(type, static_cast<uint32_t>(payload));
  });
  SC_METHOD(wake);
  sensitive << wake_event_;
  dont_initialize();
  SC_METHOD(deliver);
  sensitive << due_event_;
  dont_initialize();
  SC_METHOD(release_engines);
  sensitive << release_event_;
  dont_initialize();
  SC_METHOD(rates_changed);  // a delta cycle after starts and ends: one recomputation for all
  sensitive << settle_event_;
  dont_initialize();
  sched_.keep_recomputed();
}

// Every byte of the copy, its first TLP's too, moves as fluid and takes its share of every
// link: the engine is free for its next copy when the fluid has gone, as a DMA engine is
// once it has issued its last TLP, so back-to-back copies never carry more than the link.
// The first data TLP arrives after the plan's latency (timed as the packet model times it)
// and the rest follow at the flow's rate, so the last byte arrives at the fluid's end plus
// the latency less the first TLP's own time at that rate (wake()).
void FlowFabric::start(Copy c) {
  if (c.not_before_ns > now_ns()) {  // its tags are still out: it starts when the first is back
    const uint64_t at = static_cast<uint64_t>(std::llround(c.not_before_ns * 1000.0));
    auto waiting = std::make_shared<Copy>(std::move(c));
    waiting->not_before_ns = -1;  // due then (a time rounded to the picosecond may fall a hair short)
    releasing_.emplace(at, [this, waiting] { start(std::move(*waiting)); });
    release_event_.notify(after_ps(releasing_.begin()->first));
    return;
  }
  Moving m;
  m.plan = flow::plan_transfer(net_, params_, c.spec);
  flow::pool_overheads(net_, params_, c.spec, m.plan);
  const double bytes = static_cast<double>(c.spec.bytes), window = static_cast<double>(c.spec.tags) * params_.mrrs;
  // A read requests its first tag window (tags x MRRS) at once: only what follows waits for
  // tags, so its tag-window cap applies once that window has moved (Little's law over the
  // window holds from then; applied from the start, it counted the first window's round
  // trip twice: a 4 KiB read with 8 tags took 1,076 ns against the packet model's 696).
  // Behind the engine's earlier reads, only the tags they have given back are free: the rest
  // of the window moves at the tags' pace from the start (one engine with 16 tags reading
  // 8 KiB copies back to back: a fresh window each moved them 22 % faster than the packet
  // model, found by a user re-trial).
  const double burst = c.free_window < 0 ? window : std::min(window, c.free_window);
  // What follows its burst moves at its tags' pace: where its engine's timeline follows its
  // requests (FlowEngine::issue_requests()), the pace at which it ends alone when its last
  // request's data come there; else, for a read with its whole window, in its waves.
  double pace = m.plan.flow.cap;
  if (c.spec.read && c.last_data_ns > 0) pace = timeline_pace(c, m.plan, std::max(0.0, burst));
  else if (c.spec.read && burst >= window) pace = in_waves(c.spec, m.plan);
  flow::LaterCap later;
  if (c.spec.read) later = {burst * m.plan.volume / std::max(1.0, bytes), pace};
  m.tag_cap = c.spec.read ? m.plan.flow.cap : 0.0;
  m.plan.flow.cap = c.rate_GBps > 0 ? c.rate_GBps : flow::kUnbounded;
  if (c.spec.read && burst <= 0) {
    // All its tags are out behind earlier reads: it moves at their pace from its start (where
    // that pace cannot bind, Scheduler::add() leaves the cap out of its spec).
    m.plan.flow.cap = std::min(m.plan.flow.cap, pace);
    later = {};
  }
  m.plan.flow.tc = c.tc;
  // A read's engine is free for its next command once it has issued its last request
  // (models/pcie/dma_engine.h): no sooner than its tags let it (when no more than its tag
  // window is still to come) and, paced, than its pace does (bytes / pace after its start).
  flow::Release release;
  if (c.spec.read) {
    release.left = window;
    release.not_before_ns = now_ns() + (c.rate_GBps > 0 ? bytes / c.rate_GBps : 0.0);
  }
  m.copy = std::move(c);
  // Deferred behind a read whose requests passed since its engine had tags for it, its own
  // had gone out with them, and their data come as soon as its fluid starts: its window is
  // out (flow_scheduler.cpp, "A read's window draining").
  const bool ahead = c.spec.read && c.tags_free_ns >= 0 && c.opened_ns >= c.tags_free_ns;
  const double out = ahead ? std::min(window, bytes) * m.plan.volume / std::max(1.0, bytes) : 0.0;
  const int id = sched_.add(now_ns(), m.plan.volume, m.plan.flow, release, later, out, ahead ? c.opened_ns : -1.0);
  const Moving& moved = moving_.emplace(id, std::move(m)).first->second;
  flow_of_transfer_[moved.copy.transfer] = id;
  lockstep_.started(id, moved.copy.flow_id, moved.copy.spec.bytes, now_ps());
  if (watching_) {
    flow::WatchFlow w{&moved.plan.data_path, &moved.plan.request_path, moved.copy.tc, moved.copy.spec.read, {},
                      moved.copy.flow_id, static_cast<double>(moved.copy.spec.bytes),
                      moved.copy.spec.read ? static_cast<double>(moved.copy.spec.tags) * params_.mrrs : 0.0,
                      flow::kUnbounded, flow::kUnbounded, {}};
    // Its TLPs in flight: its data hops' window, and its requests' (the hops after the data,
    // from the first that starts: flow_network.h).
    const std::vector<flow::Hop>& hops = moved.plan.flow.path;
    if (!hops.empty()) w.data_tlps = hops.front().window;
    for (std::size_t k = 1; k < hops.size(); ++k)
      if (hops[k].starts) {
        w.request_tlps = hops[k].window;
        break;
      }
    for (const flow::CreditLoop& l : moved.plan.credit_loops) w.credit_loops.emplace_back(l.edge, l.request);
    for (const flow::CreditLoop& l : moved.plan.shared_credit_loops)
      w.shared_credit_loops.push_back({l.edge, l.request, l.round_trip_ns, l.window});
    for (const flow::CreditLoop& l : moved.plan.credit_pools) w.credit_pools.push_back(pool_of(moved, l));
    w.completer_delay_ns = completer_delay_ns(moved);
    w.peak_bytes_per_ns = peak_bytes_per_ns(moved);
    if (!moved.plan.data_path.empty()) w.completer_bytes_per_ns = net_.edge(moved.plan.data_path.front()).bytes_per_ns;
    w.data_tlp_bytes = flow::data_tlp_bytes(params_, moved.copy.spec.read);
    w.data_slots = slots_on(moved.plan.data_path, moved.copy.spec.read ? 0 : moved.copy.spec.first_slot);
    w.request_slots = slots_on(moved.plan.request_path, moved.copy.spec.first_slot);
    w.request_tlp_bytes = moved.copy.spec.read ? params_.mrrs : 0;
    const double burst = burst_requests(moved, w.request_tlps);
    if (burst > 0) {
      w.request_burst_bytes = burst * net_.edge(moved.plan.request_path.front()).overhead[static_cast<int>(TlpType::MRd)];
      for (int e : moved.plan.request_path)
        w.request_burst_ns = std::max(w.request_burst_ns, burst * net_.edge(e).serialize_ns(TlpType::MRd, 0));
    }
    w.least_ns = moved.plan.latency_ns + static_cast<double>(moved.copy.spec.bytes) / w.peak_bytes_per_ns;
    w.engine_queue = moved.copy.engine_queue;
    w.submitted_ns = moved.copy.submitted_ns;
    w.requests_out = moved.copy.requests_out;
    watch_.add(id, w);
  }
  settle_event_.notify(sc_core::SC_ZERO_TIME);
}

// The requester a copy arrives through at each egress of `path`: its engine's slot at the
// first (`first`), then the port it came in by (as flow::Hop::slot has it).
std::vector<int> FlowFabric::slots_on(const std::vector<int>& path, int first) const {
  std::vector<int> slots(path.size(), first);
  for (std::size_t k = 1; k < path.size(); ++k) slots[k] = net_.edge(path[k - 1]).to_port;
  return slots;
}

// A copy's share of a pool of credits (fidelity_watch.h, WatchFlow::CreditPool): its
// credits out per unit of rate, and the receiver's credits of the class (Edge::credit_limits()).
flow::WatchFlow::CreditPool FlowFabric::pool_of(const Moving& m, const flow::CreditLoop& l) const {
  const auto [headers, data] = net_.edge(l.edge).credit_limits(l.cls);
  flow::WatchFlow::CreditPool p{l.edge, l.request, l.round_trip_ns * l.tlps / m.plan.volume, 0.0, headers, data};
  p.data_ns_per_unit = p.credit_ns_per_unit * l.data_credits;
  p.round_trip_ns = l.round_trip_ns;
  return p;
}

// The watch hears of the holds the recomputation set, and looks; at trace level the log has
// each recomputed flow's rate (docs/observability.md, "Logs").
void FlowFabric::rates_changed() {
  if (watching_) watch_.at(now_ns());
  for (int id : sched_.take_recomputed()) {
    if (!sched_.running(id)) continue;
    if (const auto t = tails_.find(id); t != tails_.end()) {
      ARBSIM_LOG_TRACE(*this, "the overtaken tail of transfer " + std::to_string(t->second.due.transfer) + " at " +
                                  std::to_string(sched_.rate(id)) + " GB/s");
      continue;
    }
    if (Moving& m = moving_.at(id); !m.copy.spec.read) m.held = sched_.held(id);  // (overtaken_tail())
    if (watching_) {
      watch_.set_held(id, sched_.held(id));
      watch_.set_rate(id, sched_.rate(id));
      // A read held to its tag window's pace (by nothing else): its round trip is its lone one.
      const double cap = moving_.at(id).tag_cap;
      if (cap > 0) watch_.set_window_bound(id, sched_.held(id).empty() && sched_.rate(id) >= cap * (1 - 1e-9));
    }
    ARBSIM_LOG_TRACE(*this, rate_text(moving_.at(id), sched_.rate(id), sched_.held(id)));
  }
  if (watching_) watch_.look(now_ns());
  if (lockstep_.pending())  // (no std::functions made on the many computations with no start)
    lockstep_.settle(
        now_ps(), [this](int id) { return sched_.running(id) ? sched_.held(id) : std::vector<int>{}; },
        [this](int id) { return sched_.running(id) ? sched_.rate(id) : 0.0; });
  for (int id : sched_.take_unsettled())
    if (const auto it = moving_.find(id); it != moving_.end()) unsettled_flows_.insert(it->second.copy.flow_id);
  schedule();
}

// One flow's rate as the trace-level log gives it: its transfer, TC, kind, rate, the links
// that hold it there and its paths (link directions by number, as results.json lists them).
std::string FlowFabric::rate_text(const Moving& m, double rate, const std::vector<int>& held) const {
  const auto path = [](const std::vector<int>& p) {
    std::string s;
    for (int e : p) s += (s.empty() ? "" : ",") + std::to_string(e);
    return s;
  };
  char r[32];
  std::snprintf(r, sizeof r, "%.6f", rate);
  std::string t = "transfer " + std::to_string(m.copy.transfer) + " TC" + std::to_string(m.copy.tc) +
                  (m.copy.spec.read ? " read" : " write") + " at " + r + " GB/s, held by " +
                  (held.empty() ? std::string("its own limit") : "link " + path(held)) + "; data over " +
                  path(m.plan.data_path);
  if (!m.plan.request_path.empty()) t += ", requests over " + path(m.plan.request_path);
  return t;
}

// On the timeline start(), wake() and tail_ns() give a copy: its first TLP arrives a latency
// after its start and the rest follow at its rate, so what has arrived is what it has sent
// less what it sent within the last tail_ns(); once its fluid has gone, what its last rate
// still brings before it is due. The data on the way is taken at the current rate: within
// one tail (~0.2 us) of a change of rate that is off by at most the change times the tail;
// at the instant a copy ends, the next one of its engine has delivered nothing, as in the
// packet model, where its first TLP follows the last one of the copy before it. In bytes of
// the copy, where its volume is not (pool_overheads()).
uint64_t FlowFabric::delivered_bytes(uint64_t transfer) const {
  const auto positive = [](double b) { return b > 0 ? static_cast<uint64_t>(b) : uint64_t{0}; };
  const auto it = flow_of_transfer_.find(transfer);
  if (it != flow_of_transfer_.end() && sched_.running(it->second)) {
    const Moving& m = moving_.at(it->second);
    const double rate = sched_.rate(it->second);
    if (rate == flow::kUnbounded) return 0;  // all sent at once: nothing arrives before its latency
    const double on_way = rate > 0 ? rate * tail_ns(m.plan, rate) : 0.0;
    return positive(std::min(static_cast<double>(m.copy.spec.bytes), (sched_.sent_at(it->second, now_ns()) - on_way) * bytes_per_unit(m)));
  }
  if (const auto t = tail_of_transfer_.find(transfer); t != tail_of_transfer_.end()) {
    const Tail& tail = tails_.at(t->second);  // its queued tail still to arrive
    return tail.due.bytes - std::min(tail.due.bytes, tail.queued_bytes);
  }
  for (const auto& [at, d] : due_)  // its fluid has gone; few copies are in their tail at once
    if (d.transfer == transfer) {
      if (!(d.rate > 0) || d.rate == flow::kUnbounded) return 0;
      return positive(static_cast<double>(d.bytes) - d.rate * static_cast<double>(at - std::min(at, now_ps())) / 1000.0);
    }
  return 0;
}

// A copy's bytes per unit of its fluid's volume: 1, or a hair under where its overheads
// are pooled (flow_network.h, pool_overheads()); exactly 1 then, so nothing else moves.
double FlowFabric::bytes_per_unit(const Moving& m) {
  const double bytes = static_cast<double>(m.copy.spec.bytes);
  return m.plan.volume == bytes ? 1.0 : bytes / m.plan.volume;
}

// A wake-up at the next finish replaces any earlier one (a new flow can move it later).
void FlowFabric::schedule() {
  wake_event_.cancel();
  const double next = sched_.next_finish_ns();
  if (next == flow::kUnbounded) return;
  // Rounded up to the kernel's 1 ps, less a hair for the rounding of next itself.
  wake_event_.notify(after_ps(static_cast<uint64_t>(std::ceil(next * 1000.0 - 1e-6))));
}

void FlowFabric::wake() {
  guard_progress(wake_guard_, *this);
  const std::vector<int> done = sched_.advance(now_ns());
  const std::vector<double>& rates = sched_.finished_rates();  // (until the next advance())
  for (std::size_t k = 0; k < done.size(); ++k) {
    if (tails_.count(done[k])) {
      end_tail(done[k]);
      continue;
    }
    if (watching_) watch_.remove(done[k], now_ns());
    auto it = moving_.find(done[k]);
    Moving m = std::move(it->second);
    moving_.erase(it);
    flow_of_transfer_.erase(m.copy.transfer);
    account(m, 1.0);
    const flow::Scheduler::QueueHold& hold = sched_.finished_holds()[k];
    const double wave = m.copy.spec.read && hold.window > 0 && own_tags(m) ? last_wave_ns(m, rates[k], hold) : 0.0;
    const uint64_t at = now_ps() + static_cast<uint64_t>(std::llround((tail_ns(m.plan, rates[k]) + wave) * 1000.0));
    const Due d{m.copy.transfer, m.copy.spec.bytes, !m.copy.spec.read, rates[k] * bytes_per_unit(m)};
    const int last = moving_.empty() ? -1 : moving_.rbegin()->first;  // (ids grow: what sent() starts is after it)
    if (m.copy.sent && !m.released) m.copy.sent();
    ended_opened_ns_ = sched_.finished_opened_ns()[k];
    if (m.copy.tags_back) m.copy.tags_back();
    if (overtaken_tail(m, rates[k], at, d, last)) continue;
    due_.emplace(at, d);
    due_event_.notify(after_ps(at));
  }
  for (const int id : std::vector<int>(sched_.released())) {  // (a copy started in sent() adds flows)
    Moving& m = moving_.at(id);
    m.released = true;
    if (!m.copy.sent) continue;
    const double lag = release_lag_ns(m, sched_.rate(id));
    if (lag <= 0) {
      m.copy.sent();
      continue;
    }
    const uint64_t at = now_ps() + static_cast<uint64_t>(std::llround(lag * 1000.0));
    releasing_.emplace(at, m.copy.sent);
    release_event_.notify(after_ps(releasing_.begin()->first));
  }
  // A later cap applied (LaterCap) changes rates too: the watch and the log hear of them.
  if (!done.empty() || sched_.pending()) settle_event_.notify(sc_core::SC_ZERO_TIME);
  else schedule();
}

// A write held beyond its first link leaves its last TLPs queued before its hold when its
// fluid has gone: its engine has sent them and takes its next copy, as the packet model's
// DMA engine does once its last TLP is out (models/pcie/dma_engine.h). Where that next copy
// goes first where they queue, it overtakes them, and the write ends only once they can leave
// (fidelity_watch.h, "an overtaken tail"; survey seed 30119: a GPU's D2H write's last TLPs,
// queued behind its own peer write stopped at a root port, ended with it, 3,974 us in the
// packet model against the fluid's 300). The fluid's end already times those TLPs leaving
// at the write's rate; what it leaves out is the wait. So a marker flow of one byte, of the
// write's TC, starts from the hold on, arbitrated with the rest, and the copy is due when it
// has gone (when the hold first gives the tail a share), its fluid's tail later, never
// before its fluid's end made it due. Not the queued bytes' drain at the marker's share
// then: a copy behind them in their queue shares that with the marker in the fluid, where
// they leave first in the packet model (a hand test's tail came out 40 us late). Nor the
// queued bytes moved themselves, as the first form of this did: that moved them twice, taking
// the hold's capacity again from the flows beside them (20 us of a 1.6 ms run in a hand
// test), and their drain, timed from the marker's end, fell due in the past where they
// drained slower than the write's rate. Elsewhere the end stands: the same VC all along, or
// infinite credits (where the watch names what queues). The copies its engine started are
// those in moving_ after `last_before`.
bool FlowFabric::overtaken_tail(const Moving& m, double rate, uint64_t due_ps, const Due& d, int last_before) {
  const std::vector<flow::EdgeArbitration>& arbitration = sched_.arbitration();
  if (m.copy.spec.read || arbitration.empty() || !(rate > 0) || rate == flow::kUnbounded) return false;
  const int h = queued_at_hold(m);
  if (h < 1) return false;
  const auto overtakes = [&](const auto& started) { return goes_first(m, h, started.second); };
  if (std::none_of(moving_.upper_bound(last_before), moving_.end(), overtakes)) return false;
  const flow::Hop& before = m.plan.flow.path[static_cast<std::size_t>(h - 1)];
  const double credits = arbitration[static_cast<std::size_t>(before.edge)].buffered[static_cast<std::size_t>(before.cls)];
  if (std::isinf(credits)) return false;
  const double tlps = std::min({credits, before.window, static_cast<double>(flow::data_tlps(params_, false, m.copy.spec.bytes))});
  const double queued = std::min(static_cast<double>(m.copy.spec.bytes), tlps * flow::data_tlp_bytes(params_, false));
  // From the link before the hold, which it no longer takes (weight 0): an egress divides
  // among what one ingress port brings by the hop before (the higher ingress VC first).
  flow::FlowSpec spec = m.plan.flow;
  spec.path.erase(spec.path.begin(), spec.path.begin() + (h - 1));
  spec.path.front().starts = true;
  spec.path.front().weight = 0;
  const int id = sched_.add(now_ns(), kTailBytes / bytes_per_unit(m), spec);
  tails_[id] = Tail{d, due_ps, due_ps - now_ps(), static_cast<uint64_t>(queued)};
  tail_of_transfer_[d.transfer] = id;
  return true;
}

// Whether copy `next` overtakes write m's tail, queued before the hold at m's data hop h. It
// meets the tail where it queues: its way is m's up to the hold, the hold too (a next copy
// that leaves before it passes nothing: trees trial u995, two peer writes of one GPU to two
// GPUs, whose tail the fluid had held 470 ns against the packet model's none). And it goes
// first there: it has a higher VC under strict VC priority on a link before the hold, or, in
// one VC at a switch's egress up to the hold, a higher ingress VC. (Under round robin or
// weights it takes a share: the tail leaves at about the write's own rate, which the fluid's
// end times. A higher VC at the hold alone: survey seed 30139 and held-out 30235, where the
// packet model's tail left at once, moved 3 transfers out. Both left as they were.)
bool FlowFabric::goes_first(const Moving& m, int h, const Moving& next) const {
  const std::vector<int>& path = m.plan.data_path;
  const std::vector<int>& p = next.plan.data_path;
  const std::size_t hold = static_cast<std::size_t>(h);
  if (p.size() <= hold || !std::equal(path.begin(), path.begin() + h + 1, p.begin())) return false;
  const auto vc = [&](std::size_t k, uint8_t tc) { return vcs_[static_cast<std::size_t>(path[k])].tc_to_vc[tc]; };
  for (std::size_t k = 0; k <= hold; ++k) {
    const int mine = vc(k, m.copy.tc), its = vc(k, next.copy.tc);
    const bool strict = sched_.arbitration()[static_cast<std::size_t>(path[k])].vc.kind == flow::ShareKind::Strict;
    if (k < hold && strict && its > mine) return true;
    if (k > 0 && its == mine && vc(k - 1, next.copy.tc) > vc(k - 1, m.copy.tc)) return true;
  }
  return false;
}

// Where write m's TLPs queue when its fluid ends: the index in its data path of the first
// link beyond its first that holds it, where the link before does not (a tie there: it
// arrives no faster than it leaves, and nothing queues); -1: nowhere.
int FlowFabric::queued_at_hold(const Moving& m) const {
  const std::vector<int>& path = m.plan.data_path;
  if (path.size() < 2 || m.plan.flow.path.size() < path.size()) return -1;
  const auto held = [&m](int e) { return std::find(m.held.begin(), m.held.end(), e) != m.held.end(); };
  for (std::size_t h = 1; h < path.size(); ++h)
    if (held(path[h])) {
      const bool aligned = m.plan.flow.path[h].edge == path[h] && m.plan.flow.path[h - 1].edge == path[h - 1];
      return aligned && !held(path[h - 1]) ? static_cast<int>(h) : -1;
    }
  return -1;
}

// An overtaken tail's marker has gone: its copy is due (overtaken_tail()).
void FlowFabric::end_tail(int id) {
  const auto it = tails_.find(id);
  const Tail t = it->second;
  tails_.erase(it);
  tail_of_transfer_.erase(t.due.transfer);
  const uint64_t due = std::max(t.due_ps, now_ps() + t.latency_ps);
  due_.emplace(due, t.due);
  due_event_.notify(after_ps(due));
}

// A read held by its tags issues its last request when the data of the request a tag window
// before it has arrived (models/pcie/dma_engine.h): the fluid's release point (no more than
// the window left to move) plus the time that data takes to arrive, the fluid's tail. A read
// that fits its tags issues everything at once, and a paced read's pace is its release: no
// lag. (Released at the fluid's point, a read queued behind a read let the write behind it
// start 540 ns early: one engine alternating 32 KiB reads and writes ran 5.2 % fast.)
double FlowFabric::release_lag_ns(const Moving& m, double rate) const {
  const flow::TransferSpec& s = m.copy.spec;
  if (!s.read || m.copy.rate_GBps > 0) return 0.0;
  if (static_cast<double>(s.bytes) <= static_cast<double>(s.tags) * params_.mrrs) return 0.0;
  return tail_ns(m.plan, rate);
}

// A read's requests reach its completer one per MRd time of the slowest link on their way,
// each asking for up to MRRS bytes, which the completer sends out over its data path's first
// link. Slower than they come, its tag window queues there: while the window's requests
// arrive, the completer serves only arrive / serve of their bytes, and the rest waits, ahead
// of any other read it serves, for that many bytes' time on the link (models/flow/
// fidelity_watch.h). 0: no queue.
double FlowFabric::completer_delay_ns(const Moving& m) const {
  const flow::TransferPlan& plan = m.plan;
  const flow::TransferSpec& s = m.copy.spec;
  if (!s.read || plan.request_path.empty() || plan.data_path.empty()) return 0.0;
  double arrive_ns = 0;
  for (int e : plan.request_path) arrive_ns = std::max(arrive_ns, net_.edge(e).serialize_ns(TlpType::MRd, 0));
  const double completer = net_.edge(plan.data_path.front()).bytes_per_ns;
  const double request_bytes = std::min<double>(params_.mrrs, static_cast<double>(s.bytes));
  const double serve_ns = request_bytes / completer;
  if (serve_ns <= arrive_ns) return 0.0;
  const double window = std::min(static_cast<double>(s.tags) * params_.mrrs, static_cast<double>(s.bytes));
  return window * (1 - arrive_ns / serve_ns) / completer;
}

// A read's first window of MRds leaves its requester at once: as many as its tags, or its
// requests, let it (fidelity_watch.h: their wire bytes and how long its slowest link takes).
double FlowFabric::burst_requests(const Moving& m, double window_tlps) const {
  const flow::TransferSpec& s = m.copy.spec;
  if (!s.read || m.plan.request_path.empty()) return 0.0;
  return std::min(window_tlps, static_cast<double>(flow::request_tlps(params_, true, s.bytes)));
}

double FlowFabric::peak_bytes_per_ns(const Moving& m) const {
  double peak = m.copy.rate_GBps > 0 ? m.copy.rate_GBps : flow::kUnbounded;  // a paced copy: its pace
  for (int e : m.plan.data_path) peak = std::min(peak, net_.edge(e).bytes_per_ns);
  return peak;
}

void FlowFabric::release_engines() {
  while (!releasing_.empty() && releasing_.begin()->first <= now_ps()) {
    guard_progress(release_guard_, *this);  // a call that re-arms itself at this instant
    const std::function<void()> sent = std::move(releasing_.begin()->second);
    releasing_.erase(releasing_.begin());
    sent();  // may start copies, and add releases
  }
  if (!releasing_.empty()) release_event_.notify(after_ps(releasing_.begin()->first));
}

void FlowFabric::deliver() {
  guard_progress(deliver_guard_, *this);
  while (!due_.empty() && due_.begin()->first <= now_ps()) {
    const Due d = due_.begin()->second;
    due_.erase(due_.begin());
    tracker_.deliver(d.transfer, 0, d.bytes, d.posted);  // completes the copy: its callbacks run
  }
  if (!due_.empty()) due_event_.notify(after_ps(due_.begin()->first));
}

// `fraction` of the copy's TLPs, as the packet model would send them: data TLPs on the
// data path, a read's MRds on the request path (docs/link-model.md, per-TLP overhead).
void FlowFabric::account(const Moving& m, double fraction) {
  const flow::TransferSpec& s = m.copy.spec;
  const double bytes = static_cast<double>(s.bytes) * fraction;
  const double data = static_cast<double>(flow::data_tlps(params_, s.read, s.bytes)) * fraction;
  const double requests = static_cast<double>(flow::request_tlps(params_, s.read, s.bytes)) * fraction;
  for (int e : m.plan.data_path)
    add_bytes(e, m.copy.tc, bytes, bytes + data * net_.edge(e).overhead[static_cast<int>(m.plan.data_type)]);
  for (int e : m.plan.request_path)
    add_bytes(e, m.copy.tc, 0, requests * net_.edge(e).overhead[static_cast<int>(TlpType::MRd)]);
}

void FlowFabric::add_bytes(int edge, uint8_t tc, double payload, double wire) {
  EgressStats& s = stats_[edge];
  const uint64_t p = static_cast<uint64_t>(std::llround(payload)), w = static_cast<uint64_t>(std::llround(wire));
  s.payload_bytes += p;
  s.wire_bytes += w;
  s.vc_bytes[vcs_[edge].tc_to_vc[tc]] += p;
}

// The pace, after `burst` bytes at its links' rate from now, at which a read alone delivers
// its last byte at c.last_data_ns: unbounded where it cannot by then, or where that is within
// 0.1 % of its links' rate (the timeline's own rounding: kept, every read of a stream had a
// spec of its own, and none took another's place: flow_scheduler.h, "Replacements").
double FlowFabric::timeline_pace(const Copy& c, const flow::TransferPlan& plan, double burst) const {
  const double unit = plan.volume / std::max(1.0, static_cast<double>(c.spec.bytes));
  const double rate = sched_.links_most(plan.flow), first = std::min(burst * unit, plan.volume);
  const double span = c.last_data_ns - tail_ns(plan, rate) - now_ns() - first / rate;
  const double pace = span > 0 ? (plan.volume - first) / span : flow::kUnbounded;
  return pace >= rate * (1 - 1e-3) ? flow::kUnbounded : pace;
}

// in_waves() and last_wave_ns() split a read's requests the same way.
FlowFabric::Waves FlowFabric::waves_of(double to_go, double wave, double requests, double bytes, double mrrs) {
  const double n = std::ceil(to_go / wave), last = to_go - wave * (n - 1);  // requests in the last wave, 1..wave
  return {n, bytes - (requests - last) * mrrs};
}

// A read of more requests than its engine's tags sends a tag window of them at once, and each
// tag's next request when the data of its last one are in: the requests after the first
// window come back in waves, one a round trip, and the last wave takes a whole round trip
// however few requests it holds, where the tag-window cap (Little's law, flow_network.cpp)
// spreads that round trip over the read. Here the pace, after the first window, at which the
// read's last byte comes when the packet model's last wave's does: its waves' round trips,
// less the time the last wave's bytes take under a whole window's. (At the cap, a lone 4,500 B
// read on 8 tags, 9 requests, ended 32.6 % early; 13,447 B, 27 requests, 11.2 %: found by a
// user trial.) Reads of kPooledTlps requests or more keep the cap, within a wave of it, so
// that their specs stay shared (flow_network.h). Where the engine's timeline follows the
// read (FlowEngine::issue_requests()), timeline_pace() gives this and more.
double FlowFabric::in_waves(const flow::TransferSpec& s, const flow::TransferPlan& plan) const {
  const double cap = plan.flow.cap;
  const uint64_t mrrs = static_cast<uint64_t>(params_.mrrs), tags = static_cast<uint64_t>(std::max(1, s.tags));
  const uint64_t requests = flow::request_tlps(params_, true, s.bytes);
  if (requests <= tags || requests >= flow::kPooledTlps || !(cap > 0) || cap >= flow::kUnbounded) return cap;
  const double bytes = static_cast<double>(s.bytes), unit = plan.volume / bytes;  // fluid units per byte
  const double rate = sched_.links_most(plan.flow) / unit;                        // bytes per ns, alone
  const double window = static_cast<double>(tags * mrrs);
  // The cap's round trip: it is tags requests of the copy's mean size per round trip.
  const double trip = static_cast<double>(tags) * bytes / static_cast<double>(requests) / (cap / unit);
  const Waves w = waves_of(static_cast<double>(requests), static_cast<double>(tags), static_cast<double>(requests),
                           bytes, static_cast<double>(mrrs));
  const double time = (w.count - 1) * trip + (w.last_bytes - window) / rate;  // the waves after the first window
  return time > 0 ? (bytes - window) / time * unit : cap;
}

// A read that a queue backing up holds (arbitrated_rates.h, queued_window) gets what it has
// waiting in that queue: its round trip there is the queue's wait, which its own requests do
// not lengthen. Its requests pass the queue in waves of what it holds of it (its window, or
// the queue's room for their class), one a wait R = wave / rate: the first wave's data come R
// after the hold's start, each wave's a wait after the one before, at its links' pace alone,
// and the last takes a whole wait however few requests it holds. So its last byte comes n R +
// (the last wave's bytes) / (its rate alone) after the hold's start, n its waves; the fluid
// has it at its bytes left then / rate + its tail, spreading the last wave at its rate. Held
// from part way through, the requests it has out then are taken to wait in the queue too
// (taken to have passed it, a read held from 354 us on did not move, where with them it came
// 5.9 us later: random seed 30760 t4, 3.9 % early before, 3.1 % after). A read with no more
// than a wave still to pass is left as it is (a read that a short one beside it held for an
// instant at its end). Never sooner than the fluid's: where the wave is the read's whole
// window, its data's latency is not in R, which the fluid's tail has. (Survey seed 30167: a
// 1.4 MB read whose MRds wait in a FIFO behind a peer write, 128 of its 256 tags there, the
// FIFO's non-posted credits: waves of 64 KiB every 19.85 us; for each half wave more, the
// packet model's end stepped by 17.4 and 2.4 us, the fluid's by 9.9; and at whole waves the
// fluid's came 6.5 us early.) Returns the time after the fluid's tail.
double FlowFabric::last_wave_ns(const Moving& m, double rate, const flow::Scheduler::QueueHold& hold) const {
  const flow::TransferSpec& s = m.copy.spec;
  const double per_unit = bytes_per_unit(m), r = rate * per_unit, alone = sched_.links_most(m.plan.flow) * per_unit;
  const double mrrs = params_.mrrs, bytes = static_cast<double>(s.bytes);
  const double requests = static_cast<double>(flow::request_tlps(params_, true, s.bytes));
  // Its wave in requests: what the queue holds of its window, in requests.
  const double wave = std::floor(std::min(static_cast<double>(std::max(1, s.tags)), hold.window * per_unit / mrrs));
  if (wave < 1 || !(r > 0) || r >= alone) return 0.0;
  const double left = hold.left * per_unit;
  const double unsent = requests - std::ceil((bytes - left) / mrrs - 1e-9);  // its requests still to pass
  if (unsent <= wave) return 0.0;
  const Waves w = waves_of(unsent, wave, requests, bytes, mrrs);
  return std::max(0.0, w.count * wave * mrrs / r + w.last_bytes / alone - left / r - tail_ns(m.plan, rate));
}

// Whether read m had its engine's tags to itself: all free at its start, and no other read of
// its engine open or queued at its end. Only then do its waves start with it and its last go alone:
// a read's next on its engine (a stream's) fills the last wave's tags, its waves running on
// across the two (a stream of 256 KiB reads 10 deep behind a peer write in a FIFO: with the
// last wave timed alone, its median latency went from 0.0 to 1.8 % early).
bool FlowFabric::own_tags(const Moving& m) const {
  const Copy& c = m.copy;
  if (c.free_window >= 0 && c.free_window < static_cast<double>(c.spec.tags) * params_.mrrs) return false;
  return !c.sole_read || c.sole_read();
}

FlowFabric::RequestTrip FlowFabric::request_trip(const flow::TransferSpec& read, uint64_t bytes) const {
  flow::TransferSpec one = read;
  one.bytes = std::max<uint64_t>(1, std::min<uint64_t>(bytes, static_cast<uint64_t>(params_.mrrs)));
  const auto key = std::make_tuple(one.requester, one.remote, one.bytes);
  const auto it = round_trips_.find(key);
  if (it != round_trips_.end()) return it->second;
  flow::TransferPlan plan = flow::plan_transfer(net_, params_, one);
  flow::pool_overheads(net_, params_, one, plan);
  const double rate = sched_.links_most(plan.flow) * static_cast<double>(one.bytes) / plan.volume;
  const bool bounded = rate > 0 && rate < flow::kUnbounded;
  const RequestTrip trip{(bounded ? static_cast<double>(one.bytes) / rate : 0.0) + tail_ns(plan, rate), rate};
  return round_trips_.emplace(key, trip).first->second;
}

// From the fluid's end to the last byte's arrival: the first TLP's latency less the time
// that TLP's bytes took at the rate the flow last moved at (they are part of the fluid). A
// lone copy then ends at latency + (bytes - first TLP) / rate, the packet model's timeline
// (within one TLP's overhead time when its last TLP is short: docs/architecture.md).
double FlowFabric::tail_ns(const flow::TransferPlan& plan, double rate) {
  if (!(rate > 0) || rate == flow::kUnbounded) return plan.latency_ns;
  return std::max(0.0, plan.latency_ns - static_cast<double>(plan.first_bytes) / rate);
}

// The flows move on at their old rates up to now, then share by the new map (the packet
// model drains a TC's old VC first: egress_port.h; the fluid moves at once).
void FlowFabric::set_tc_map(const std::array<uint8_t, kNumTcs>& vc8) {
  // The packet model's ports log each remap (EgressPort::set_tc_map); the fluid has no ports,
  // so it logs the map once, for 8 VCs, as the policy gives it.
  ARBSIM_LOG_DEBUG(*this, [&] {
    std::string m = "TC/VC map";
    for (int tc = 0; tc < kNumTcs; ++tc) m += " " + std::to_string(vc8[tc]);
    return m + " (8 VCs; a link with n uses vc * n / 8)";
  }());
  std::vector<std::array<uint8_t, kNumTcs>> before;
  if (watching_)
    for (const FlowEdgeVcs& v : vcs_) before.push_back(v.tc_to_vc);
  for (std::size_t e = 0; e < vcs_.size(); ++e) {
    vcs_[e].tc_to_vc = scale_map(vc8, vcs_[e].vcs);
    sched_.set_tc_map(now_ns(), static_cast<int>(e), vcs_[e].tc_to_vc);
  }
  sched_.reshare(now_ns());
  // Before the rates change: the queues the old map built are what the packet model drains.
  if (watching_)
    watch_.remap(now_ns(), [&](int e, int tc) {
      const auto u = static_cast<std::size_t>(e);
      return before[u][static_cast<std::size_t>(tc)] != vcs_[u].tc_to_vc[static_cast<std::size_t>(tc)];
    });
  rates_changed();
}

void FlowFabric::set_port_weights(int edge, const std::vector<int>& weights) {
  sched_.set_port_weights(now_ns(), edge, std::vector<double>(weights.begin(), weights.end()));
  sched_.reshare(now_ns());
  rates_changed();
}

// Copies still moving count the share of their TLPs sent so far on the links; their
// transfers stay open and deliver nothing (docs/results.md).
void FlowFabric::finish() {
  sched_.advance(now_ns());  // a flow that ran out just now is no longer running: all sent
  if (watching_) watch_.finish(now_ns());
  account_moving(now_ns());
  // Busy time inside the run: the fluid's (max-min never fills an edge beyond its capacity;
  // the bound only absorbs rounding).
  const double run_ps = (now_ns() - measure_from_ns_) * 1000.0;
  for (int e = 0; e < net_.edge_count(); ++e) stats_[e].busy_ps = sched_.busy_ns(e) * 1000.0;
  if (!warmup_.empty()) take_away_warmup();
  for (EgressStats& s : stats_) s.busy_ps = std::min(run_ps, s.busy_ps);
}

// Each moving copy's share sent by `at` (finish(): now, the fluid moved on to it).
void FlowFabric::account_moving(double at) {
  for (const auto& [id, m] : moving_) {
    const double volume = m.plan.volume;
    const double sent = sched_.running(id) ? sched_.sent_at(id, at) : volume;
    if (volume > 0) account(m, std::min(1.0, sent / volume));
  }
}

// The link statistics as finish() would give them if the run ended now, kept to be taken
// away at the end. Read off the fluid without moving it on: the run goes on exactly as
// without a warm-up (a flow due to end now is retired by wake(), as it would be).
void FlowFabric::restart_stats() {
  const std::vector<EgressStats> before = stats_;
  account_moving(now_ns());
  const std::vector<double> busy = sched_.busy_ns_at(now_ns());
  for (int e = 0; e < net_.edge_count(); ++e) stats_[e].busy_ps = busy[e] * 1000.0;
  warmup_ = stats_;
  stats_ = before;
  measure_from_ns_ = now_ns();
}

// Every edge's reading at once, kept for the other edges asked at the same time.
double FlowFabric::busy_ps_now(int e) const {
  if (busy_read_at_ != now_ps() || busy_read_.empty()) {
    busy_read_ = sched_.busy_ns_at(now_ns());
    busy_read_at_ = now_ps();
  }
  const double busy = busy_read_[static_cast<std::size_t>(e)] * 1000.0;
  return warmup_.empty() ? busy : std::max(0.0, busy - warmup_[static_cast<std::size_t>(e)].busy_ps);
}

void FlowFabric::take_away_warmup() {
  for (std::size_t e = 0; e < stats_.size(); ++e) {
    EgressStats& s = stats_[e];
    const EgressStats& w = warmup_[e];
    s.payload_bytes -= std::min(s.payload_bytes, w.payload_bytes);
    s.wire_bytes -= std::min(s.wire_bytes, w.wire_bytes);
    for (int v = 0; v < kLinkStatsVcs; ++v) s.vc_bytes[v] -= std::min(s.vc_bytes[v], w.vc_bytes[v]);
    s.busy_ps = std::max(0.0, s.busy_ps - w.busy_ps);
  }
}

FlowEngine::FlowEngine(FlowFabric& fabric, int node, int slot, int tags)
    : fabric_(fabric), node_(node), slot_(slot), tags_(tags), free_tags_(std::max(0, tags)),
      tag_back_ns_(static_cast<std::size_t>(std::max(0, tags))) {}

void FlowEngine::submit(CopyCommand c) {
  const double now = now_ns();
  const auto near = [&](const std::pair<double, uint32_t>& other) {
    if (other.second == c.flow_id || now - other.first >= kNearNs) return;
    if (near_.first_ns < 0) near_.first_ns = now;
    ++near_.times;
    near_.flows.insert({other.second, c.flow_id});
  };
  for (const auto& p : pending_at_) near(p);
  if (busy_) near(issuing_at_);
  owners_.insert(c.flow_id);
  pending_.push_back(std::move(c));
  pending_at_.emplace_back(now, pending_.back().flow_id);
  start_next();
}

int FlowEngine::requests(uint64_t bytes) const {
  const uint64_t mrrs = static_cast<uint64_t>(fabric_.params().mrrs);
  return static_cast<int>(std::min<uint64_t>((bytes + mrrs - 1) / mrrs, static_cast<uint64_t>(tags_) + 1));
}

// Opens the transfer and reports the start as DmaEngine::start_next does.
FlowFabric::Copy FlowEngine::open(CopyCommand c, double submitted_at) {
  TransferTracker& t = fabric_.tracker();
  FlowFabric::Copy copy;
  const bool read = c.kind == CopyKind::Read;
  // A read's tags are the engine's: those of its earlier reads whose data are still to
  // arrive are not free for it (they come back as the data arrive: counted until the copy is
  // delivered). What is free it requests at once; the rest waits for tags.
  // Its requests count against the tags a read behind it may use (start_next()) until its
  // fluid has gone, where the tag-window pace of what follows carries their round trip
  // (FlowFabric::start()); a read of one request, whose fluid is a TLP's time, until its data
  // has arrived: its tag is out for its whole round trip. (Counted until the fluid had gone,
  // 212 B reads 8 deep on an engine of 4 tags moved 24.0 Gb/s against the packet model's
  // 12.1, unnamed; found by a user trial.)
  const int uses = read ? std::min(requests(c.bytes), tags_) : 0, asked = read ? requests(c.bytes) : 0;
  const int until_data = asked == 1 ? 1 : 0;
  const int free_now = std::max(0, tags_ - tags_in_flight_);
  if (read) copy.free_window = free_now * static_cast<double>(fabric_.params().mrrs);
  if (read && free_now >= uses) copy.tags_free_ns = now_ns();
  tags_in_flight_ += uses;
  outstanding_requests_ += asked;
  std::function<void()> done = [this, uses, until_data, on_done = std::move(c.on_done)] {
    tags_in_flight_ -= uses;
    outstanding_requests_ -= until_data;
    if (tags_in_flight_ <= tags_) tags_back_for_deferred();
    if (on_done) on_done();
    if (until_data > 0) start_next();  // a read waiting for its tag may go
  };
  copy.transfer = t.open(c.bytes, std::move(done));
  copy.flow_id = c.flow_id;
  t.injected(c.bytes);
  if (c.on_start) c.on_start(copy.transfer);
  copy.spec.read = read;
  copy.spec.requester = node_;
  copy.spec.remote = fabric_.node_of_endpoint(c.remote);
  copy.spec.bytes = c.bytes;
  copy.spec.tags = tags_;
  copy.spec.first_slot = slot_;
  copy.tc = c.tc;
  copy.rate_GBps = c.rate_GBps;
  if (copy.spec.read) {
    const int completer = copy.spec.remote, at_end = asked - until_data;  // what `done` does not give back
    ++reading_[completer];
    copy.tags_back = [this, completer, at_end] { read_done(completer, at_end); };
    const double now = now_ns();
    // Its requests go out, at the soonest, as the engine's tags come back (the packet model's
    // engine waits for a tag: models/pcie/dma_engine.h). Where even its first cannot have gone
    // out by now, its data follow a request's round trip after that, as a fresh read's. (Paced
    // at its tags' pace from when the reads before it had gone, 2 KiB reads 15 deep on 8 tags
    // ended every second one 152 ns early: reads 3-5 at 1,126 / 1,433 / 1,706 ns against
    // 1,278 / 1,433 / 1,858 in the packet model; found by a user trial.)
    const Issued issued = issue_requests(copy.spec, submitted_at, free_now);
    if (issued.first_out > now) copy.not_before_ns = issued.first_out, copy.free_window = -1;
    copy.last_data_ns = issued.last_data;
    if (now != opened_ns_) opened_ns_ = now, opened_now_ = 0;
    opened_now_ += asked;
    copy.engine_queue = [this] { return piled_requests(); };
    copy.requests_out = [this] { return requests_out(); };
    copy.sole_read = [this] { return sole_read(); };
  } else {
    copy.engine_queue = [this] { return queued_write_tlps(); };
    copy.submitted_ns = [this](double k) { return submitted_ns(k); };
  }
  return copy;
}

// Issues a read's requests on the engine's timeline of soonest times, alone on its links:
// each takes the tag that is back first and goes out no sooner than the read was submitted
// and the request before it went out; its data are in a lone request's round trip later, and
// no sooner than the data before them and their own time on the slowest link after them; its
// tag is back then (no other traffic counted: times no later than the packet model's). Those
// times only grow, so the tags come back in the order they went out: a queue. A read of
// kPooledTlps requests or more has only its first request placed (its spec is shared,
// flow_network.h): the engine's tags are not followed from then on, and a read's first
// request goes out no sooner than the one before it and its submission.
FlowEngine::Issued FlowEngine::issue_requests(const flow::TransferSpec& read, double submitted_at, int free_now) {
  const uint64_t mrrs = static_cast<uint64_t>(fabric_.params().mrrs);
  const uint64_t asked = std::max<uint64_t>(1, flow::request_tlps(fabric_.params(), true, read.bytes));
  const auto next_tag = [this] {
    if (free_tags_ > 0) return --free_tags_, kLongAgo;
    const double back = tag_back_ns_[tag_head_];
    tag_head_ = tag_head_ + 1 == tag_back_ns_.size() ? 0 : tag_head_ + 1;
    --tags_back_;
    return back;
  };
  const auto unfollowed = [&] {  // its first request no sooner than the one before and its submission
    last_request_ns_ = std::max(last_request_ns_, submitted_at);
    return Issued{last_request_ns_, -1};
  };
  if (!following_ || tag_back_ns_.empty()) return unfollowed();
  if (asked >= flow::kPooledTlps) {
    following_ = false;
    last_request_ns_ = std::max({last_request_ns_, submitted_at, next_tag()});
    return {last_request_ns_, -1};
  }
  const uint64_t last_bytes = read.bytes - (asked - 1) * mrrs;
  const FlowFabric::RequestTrip whole = fabric_.request_trip(read, mrrs), last = fabric_.request_trip(read, last_bytes);
  if (timeline_behind(whole.ns, free_now)) {
    following_ = false;
    return unfollowed();
  }
  const double whole_ns = static_cast<double>(mrrs) / whole.bytes_per_ns;  // a whole request's data on the link
  const std::size_t slots = tag_back_ns_.size();
  last_request_ns_ = std::max(last_request_ns_, submitted_at);
  Issued out;
  for (uint64_t k = 0; k < asked; ++k) {
    last_request_ns_ = std::max(last_request_ns_, next_tag());
    if (k == 0) out.first_out = last_request_ns_;
    if (k + 1 < asked)
      last_data_ns_ = std::max(last_request_ns_ + whole.ns, last_data_ns_ + whole_ns);
    else
      last_data_ns_ = std::max(last_request_ns_ + last.ns, last_data_ns_ + static_cast<double>(last_bytes) / last.bytes_per_ns);
    std::size_t slot = tag_head_ + tags_back_++;
    tag_back_ns_[slot >= slots ? slot - slots : slot] = last_data_ns_;
  }
  out.last_data = last_data_ns_;
  return out;
}

// Whether the timeline has had back, a round trip ago or more, tags that the fluid still
// holds (its reads' data have not all come): their requests were held up (below a strict
// higher VC, behind a saturated link), which the timeline, alone on the links, does not see,
// so it no longer says when requests go out. The engine stops following it, as after a big
// read, and what follows moves at its tag window's pace (FlowFabric::start()). (Followed on,
// 2 KiB reads 15 deep on 8 tags, held 30 us below a strict higher VC's writes, each took a
// fresh window at the link's 6.74 GB/s when they were let go, where the packet model's waves
// of 8 requests move 4.65 GB/s: their last ended 4.4 % early, unnamed; found by a user
// trial.)
bool FlowEngine::timeline_behind(double trip_ns, int free_now) const {
  const double by = now_ns() - trip_ns;
  const std::size_t slots = tag_back_ns_.size();
  int back = free_tags_;
  for (std::size_t i = 0; i < tags_back_; ++i) {
    const std::size_t slot = tag_head_ + i;
    back += tag_back_ns_[slot >= slots ? slot - slots : slot] <= by;
  }
  return back > free_now;
}

// The requests this engine opened at this instant and those of the reads queued behind them
// (up to its first write), up to its tags: the packet model's engine issues them at once, one
// read after another as each has issued its last request (models/pcie/dma_engine.h), a pile
// at its node's egress; this one opens the queued ones as the first one's data come.
double FlowEngine::piled_requests() const {
  const double now = now_ns();
  if (now != opened_ns_) return 0;
  int piled = opened_now_;
  for (const CopyCommand& c : pending_) {
    if (c.kind != CopyKind::Read || piled >= tags_) break;
    piled += requests(c.bytes);
  }
  return std::min(piled, tags_);
}

// When the last request of the reads this engine holds went out on its timeline of soonest
// times (issue_requests()), where no read is queued behind to ask for more (not known, once it
// stopped following its tags, or more to come: never), and how many of its requests are out.
std::pair<double, double> FlowEngine::requests_out() const {
  const bool more = std::any_of(pending_.begin(), pending_.end(), [](const CopyCommand& c) { return c.kind == CopyKind::Read; });
  const double at = following_ && !more ? std::max(last_request_ns_, opened_ns_) : flow::kUnbounded;
  return {at, static_cast<double>(outstanding_requests_)};
}

// The TLPs of the writes queued on this engine (up to its first read): a stream's copies
// still to come.
double FlowEngine::queued_write_tlps() const {
  double tlps = 0;
  for (std::size_t i = 0; i < pending_.size() && pending_[i].kind == CopyKind::Write; ++i) tlps += write_tlps(pending_[i]);
  return tlps;
}

double FlowEngine::write_tlps(const CopyCommand& c) const {
  return static_cast<double>(flow::data_tlps(fabric_.params(), false, c.bytes));
}

// When the queued write holding the k-th TLP behind the one issuing was submitted (k < 1, or
// past the queue's writes: the one issuing, or the last such write).
double FlowEngine::submitted_ns(double k) const {
  double at = issuing_at_.first, tlps = 0;
  for (std::size_t i = 0; k >= 1 && tlps < k && i < pending_.size() && pending_[i].kind == CopyKind::Write; ++i) {
    at = pending_at_[i].first;
    tlps += write_tlps(pending_[i]);
  }
  return at;
}

void FlowEngine::start_next() {
  while (!busy_ && !pending_.empty()) {
    const CopyCommand& c = pending_.front();
    if (c.kind == CopyKind::Read) {
      // A read that fits the tags waits until as many are free (given back as open() says:
      // a one-request read's with its data, others' when their fluid has gone).
      const int need = requests(c.bytes);
      if (need <= tags_ && outstanding_requests_ + need > tags_) return;
      const int completer = fabric_.node_of_endpoint(c.remote);
      const auto it = reading_.find(completer);
      if (it != reading_.end() && it->second > 0) {  // behind an earlier read's data from it
        if (outstanding_requests_ + requests(c.bytes) > tags_) return;  // its requests wait for tags
        // A paced read's requests go out at its pace (DmaEngine::make_tlp), which holds the
        // engine: deferred, its pace overlapped the next command's and an NVMe drive mixing
        // reads and writes of 512 B moved 16 Gb/s at 8 (a user re-trial).
        if (c.rate_GBps > 0) return;
        FlowFabric::Copy copy = open(std::move(pending_.front()), pending_at_.front().first);
        pending_.pop_front();
        pending_at_.pop_front();
        deferred_[completer].push_back(std::move(copy));
        continue;
      }
    }
    busy_ = true;
    issuing_at_ = pending_at_.front();
    FlowFabric::Copy copy = open(std::move(pending_.front()), pending_at_.front().first);
    pending_.pop_front();
    pending_at_.pop_front();
    copy.sent = [this] {
      busy_ = false;
      start_next();
    };
    fabric_.start(std::move(copy));
  }
}

// Tags came back and every read the engine holds has its own now: the deferred reads that
// had none free at their open have them from now on (FlowFabric::Copy::tags_free_ns).
void FlowEngine::tags_back_for_deferred() {
  const double now = now_ns();
  for (auto& [completer, copies] : deferred_)
    for (FlowFabric::Copy& c : copies)
      if (c.tags_free_ns < 0) c.tags_free_ns = now;
}

// Whether the engine has one read open (its fluid not gone) and none queued.
bool FlowEngine::sole_read() const {
  int open = 0;
  for (const auto& [completer, n] : reading_) open += n;
  return open == 1 && std::none_of(pending_.begin(), pending_.end(),
                                   [](const CopyCommand& c) { return c.kind == CopyKind::Read; });
}

// A read's fluid has gone: it gives back `requests` tags (open()), the next deferred read
// from its completer starts its fluid (its data follows the earlier one's), and the engine
// looks at its queue again.
void FlowEngine::read_done(int completer, int requests) {
  --reading_[completer];
  outstanding_requests_ -= requests;
  std::deque<FlowFabric::Copy>& next = deferred_[completer];
  if (!next.empty()) {
    FlowFabric::Copy copy = std::move(next.front());
    next.pop_front();
    copy.opened_ns = fabric_.ended_read_opened_ns();
    fabric_.start(std::move(copy));
  }
  start_next();
}

}  // namespace arbsim
