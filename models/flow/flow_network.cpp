#include "models/flow/flow_network.h"
#include "models/pcie/credits.h"
#include <algorithm>
#include <cmath>
#include <deque>
#include <stdexcept>
#include <string>

namespace arbsim::flow {

namespace {

int idx(TlpType t) { return static_cast<int>(t); }
uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

double slowest_serialization_ns(const Network& n, const std::vector<int>& path, TlpType t, uint32_t payload) {
  double s = 0;
  for (int e : path) s = std::max(s, n.edge(e).serialize_ns(t, payload));
  return s;
}

// A read engine keeps at most `tags` requests outstanding (docs/pcie-reference.md §3, "Tags"),
// so by Little's law it moves at most tags requests' bytes per round trip of one request: the
// MRd's transit, the completer's latency and the request's CplDs back to back. A request asks
// for MRRS bytes, the last one for the rest: the copy's requests ask for its bytes over their
// number each, on the mean (a 600 B copy's two requests, 300 B each: counted as 512 B each,
// 600 B reads 8 deep on 4 tags moved 28.0 Gb/s against the packet model's 16.5, a user trial).
double tag_window_cap(const Network& n, const FabricParams& p, const TransferSpec& t, const TransferPlan& plan,
                      double request_ns) {
  const uint32_t tlp = data_tlp_bytes(p, true);
  const uint64_t bytes = std::max<uint64_t>(1, t.bytes), mrrs = static_cast<uint64_t>(p.mrrs);
  // (A copy of kPooledTlps requests or more counts whole MRRS, within 1/kPooledTlps of its
  // mean: copies of such sizes share one flow spec.)
  const uint64_t requests = ceil_div(bytes, mrrs);
  const double asked = requests >= kPooledTlps ? static_cast<double>(mrrs) : static_cast<double>(bytes) / static_cast<double>(requests);
  const auto request = static_cast<uint64_t>(std::ceil(asked));
  const uint64_t cpls = ceil_div(request, tlp);
  const auto cpl = static_cast<uint32_t>(std::min<uint64_t>(tlp, request));
  const double rtt = request_ns + n.node(t.remote).read_latency_ns + transit_ns(n, plan.data_path, TlpType::CplD, cpl) +
                     static_cast<double>(cpls - 1) * slowest_serialization_ns(n, plan.data_path, TlpType::CplD, tlp);
  return rtt > 0 ? static_cast<double>(t.tags) * asked / rtt : kUnbounded;
}

// The credit loops (credit_loop_cap()) slower than everything else would let the copy go
// alone (its links, its tag window). Not represented: the fluid moves the copy at its share
// of the links; the plan names them, for the fidelity watch to say so. (Capping the copy at
// the slowest loop matched the packet model on long links, 68.5 against 67.7 us for 1 MiB
// over 1 us of flight, but missed by up to a round trip on copies of a few windows and
// where loops follow one another: not yet kept.) A copy with no more TLPs of a class than the
// credits' window sends them all without waiting for one to return: no loop of its own (a
// 2-TLP write behind 4 credits was named credit-limited while both fidelities gave 109.402
// ns); but the credits it takes are still out when its engine's next copy starts, so a
// stream of such copies is bound as one (shared_credit_loops: a user trial's 100 B writes
// behind 4 posted-header credits, 12.1 Gb/s in the packet model against the fluid's 20.3).
// The most that copies crossing hop k's link like this one can move there together, in units
// of rate: a data hop's link over its weight; a request hop's MRds, a few bytes each, could
// ask far more, but their data come back over the same link the other way (the data hop
// that mirrors it on a tree), which bounds them all (with the default 128 non-posted headers
// an MRd pool would otherwise be found on every link, and the fidelity watch would add up
// every read there at each change of rate: 1,024 GPUs went 0.33 -> 1.2 s per simulated ms).
double pool_bound(const Network& n, const TransferPlan& plan, std::size_t k, std::size_t data_hops) {
  const Hop& h = plan.flow.path[k];
  if (k >= data_hops && plan.request_path.size() == data_hops) {
    const Hop& back = plan.flow.path[data_hops - 1 - (k - data_hops)];
    return back.weight > 0 ? n.edge(back.edge).bytes_per_ns / back.weight : kUnbounded;
  }
  return h.weight > 0 ? n.edge(h.edge).bytes_per_ns / h.weight : kUnbounded;
}

// TLPs are the copy's own: a copy smaller than MPS (or the completion size) sends smaller
// ones, which the headers, not the data credits, run out on (a user trial: 64 B writes 64 deep
// behind 16 posted headers, 30.8 Gb/s in the packet model against the fluid's 82.2, unnamed
// while the window was counted in 256 B TLPs), and a read asks one MRd per copy under MRRS.
void find_credit_loops(const Network& n, const FabricParams& p, const TransferSpec& t, TransferPlan& plan) {
  const double bytes = static_cast<double>(std::max<uint64_t>(1, t.bytes));
  const double data = static_cast<double>(std::max<uint64_t>(1, data_tlps(p, t.read, t.bytes)));
  const double requests = static_cast<double>(std::max<uint64_t>(1, request_tlps(p, t.read, t.bytes)));
  // Data credits (16 bytes each) of its TLPs, per TLP: full ones and a shorter last one.
  const uint64_t full = data_tlp_bytes(p, t.read), tlp_count = static_cast<uint64_t>(data);
  const uint64_t last = std::max<uint64_t>(1, t.bytes) - (tlp_count - 1) * full;
  const double credits = static_cast<double>((tlp_count - 1) * ceil_div(full, 16) + ceil_div(last, 16)) / data;
  double alone = plan.flow.cap;
  for (const Hop& h : plan.flow.path)
    if (h.weight > 0) alone = std::min(alone, n.edge(h.edge).bytes_per_ns / h.weight);
  const std::size_t data_hops = plan.data_path.size();
  for (std::size_t k = 0; k < plan.flow.path.size(); ++k) {
    const Hop& h = plan.flow.path[k];
    const bool request = h.cls == static_cast<int>(CreditClass::NonPosted);
    const TlpType type = request ? TlpType::MRd : plan.data_type;
    const double count = request ? requests : data;
    const double mean = request ? 0.0 : bytes / count;  // payload per TLP
    const auto payload = static_cast<uint32_t>(std::lround(mean));
    const double loop = credit_loop_cap(n, h.edge, h.cls, type, payload, bytes / count);
    if (!(loop < pool_bound(n, plan, k, data_hops))) continue;
    const CreditLoop l{h.edge, request, h.cls, credit_round_trip_ns(n, h.edge, type, payload), count,
                       request ? 0.0 : credits, n.edge(h.edge).window_tlps(h.cls, request ? 0.0 : credits)};
    plan.credit_pools.push_back(l);
    if (!(loop < alone)) continue;
    const bool fits = count <= l.window;
    (fits ? plan.shared_credit_loops : plan.credit_loops).push_back(l);
  }
}

// The units one TLP of a copy carries on a hop, for its turns at an egress (Hop::tlp), given
// its `tlps` there of at most `full` bytes each: a turn is one TLP whatever its size, so a
// copy of n TLPs carries bytes / n per turn (a copy
// under one TLP its bytes; 293 B in a 256 B TLP and a 37 B tail, 146.5: a user trial's such
// copies 32 deep beside 64 KiB ones under round robin, 35 % faster in the fluid counted at
// 256 B a turn). From kPooledTlps TLPs on, a full TLP's: the spec must not depend on the size
// (pool_overheads()), and the tail moves the mean by under 0.4 %.
double mean_tlp(uint64_t bytes, uint64_t tlps, uint64_t full) {
  tlps = std::max<uint64_t>(1, tlps);  // (a copy of 0 bytes: one TLP)
  return tlps >= kPooledTlps ? static_cast<double>(full) : static_cast<double>(bytes) / static_cast<double>(tlps);
}

void add_request_hops(const Network& n, const FabricParams& p, const TransferSpec& t, TransferPlan& plan) {
  const uint64_t bytes = std::max<uint64_t>(1, t.bytes);
  const uint64_t mrds = (bytes + p.mrrs - 1) / p.mrrs;
  for (std::size_t k = 0; k < plan.request_path.size(); ++k) {
    const int e = plan.request_path[k];
    // One MRd (no payload) per MRRS bytes of data; a raw link charges it nothing but a turn
    // (kTurnOnlyWeight). Flat max-min serves requests ahead of the fair share (max_min.h);
    // the arbitrated rates arbitrate them TLP by TLP like any other (arbitrated_rates.h).
    const double w = static_cast<double>(n.edge(e).overhead[idx(TlpType::MRd)] * mrds) / static_cast<double>(bytes);
    Hop h{e, std::max(w, kTurnOnlyWeight), true};
    h.tlp = mean_tlp(bytes, mrds, static_cast<uint64_t>(p.mrrs));
    // The MRd leaves the requester's engine, then arrives through each node's port.
    h.slot = k > 0 ? n.edge(plan.request_path[k - 1]).to_port : t.first_slot;
    h.starts = k == 0;
    h.cls = static_cast<int>(CreditClass::NonPosted);
    h.window = t.tags;  // one MRd per tag in flight
    plan.flow.path.push_back(h);
  }
}

}  // namespace

uint32_t data_tlp_bytes(const FabricParams& p, bool read) {
  return static_cast<uint32_t>(read ? std::min(p.completion_bytes, p.mrrs) : p.mps);
}

// A TLP holds its credits from its start on the wire until they are back: its serialisation
// and flight, its time in the receiver's buffer (an endpoint consumes it as its tail arrives;
// a crossbar forwards it after its latency, from the tail if it stores and forwards, its
// tail following at the same rate), and the UpdateFC's return. So at most credit_tlps TLPs
// per round trip: a window over a round trip, as the tag window bounds a read
// (docs/pcie-reference.md §3, "How credits limit throughput").
double credit_loop_cap(const Network& n, int e, int cls, TlpType t, uint32_t payload, double units) {
  const double window = n.edge(e).window_tlps(cls, static_cast<double>(credit_cost(t, payload).data));
  if (window == kUnbounded) return kUnbounded;
  const double round_trip = credit_round_trip_ns(n, e, t, payload);
  return round_trip > 0 ? window * units / round_trip : kUnbounded;
}

double credit_round_trip_ns(const Network& n, int e, TlpType t, uint32_t payload) {
  const Edge& edge = n.edge(e);
  const Node& to = n.node(edge.to);
  const double serialize = edge.serialize_ns(t, payload);
  const double held = to.latency_ns + (to.store_and_forward ? serialize : 0.0);
  return serialize + edge.propagation_ns + held + edge.credit_return_ns;
}

std::array<double, 2> Edge::credit_limits(int cls) const {
  const auto c = static_cast<std::size_t>(cls);
  if (credit_headers[c] == kUnbounded && credit_data[c] == kUnbounded) return {credit_tlps[c], kUnbounded};
  return {credit_headers[c], credit_data[c]};
}

double Edge::window_tlps(int cls, double data_credits) const {
  const auto [headers, data] = credit_limits(cls);
  if (data == kUnbounded || data_credits <= 0) return headers;
  return std::min(headers, std::floor(data / data_credits));
}

double Edge::serialize_ns(TlpType t, uint32_t payload) const {
  return std::round((payload + overhead[idx(t)]) * 1000.0 / bytes_per_ns) / 1000.0;
}

double Edge::weight(TlpType t, uint32_t tlp_payload, uint64_t bytes) const {
  if (bytes == 0) bytes = tlp_payload;
  const uint64_t tlps = (bytes + tlp_payload - 1) / tlp_payload;
  return static_cast<double>(bytes + tlps * overhead[idx(t)]) / static_cast<double>(bytes);
}

int Network::add_node(const Node& n) {
  nodes_.push_back(n);
  out_.emplace_back();
  return static_cast<int>(nodes_.size()) - 1;
}

int Network::add_edge(const Edge& e) {
  paths_.clear();
  const int nodes = static_cast<int>(nodes_.size());
  if (e.from < 0 || e.from >= nodes || e.to < 0 || e.to >= nodes || !(e.bytes_per_ns > 0))
    throw std::invalid_argument("flow::Network: an edge needs two existing nodes and a rate > 0");
  edges_.push_back(e);
  out_[e.from].push_back(static_cast<int>(edges_.size()) - 1);
  return static_cast<int>(edges_.size()) - 1;
}

std::vector<double> Network::capacities() const {
  std::vector<double> c;
  for (const Edge& e : edges_) c.push_back(e.bytes_per_ns);
  return c;
}

const std::vector<int>& Network::path(int from, int to) const {
  const auto key = std::make_pair(from, to);
  auto it = paths_.find(key);
  if (it == paths_.end()) it = paths_.emplace(key, search(from, to)).first;
  return it->second;
}

// Breadth-first search; `via[n]` is the edge that first reached node n.
std::vector<int> Network::search(int from, int to) const {
  std::vector<int> via(nodes_.size(), -1);
  std::vector<char> seen(nodes_.size(), 0);
  std::deque<int> todo{from};
  seen.at(from) = 1;
  while (!todo.empty() && !seen.at(to)) {
    const int n = todo.front();
    todo.pop_front();
    for (int e : out_[n])
      if (!seen[edges_[e].to]) {
        seen[edges_[e].to] = 1;
        via[edges_[e].to] = e;
        todo.push_back(edges_[e].to);
      }
  }
  if (!seen[to])
    throw std::invalid_argument("flow::Network: no path from node " + std::to_string(from) + " to " +
                                std::to_string(to));
  std::vector<int> p;
  for (int n = to; n != from; n = edges_[via[n]].from) p.push_back(via[n]);
  std::reverse(p.begin(), p.end());
  return p;
}

double transit_ns(const Network& n, const std::vector<int>& path, TlpType t, uint32_t payload) {
  double grant = 0;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const Edge& e = n.edge(path[i]);
    const double head = grant + e.propagation_ns;
    const double tail = grant + e.serialize_ns(t, payload) + e.propagation_ns;
    if (i + 1 == path.size()) return tail;
    // The node forwards from the head (or the tail), after its latency; onto a faster link
    // only once the tail can no longer underrun (models/pcie/egress_port.cpp, eligible_at).
    const Node& via = n.node(e.to);
    const double head_ready = (via.store_and_forward ? tail : head) + via.latency_ns;
    const double tail_ready = tail + via.latency_ns;
    grant = std::max(head_ready, tail_ready - n.edge(path[i + 1]).serialize_ns(t, payload));
  }
  return 0;  // an empty path
}

