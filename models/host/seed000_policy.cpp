#include "models/host/seed000_policy.h"
#include <iterator>

namespace arbsim {

bool parse_seed000_mode(const std::string& name, Seed000Mode* out) {
  static const std::pair<const char*, Seed000Mode> modes[] = {{"rr", Seed000Mode::RoundRobin},
                                                              {"priority_s", Seed000Mode::PriorityS},
                                                              {"priority_l", Seed000Mode::PriorityL},
                                                              {"qos", Seed000Mode::Qos}};
  for (const auto& [n, m] : modes)
    if (name == n) {
      *out = m;
      return true;
    }
  return false;
}

Seed000Policy::Seed000Policy(Seed000Mode mode, int gpus, double bytes_per_ns, double tick_ns, double margin_ns)
    : mode_(mode), gpus_(gpus), bytes_per_ns_(bytes_per_ns), tick_ns_(tick_ns), margin_ns_(margin_ns) {}

const char* Seed000Policy::name() const {
  switch (mode_) {
    case Seed000Mode::RoundRobin: return "rr";
    case Seed000Mode::PriorityS: return "priority_s";
    case Seed000Mode::PriorityL: return "priority_l";
    case Seed000Mode::Qos: return "qos";
  }
  return "?";
}

// Eq. 1 with ID_D the GPU the data goes to or comes from, and ID_T = 1 when the data
// travels as read completions (H2D by device read): completions carry their request's TC
// (PCIe Base Spec §2.2.9), so the whole command gets the response TC.
int Seed000Policy::assign_tc(const MemcpyRequest& r) {
  const int dest = r.dir == CopyDir::P2P ? r.peer : r.gpu;
  return eq1_tc(dest, r.response_data ? 1 : 0);
}

void Seed000Policy::on_submit(uint64_t cmd, const MemcpyRequest& r) {
  Command c;
  c.dest = r.dir == CopyDir::P2P ? r.peer : r.gpu;
  c.tc = assign_tc(r);
  c.bytes = r.bytes;
  c.deadline_ns = r.deadline_ns;
  commands_[cmd] = c;
  remap();
}

void Seed000Policy::on_start(uint64_t cmd, uint64_t transfer) {
  auto it = commands_.find(cmd);
  if (it != commands_.end()) it->second.transfer = transfer;
}

void Seed000Policy::on_complete(uint64_t cmd) {
  commands_.erase(cmd);
  remap();
}

uint64_t Seed000Policy::remaining(const Command& c) const {
  if (c.transfer == 0 || !fabric_) return c.bytes;
  const uint64_t done = fabric_->delivered_bytes(c.transfer);
  return done >= c.bytes ? 0 : c.bytes - done;
}

void Seed000Policy::remap() {
  if (mode_ == Seed000Mode::RoundRobin || !fabric_) return;
  std::vector<DestinationLoad> loads(gpus_);
  for (int g = 0; g < gpus_; ++g) loads[g].gpu = g;
  const double now = fabric_->now_ns();
  for (auto& [id, c] : commands_) {
    const uint64_t left = remaining(c);
    // Eq. 3: escalate once the remaining bytes cannot arrive before the deadline.
    if (mode_ == Seed000Mode::Qos && c.deadline_ns > 0 &&
        now + eq3_transfer_ns(left, bytes_per_ns_) + margin_ns_ > c.deadline_ns)
      c.escalated = true;
    DestinationLoad& d = loads[c.dest % gpus_];
    d.remaining += left;
    d.escalated = d.escalated || c.escalated;
  }
  const RankOrder order = mode_ == Seed000Mode::PriorityL ? RankOrder::LargeFirst : RankOrder::SmallFirst;
  const std::array<uint8_t, kNumTcs> map = priority_vc_map(rank_destinations(loads, order));
  if (map_set_ && (map == map_ || orders_open_tcs_alike(map))) return;
  map_ = map;
  map_set_ = true;
  fabric_->set_tc_map(map);
}

// Under strict priority only the order of the TCs in use matters. A map that orders the open
// commands' TCs as the programmed one does changes nothing they compete for, and is not
// programmed: moving a TC to another VC costs the drain of its TLPs in flight
// (EgressPort::set_tc_map), which a real driver would not pay for nothing.
bool Seed000Policy::orders_open_tcs_alike(const std::array<uint8_t, kNumTcs>& next) const {
  auto sign = [](int d) { return (d > 0) - (d < 0); };
  for (auto a = commands_.begin(); a != commands_.end(); ++a)
    for (auto b = std::next(a); b != commands_.end(); ++b) {
      const int x = a->second.tc, y = b->second.tc;
      if (sign(map_[x] - map_[y]) != sign(next[x] - next[y])) return false;
    }
  return true;
}

}  // namespace arbsim
