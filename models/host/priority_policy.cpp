#include "models/host/priority_policy.h"
#include <iterator>
#include <utility>

namespace arbsim {

PriorityTcPolicy::PriorityTcPolicy(PriorityMode mode, int gpus, double bytes_per_ns, double tick_ns, double margin_ns,
                                   int starvation_threshold)
    : mode_(mode),
      gpus_(gpus),
      bytes_per_ns_(bytes_per_ns),
      tick_ns_(tick_ns),
      margin_ns_(margin_ns),
      starvation_threshold_(starvation_threshold),
      ended_(static_cast<std::size_t>(gpus), false) {}

std::optional<ArbiterSpec> PriorityTcPolicy::vc_arbiter() const {
  ArbiterSpec s;
  if (mode_ == PriorityMode::RoundRobin) return s;
  s.type = &kStrictPriorityType;
  s.starvation_threshold = starvation_threshold_;
  return s;
}

const char* PriorityTcPolicy::name() const {
  switch (mode_) {
    case PriorityMode::RoundRobin: return "rr";
    case PriorityMode::SmallestFirst: return "priority_s";
    case PriorityMode::LargestFirst: return "priority_l";
    case PriorityMode::DeadlineAware: return "qos";
  }
  return "?";
}

// Eq. 1 with ID_D the GPU the data goes to or comes from, and ID_T = 1 when the data
// travels as read completions (H2D by device read): completions carry their request's TC
// (PCIe Base Spec §2.2.9), so the whole command gets the response TC.
int PriorityTcPolicy::assign_tc(const MemcpyRequest& r) {
  const int dest = r.dir == CopyDir::P2P ? r.peer : r.gpu;
  return eq1_tc(dest, r.response_data ? 1 : 0);
}

void PriorityTcPolicy::on_submit(uint64_t cmd, const MemcpyRequest& r) {
  Command c;
  c.dest = r.dir == CopyDir::P2P ? r.peer : r.gpu;
  c.tc = assign_tc(r);
  c.bytes = r.bytes;
  c.flow_id = r.flow_id;
  c.deadline_ns = r.deadline_ns;
  commands_[cmd] = c;
  remap();
}

void PriorityTcPolicy::on_start(uint64_t cmd, uint64_t transfer) {
  auto it = commands_.find(cmd);
  if (it != commands_.end()) it->second.transfer = transfer;
}

void PriorityTcPolicy::on_complete(uint64_t cmd) {
  if (auto it = commands_.find(cmd); it != commands_.end() && gpus_ > 0)
    ended_[static_cast<std::size_t>(it->second.dest % gpus_)] = true;
  commands_.erase(cmd);
  remap();
}

uint64_t PriorityTcPolicy::remaining(const Command& c) const {
  if (c.transfer == 0 || !fabric_) return c.bytes;
  const uint64_t done = fabric_->delivered_bytes(c.transfer);
  return done >= c.bytes ? 0 : c.bytes - done;
}

void PriorityTcPolicy::remap() {
  if (mode_ == PriorityMode::RoundRobin || !fabric_) return;
  std::vector<DestinationLoad> loads(gpus_);
  for (int g = 0; g < gpus_; ++g) loads[g].gpu = g;
  std::vector<bool> moved = ended_;  // [destination] some of its data has arrived
  const double now = fabric_->now_ns();
  for (auto& [id, c] : commands_) {
    const uint64_t left = remaining(c);
    // Eq. 3: escalate once the remaining bytes cannot arrive before the deadline.
    if (mode_ == PriorityMode::DeadlineAware && c.deadline_ns > 0 &&
        now + eq3_transfer_ns(left, bytes_per_ns_) + margin_ns_ > c.deadline_ns)
      c.escalated = true;
    DestinationLoad& d = loads[c.dest % gpus_];
    d.remaining += left;
    if (left < c.bytes) moved[static_cast<std::size_t>(c.dest % gpus_)] = true;
    d.escalated = d.escalated || c.escalated;
  }
  const RankOrder order = mode_ == PriorityMode::LargestFirst ? RankOrder::LargeFirst : RankOrder::SmallFirst;
  const std::vector<int> ranking = rank_destinations(loads, order);
  const std::array<uint8_t, kNumTcs> map = priority_vc_map(ranking);
  report_ties(loads, moved, ranking, map);
  if (map_set_ && (map == map_ || orders_open_tcs_alike(map))) return;
  map_ = map;
  map_set_ = true;
  fabric_->set_tc_map(map);
}

// Seed 000 §3.2 ranks by remaining bytes and says nothing of equal ones; rank_destinations()
// puts the lower GPU index first. Identical tenants tie often in the flow fidelity (equal
// fluids progress alike to the byte and end at the same instant) and seldom in the packet
// model (a TLP separates them), so where the tie decided the map the fabric is told: the flow
// fabric lists it in fidelity_notes instead of leaving a different ranking silent. A tie before
// any data of the two has arrived (their first commands, submitted together) is not told: the
// packet model has nothing delivered either and ranks them the same way.
void PriorityTcPolicy::report_ties(const std::vector<DestinationLoad>& loads, const std::vector<bool>& moved,
                                   const std::vector<int>& ranking, const std::array<uint8_t, kNumTcs>& map) {
  for (std::size_t k = 0; k + 1 < ranking.size(); ++k) {
    const DestinationLoad& a = loads[static_cast<std::size_t>(ranking[k])];
    const DestinationLoad& b = loads[static_cast<std::size_t>(ranking[k + 1])];
    if (a.remaining == 0 || a.remaining != b.remaining || a.escalated != b.escalated) continue;
    if (!moved[static_cast<std::size_t>(a.gpu)] && !moved[static_cast<std::size_t>(b.gpu)]) continue;
    std::vector<int> other = ranking;
    std::swap(other[k], other[k + 1]);
    if (priority_vc_map(other) == map) continue;  // the order between them changes nothing
    std::vector<uint32_t> flows;
    for (const auto& [id, c] : commands_)
      if (c.dest % gpus_ == a.gpu || c.dest % gpus_ == b.gpu) flows.push_back(c.flow_id);
    fabric_->ranking_tie(a.gpu, b.gpu, a.remaining, flows);
  }
}

// Under strict priority only the order of the TCs in use matters. A map that orders the open
// commands' TCs as the programmed one does changes nothing they compete for, and is not
// programmed: moving a TC to another VC costs the drain of its TLPs in flight
// (EgressPort::set_tc_map), which a real driver would not pay for nothing.
bool PriorityTcPolicy::orders_open_tcs_alike(const std::array<uint8_t, kNumTcs>& next) const {
  auto sign = [](int d) { return (d > 0) - (d < 0); };
  // As each link has them: on fewer VCs two TCs of different 8-VC VCs may share one, so an
  // order kept on 8 VCs can still part or join two TCs there.
  for (const int n : fabric_->vc_counts())
    for (auto a = commands_.begin(); a != commands_.end(); ++a)
      for (auto b = std::next(a); b != commands_.end(); ++b) {
        const uint8_t x = static_cast<uint8_t>(a->second.tc), y = static_cast<uint8_t>(b->second.tc);
        if (sign(scale_vc(map_[x], n) - scale_vc(map_[y], n)) != sign(scale_vc(next[x], n) - scale_vc(next[y], n)))
          return false;
      }
  return true;
}

}  // namespace arbsim