// A write has at most its own TLPs in flight: where they are fewer than a receiver's posted
// credits on its path hold, it cannot fill that queue (arbitrated_rates.cpp, back_up(); a
// read's tag window is its window the same way). A 4-TLP push to a Gen1 x1 GPU behind 128
// credits held a 64 KiB push beside it to the slow GPU's pace in the fluid (9,786 ns against
// the packet model's 5,272), and a small peer write a D2H 16x. Left unbounded where no
// receiver on its path holds more than it has (the same decisions: it fills them all), so
// copies of any larger size keep one spec (rate_memo.h).
static void limit_write_window(const Network& n, const FabricParams& p, const TransferSpec& t, TransferPlan& plan) {
  const double tlps = static_cast<double>(data_tlps(p, false, t.bytes));
  double most = 0;
  for (int e : plan.data_path) {
    const double room = n.edge(e).credit_tlps[static_cast<std::size_t>(CreditClass::Posted)];
    if (room != kUnbounded) most = std::max(most, room);
  }
  if (tlps >= most) return;
  for (Hop& h : plan.flow.path) h.window = tlps;
}

TransferPlan plan_transfer(const Network& n, const FabricParams& p, const TransferSpec& t) {
  TransferPlan plan;
  plan.data_type = t.read ? TlpType::CplD : TlpType::MWr;
  plan.data_path = t.read ? n.path(t.remote, t.requester) : n.path(t.requester, t.remote);
  const uint32_t tlp = data_tlp_bytes(p, t.read);
  plan.first_bytes = std::min<uint64_t>(tlp, t.bytes);
  plan.volume = static_cast<double>(t.bytes);
  for (std::size_t k = 0; k < plan.data_path.size(); ++k) {
    const int e = plan.data_path[k];
    Hop h{e, n.edge(e).weight(plan.data_type, tlp, t.bytes)};
    h.slot = k > 0 ? n.edge(plan.data_path[k - 1]).to_port : (t.read ? 0 : t.first_slot);
    h.tlp = mean_tlp(std::max<uint64_t>(1, t.bytes), data_tlps(p, t.read, t.bytes), tlp);
    h.cls = static_cast<int>(t.read ? CreditClass::Completion : CreditClass::Posted);
    // A read's completions in flight: its tags' requests, each answered by ceil(MRRS / C).
    if (t.read) h.window = static_cast<double>(t.tags) * static_cast<double>(ceil_div(static_cast<uint64_t>(p.mrrs), tlp));
    plan.flow.path.push_back(h);
  }
  const double first = transit_ns(n, plan.data_path, plan.data_type, static_cast<uint32_t>(plan.first_bytes));
  if (!t.read) {
    limit_write_window(n, p, t, plan);
    plan.latency_ns = first;
    find_credit_loops(n, p, t, plan);
    return plan;
  }
  plan.request_path = n.path(t.requester, t.remote);
  add_request_hops(n, p, t, plan);
  const double request = transit_ns(n, plan.request_path, TlpType::MRd, 0);
  plan.latency_ns = request + n.node(t.remote).read_latency_ns + first;
  plan.flow.cap = tag_window_cap(n, p, t, plan, request);
  find_credit_loops(n, p, t, plan);
  return plan;
}

