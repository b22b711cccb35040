#include "platforms/flow_level_fabric.h"
#include <algorithm>
#include <cstdio>
#include "models/common/model_log.h"
#include "platforms/topology/flow_graph.h"
#include "models/common/sim_time.h"

namespace arbsim {

namespace {

// `out`: the egress that holds a flow back (for a transient, the saturated link itself).
std::string setting(flow::Unrepresented what, const std::string& out) {
  const std::string held = "a flow held back at " + out;
  switch (what) {
    case flow::Unrepresented::HeadOfLine: return "FIFO ingress (voq: false) behind " + held;
    case flow::Unrepresented::Backpressure: return "finite credits behind " + held;
    case flow::Unrepresented::Overdraw: return "infinite credits behind " + held;
    case flow::Unrepresented::FillAhead: return "credits filled ahead of its pace by " + held;
    case flow::Unrepresented::WindowInQueue: return "a read's requests in one ingress queue behind " + held;
    case flow::Unrepresented::SharedQueue: return "one ingress queue feeding several VCs of " + out + ", holding a flow back";
    case flow::Unrepresented::UnbackedSharedQueue:
      return "one virtual output queue feeding several VCs of " + out + ", holding a flow back, that no flow fills";
    case flow::Unrepresented::StreamInQueue:
      return "a stream of writes, each of fewer TLPs than the credits it fills, in one ingress queue beside another "
             "credit class, behind " + held;
    case flow::Unrepresented::Transient: return "a read's tag window bursting onto the saturated " + out;
    case flow::Unrepresented::OvertakenTail: return "a copy that ended held back at " + out + ", its engine's next in another VC";
    case flow::Unrepresented::EarlySuccessor:
      return "a copy that ended held back at " + out + ", its engine's next started while its tail queued";
    case flow::Unrepresented::CreditLoop: return "credits that carry less per round trip than the copy could move alone";
    case flow::Unrepresented::TagQueueing: return "a read held to its tag window's pace on the saturated " + out;
    case flow::Unrepresented::CompleterQueue: return "a read's tag window queued at its completer, leaving by " + out;
    case flow::Unrepresented::SameQueue: return "copies waiting in one ingress queue behind " + held;
    case flow::Unrepresented::RequestBurst: return "a read's tag window of requests bursting onto the saturated " + out;
    case flow::Unrepresented::RequestPile: return "an engine's read requests piled up at " + out + " beside a stream of writes";
    case flow::Unrepresented::RequestsGone:
      return "a read's requests, all sent at its start, still charged on " + out + " beside writes that start later";
    case flow::Unrepresented::TlpTurns: return "copies of a few TLPs beside another flow's TLPs on " + out;
    case flow::Unrepresented::SharedCreditLoop:
      return "credits that carry less per round trip than copies back to back, or side by side, could move";
    case flow::Unrepresented::PooledCreditLoop:
      return "credits of " + out + " that carry less per round trip than the copies sharing them move together";
    case flow::Unrepresented::RequestsHeldBriefly:
      return "a read's requests held back on " + out + " by copies of a few percent of its tag window";
    case flow::Unrepresented::LeftQueue:
      return "a copy held back at " + out + " until a hold nearer its source took over, its queue before " + out +
             " still draining";
    case flow::Unrepresented::BurstAbove:
      return "a read's tag window bursting onto " + out + " above lower VCs (strict VC priority)";
    case flow::Unrepresented::TagQueueingBelow:
      return "a read held to its tag window's pace below a higher VC's traffic on " + out + " (strict VC priority)";
  }
  return "";
}

// What the packet model does there that the fluid does not (models/flow/fidelity_watch.h).
std::string effect(flow::Unrepresented what) {
  switch (what) {
    case flow::Unrepresented::HeadOfLine:
      return "head-of-line blocking modelled in its steady state only: flows arriving on the same port and VC for "
             "another egress wait behind its TLPs, sharing what the queue drains (docs/architecture.md, \"Queues that back up\"); while the "
             "queue fills and empties the packet model differs";
    case flow::Unrepresented::Backpressure:
      return "backpressure modelled in its steady state only: its queued TLPs take the link's credits and the "
             "other flows on the link and VC wait for the ones it frees, sharing what the queue drains "
             "(docs/architecture.md, \"Queues that back up\"); while the queue fills and empties the packet model differs";
    case flow::Unrepresented::SharedQueue:
      return "queue order modelled in its steady state only: its flows leave in the order they queued, not as the "
             "egress's VC arbiter divides them, so one in a VC that loses there holds the others behind it, which "
             "share what the queue drains (docs/architecture.md, \"Queues that back up\"); while the queue fills and "
             "empties the packet model differs";
    case flow::Unrepresented::UnbackedSharedQueue:
      return "queue order not modelled: its flows leave in the order they queued, not as the egress's VC arbiter "
             "divides them, in the packet model (no flow in it can fill the receiver's credits, and the fluid, "
             "which bounds such a queue by what fills it, lets the others pass the held one)";
    case flow::Unrepresented::StreamInQueue:
      return "queue classes weighed by one copy: the fluid divides an ingress queue among its credit classes by what "
             "each can keep in it, counting a write's own TLPs, where the packet model's engine sends the next queued "
             "copy's TLPs as soon as the last one's have left it, so a stream of short writes keeps the queue's "
             "credits as one long write does and the other class gets fewer turns (docs/architecture.md, \"Copies in "
             "a held flow's own queue\")";
    case flow::Unrepresented::Transient:
      return "start-up transient not modelled: the read's first tags x MRRS bytes arrive in a burst that takes "
             "more than its share for a while from flows of comparable size, in the packet model";
    case flow::Unrepresented::RequestBurst:
      return "start-up transient not modelled: the read's first tags' worth of requests (MRds) queue at once, and "
             "a short copy on the same link waits behind them in the packet model, where the fluid gives it its "
             "share of the link at once";
    case flow::Unrepresented::RequestPile:
      return "start-up transient not modelled: the engine's reads' requests (MRds), as many as its tags, queue at "
             "once at this egress, and a stream of writes from another engine takes turns with them one TLP for one, "
             "each of its TLPs waiting an MRd's time until the pile has gone (on the reads' own engine, the whole "
             "pile goes first), in the packet model, where the fluid gives the writes the link less the reads' share "
             "of requests throughout (run with --fidelity packet for the writes' latencies)";
    case flow::Unrepresented::RequestsGone:
      return "request timing not modelled: the read's requests (MRds), no more than its tags, all left at its start "
             "in the packet model, so writes that start later have this link without them, where the fluid charges "
             "the read's share of requests for as long as its data run (the writes are slower in the fluid; run "
             "with --fidelity packet for the writes' latencies)";
    case flow::Unrepresented::SharedCreditLoop:
      return "credit-limited throughput not modelled: each copy has no more TLPs than the credits hold, but the "
             "credits its predecessor or a copy beside it took are not back yet, so the packet model sends the "
             "copies no faster than the credits return, where the fluid moves them at their share of the link "
             "(run with --fidelity packet, or give the link more credits)";
    case flow::Unrepresented::BurstAbove:
      return "start-up transient not modelled: the read's first tags x MRRS bytes arrive in a burst, which strict "
             "VC priority sends ahead of every lower VC's TLPs on this link, so their copies wait it out in the packet "
             "model, where the fluid leaves them their pace on a link with room";
    case flow::Unrepresented::TagQueueingBelow:
      return "queueing in the round trip not modelled: under strict VC priority its requests or completions wait "
             "behind the higher VCs' TLPs queued ahead of them (a request's completions come in a burst), and each "
             "wait adds to the round trip that sets its pace, so it moves slower in the packet model, where the fluid "
             "gives it its pace on a link with room (give it the higher VC, more tags, or run with --fidelity packet)";
    case flow::Unrepresented::RequestsHeldBriefly:
      return "request-path transients not modelled: while short copies pass, the read's requests (MRds) wait their "
             "turns, but its completions keep coming from the requests already out (its tag window), so in the "
             "packet model its data do not slow, where the fluid holds the whole read to its requests' share of the "
             "link while they run (run with --fidelity packet for the read's rate)";
    case flow::Unrepresented::LeftQueue:
      return "queue drain not modelled: when the copy's hold moves to a link nearer its source, the TLPs it had "
             "queued before the old one (up to the receiver's credits there) still leave at its old rate in the "
             "packet model, so it runs ahead of the fluid by that queue, where the fluid moves it at its new rate at "
             "once (run with --fidelity packet for its times)";
    case flow::Unrepresented::PooledCreditLoop:
      return "credit-limited throughput not modelled: each copy alone needs fewer of the receiver's credits per "
             "round trip than it advertises (in one class and VC), but the copies together need more, so the "
             "packet model's egress waits for returning credits and moves them no faster than the credits' "
             "window per round trip in all, where the fluid moves each at its share of the links (run with "
             "--fidelity packet, or give the link more credits)";
    case flow::Unrepresented::TlpTurns:
      return "TLP-by-TLP turns not modelled: the packet model's arbiters turn whole TLPs, so a copy whose least time "
             "is under 33 of a sharer's TLPs on this link waits for one on the wire, or slips between them, by up to "
             "a TLP's time at a turn, where the fluid shares the link by the byte (its latency can differ by that "
             "much; under strict VC priority the gaps between short copies also let lower VCs' TLPs in, and the "
             "copies there move faster in the packet model; run with --fidelity packet for short copies' latencies)";
    case flow::Unrepresented::OvertakenTail:
      return "queued tail modelled in part: the ended copy's last TLPs still queue on the way and the next copy "
             "overtakes them; where it goes through the hold too and strictly first (a higher VC under strict VC "
             "priority before the hold, or a higher ingress VC at a switch) the fluid holds the copy until the "
             "hold gives its tail a share, but not a tail a next copy takes turns with (round robin, weights), "
             "what queues further back, or a slower drain, so the copy can end later than the fluid's, in the "
             "packet model";
    case flow::Unrepresented::EarlySuccessor:
      return "engine release not modelled: the packet model's copy engine starts its next copy once the last TLP "
             "of the one before has left it, while that one's tail still queues on the way to where it was held, so "
             "the next copy, whose way leaves before that hold, starts and ends earlier than in the fluid, which "
             "starts it when the one before has ended (run with --fidelity packet for its times)";
    case flow::Unrepresented::WindowInQueue:
      return "round trip not modelled: the read's requests (fewer than its tag window's worth of the held flow's "
             "TLPs queued ahead) wait in the queue the held flow backs up, and the fluid gives them turns as if its "
             "whole window waited there, where in the packet model each request also spends its round trip outside "
             "the queue, so the read moves slower (give it its own VC, voq: true at that node, or run with "
             "--fidelity packet)";
    case flow::Unrepresented::FillAhead:
      return "credit fill not modelled: the held flow's egress here, blind to what lies beyond, gives it more "
             "turns than its pace until its TLPs fill the receiver's credits, and gives them back when it ends, "
             "so in the packet model the flows beside it (below it under strict priority, or held on this link) "
             "wait up to the credits' worth of its TLPs at its start and move faster at its end, where the fluid "
             "moves it at its pace throughout (run with --fidelity packet for their times)";
    case flow::Unrepresented::Overdraw:
      return "arbitration blind to what lies beyond not modelled: it keeps its full turn on the link in the packet "
             "model, and the other flows get less of the link";
    case flow::Unrepresented::TagQueueing:
      return "queueing in the round trip not modelled: the fluid caps the read at its tag window per round trip "
             "alone, where in the packet model its requests and completions also wait their turns on this link, so "
             "it moves slower and its sharers faster (give the engine more tags, or run with --fidelity packet)";
    case flow::Unrepresented::SameQueue:
      return "queueing delay not modelled: a copy of fewer TLPs than the held flow has queued in the same ingress "
             "queue (same port and VC, to the same egress: up to the receiver's credits, without limit with "
             "infinite ones), or one starting there for which that queue's drain is 3 % or more of its time, waits "
             "behind them in the packet model, where the fluid gives it its share of the queue's drain at once; with infinite credits the fluid can hold it until the held flow ends (give the "
             "short copies their own VC, or run with --fidelity packet)";
    case flow::Unrepresented::CompleterQueue:
      return "completer queue not modelled: the read's requests arrive faster than its completer serves their data, "
             "so up to tags x MRRS bytes of its completions queue there in request order, and the other reads the "
             "completer serves wait behind them in the packet model, where the fluid shares the completer's rate at "
             "once (give the reader fewer tags or a smaller MRRS, or run with --fidelity packet)";
    case flow::Unrepresented::CreditLoop:
      return "credit-limited throughput not modelled: the packet model sends a window of TLPs and waits for their "
             "credits to return, so the copy moves at most the credits' window per round trip; the fluid moves it "
             "at its share of the link (run with --fidelity packet, or give the link more credits)";
  }
  return "";
}

// Rate computations whose arbitration circles (models/flow/arbitrated_rates.h): `damped` of
// the `n` settled when damped, the rest fell back to flat max-min.
std::string unsettled_effect(int n, int damped) {
  std::string s = "strict priorities and bounds that chase each other round a cycle, computation by computation: ";
  if (damped > 0)
    s += std::to_string(damped) + " of the " + std::to_string(n) + " settled only when damped, at a fixed point the "
         "packet model's arbitration, answering round by round, may circle instead of holding";
  if (damped < n)
    s += std::string(damped > 0 ? "; " : "") + std::to_string(n - damped) +
         " did not settle at all, and those intervals share flat max-min per flow";
  return s + " (run with --fidelity packet for the TLP-level outcome)";
}

std::string us(double ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f us", ns / 1000.0);
  return b;
}

}  // namespace

FlowLevelFabric::FlowLevelFabric(const Scenario& s, const FabricOptions& o, TransferTracker& tracker) {
  FlowGraph g = build_flow_graph(s);
  std::vector<FlowEdgeVcs> vcs;
  for (const LinkDir& d : s.walk) {
    vcs.push_back({d.egress.vcs, d.egress.tc_to_vc});
    names_.push_back(d.arrow_name());
  }
  fabric_ = std::make_unique<FlowFabric>("flow_fabric", std::move(g.net), flow_fabric_params(s.platform()),
                                         std::move(vcs), flow_arbitration(s, o.vc_arbiter),
                                         std::move(g.node_of_endpoint), tracker);
  // A config node is the flow node of the same index (flow_graph.h). An engine requests at
  // its node's egresses after the node's ports (a root complex's host DMA engines) or after
  // its completer (a GPU's or device's engines): topology/arbitration.h.
  for (const EngineSlot& e : s.engines) {
    const bool rc = s.platform().nodes[static_cast<std::size_t>(e.node)].is(NodeKind::RootComplex);
    const int slot = rc ? static_cast<int>(s.sites[static_cast<std::size_t>(e.node)].out.size()) + e.index : 1 + e.index;
    engines_.push_back(std::make_unique<FlowEngine>(*fabric_, e.node, slot, e.tags));
    const NodeCfg& n = s.platform().nodes[static_cast<std::size_t>(e.node)];
    engine_names_.push_back(n.name + (rc ? " host DMA engine " : n.is(NodeKind::Gpu) ? " copy engine " : " DMA engine ") +
                            std::to_string(e.index));
  }
}

// After the run: what the fidelity watch saw (models/flow/fidelity_watch.h), and rate
// computations that fell back to flat max-min.
void FlowLevelFabric::finish() {
  fabric_->finish();
  for (const auto& [key, seen] : fabric_->watch().sightings()) {
    const auto& [what, in, out] = key;
    const std::string when = " (first at " + us(seen.first_ns) + ", " + us(seen.total_ns) + " in all)";
    notes_.push_back({names_.at(static_cast<std::size_t>(in)), setting(what, names_.at(static_cast<std::size_t>(out))),
                      effect(what) + when, {seen.owners.begin(), seen.owners.end()}});
  }
  for (const auto& [edge, r] : fabric_->watch().remaps())
    notes_.push_back({names_.at(static_cast<std::size_t>(edge)), "a TC/VC remap moving the TC of a copy queued at this saturated link",
                      "remap drain not modelled: the fluid moves the TC to its new VC at once, where the packet model "
                      "first drains its TLPs queued on the old VC, and the new VC's receive buffers may still hold "
                      "TLPs of a TC that left it, which leave at that TC's new place: a raised copy can wait for a "
                      "demoted one's queued TLPs (up to a read's tag window, tags x MRRS bytes) (first at " +
                          us(r.first_ns) + ", " + std::to_string(r.times) + (r.times == 1 ? " remap" : " remaps") +
                          "; run with --fidelity packet for the drain)",
                      {r.owners.begin(), r.owners.end()}});
  for (std::size_t k = 0; k < engines_.size(); ++k) {
    const FlowEngine::NearOrder& n = engines_[k]->near_order();
    if (n.times == 0) continue;
    notes_.push_back({engine_names_[k], "copies of several apps submitted to one engine within 1 us of each other",
                      "queue order not modelled exactly: the engine takes commands as they are submitted, and the "
                      "fluid times a submission within a fraction of a microsecond of the packet model's, so the "
                      "order of these can differ from the packet model's and each copy then moves by whole copies "
                      "(run with --fidelity packet for the order; first at " + us(n.first_ns) + ", " +
                          std::to_string(n.times) + " times)",
                      {n.flows.begin(), n.flows.end()}});
  }
  for (const auto& [edge, t] : fabric_->lockstep().ties())
    notes_.push_back({names_.at(static_cast<std::size_t>(edge)),
                      "equal copies of several apps started at the same instant, held by this link",
                      "a tie the fluid keeps: it moves them alike to the byte and ends them together, where the packet "
                      "model's arbitration lets one lead by a TLP from the first grant, so what each app does next "
                      "starts apart there, and apps that repeat can drift out of step (run with --fidelity packet "
                      "for the split; first at " + us(t.first_ns) + ", " + std::to_string(t.times) + " times)",
                      {t.flows.begin(), t.flows.end()}});
  // Seed 000's ranking of equal remaining bytes (docs/host-policies.md, "Remaining bytes").
  for (const auto& [pair, t] : ties_)
    notes_.push_back({"driver", "priority ranking tie between " + pair + " (equal remaining bytes)",
                      "ranked by GPU index, the lower first: the fluid moves identical copies alike to the byte "
                      "and ends them at the same instant, where the packet model separates them by a TLP and may "
                      "rank them the other way, so their completions can differ from the packet model's by the "
                      "copies they wait behind (run with --fidelity packet for the order a TLP decides; first at " +
                          us(t.first_ns) + ", " + std::to_string(t.times) + " times)",
                      {t.flows.begin(), t.flows.end()}});
  if (const int n = fabric_->scheduler().unsettled()) {
    const std::set<uint32_t>& flows = fabric_->unsettled_flows();
    const int damped = fabric_->scheduler().damped();
    const std::string what = damped == n ? "arbitration that settles only when damped (" + std::to_string(n) +
                                               " rate computations)"
                                         : "arbitration that does not settle (" + std::to_string(n) +
                                               " rate computations" +
                                               (damped ? ", " + std::to_string(damped) + " settled when damped" : "") + ")";
    notes_.push_back({"fabric", what, unsettled_effect(n, damped), {flows.begin(), flows.end()}});
  }
  add_engine_sharers();
}

// A copy an engine runs after a named one starts when that one's engine frees, so it moves
// with it: each note also names the apps that shared a copy engine with one it names (a 1000
// B peer copy on the engine of noted apps moved +145 % unnamed; found by a user trial).
void FlowLevelFabric::add_engine_sharers() {
  for (FidelityNote& n : notes_) {
    std::set<uint32_t> flows(n.flows.begin(), n.flows.end());
    for (const auto& e : engines_) {
      const std::set<uint32_t>& on = e->owners();
      if (on.size() > 1 && std::any_of(n.flows.begin(), n.flows.end(), [&](uint32_t f) { return on.count(f) > 0; }))
        flows.insert(on.begin(), on.end());
    }
    n.flows.assign(flows.begin(), flows.end());
  }
}

// A tie the driver's policy broke by GPU index (Fabric::note_ranking_tie): logged when it
// happens, one fidelity note per pair of destinations at the end.
void FlowLevelFabric::note_ranking_tie(const std::string& pair, uint64_t bytes, const std::vector<uint32_t>& flows) {
  const double now = sim_now_ns();
  ARBSIM_LOG_DEBUG(*fabric_, "priority ranking: " + pair + " tied at " + std::to_string(bytes) +
                                 " B left; the lower GPU index ranks first");
  Tie& t = ties_.try_emplace(pair, Tie{now, 0, {}}).first->second;
  ++t.times;
  t.flows.insert(flows.begin(), flows.end());
}

void FlowLevelFabric::trace(sc_core::sc_trace_file*) {
  SC_REPORT_WARNING("arbsim/vcd", "the VCD of a flow-level run holds the GPUs' states only: links, queues, grants "
                                  "and credits are TLP-level signals (run with --fidelity packet for them)");
}

}  // namespace arbsim