void pool_overheads(const Network& n, const FabricParams& p, const TransferSpec& t, TransferPlan& plan) {
  const uint64_t tlps = data_tlps(p, t.read, t.bytes);
  if (tlps < kPooledTlps) return;
  const double tlp = data_tlp_bytes(p, t.read);
  const int type = idx(plan.data_type);
  int most = 0;
  for (int e : plan.data_path) most = std::max(most, n.edge(e).overhead[type]);
  plan.volume = (static_cast<double>(t.bytes) + static_cast<double>(tlps * most)) * tlp / (tlp + most);
  for (std::size_t k = 0; k < plan.data_path.size(); ++k)
    plan.flow.path[k].weight = (tlp + n.edge(plan.data_path[k]).overhead[type]) / tlp;
  // The request hops follow the data hops (add_request_hops()), per unit of the volume now.
  const uint64_t mrds = request_tlps(p, t.read, t.bytes);
  const bool pooled = mrds >= kPooledTlps && t.bytes % static_cast<uint64_t>(p.mrrs) != 0;
  for (std::size_t k = plan.data_path.size(); k < plan.flow.path.size(); ++k) {
    Hop& h = plan.flow.path[k];
    const double overhead = n.edge(h.edge).overhead[idx(TlpType::MRd)];
    h.weight = std::max(kTurnOnlyWeight, pooled ? overhead / p.mrrs * static_cast<double>(kPooledTlps) / (kPooledTlps - 1)
                                                : overhead * static_cast<double>(mrds) / plan.volume);
  }
}

uint64_t data_tlps(const FabricParams& p, bool read, uint64_t bytes) {
  return ceil_div(bytes, data_tlp_bytes(p, read));
}

uint64_t request_tlps(const FabricParams& p, bool read, uint64_t bytes) {
  return read ? ceil_div(bytes, static_cast<uint64_t>(p.mrrs)) : 0;
}

}  // namespace arbsim::flow
