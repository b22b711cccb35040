// The fabric as the flow-level mode sees it (sim.fidelity: flow): nodes, one directed edge
// per link direction (seed 002 §3.2's graph G = (V, E, b)), paths, and what one copy asks
// of them: its hops and their weights, its fixed latency and its own rate cap. The timing
// rules are the packet model's (docs/architecture.md, "Timing of one TLP"), so a lone
// transfer takes the same time in both modes. Plain C++, no SystemC.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>
#include "models/flow/max_min.h"
#include "models/pcie/tlp_types.h"

namespace arbsim::flow {

struct Node {
  double latency_ns = 0;           // forwarding latency of a TLP passing through (switch, crossbar)
  bool store_and_forward = false;  // forwards from the tail instead of the head
  double read_latency_ns = 0;      // as a completer (GPU, host memory): MRd consumed -> first CplD
};

struct Edge {
  int from = -1, to = -1;
  double bytes_per_ns = 0;        // wire bytes per ns: a PCIe link's TLP_bw / 8, a raw link's rate
  double propagation_ns = 0;
  std::array<int, 4> overhead{};  // [TlpType] non-payload bytes of one TLP (0 on a raw link)
  int to_port = 0;                // the port of `to` it arrives at: its TLPs' requester slot at `to`'s egresses
  // Its receiver's flow control, per credit class (0 posted, 1 non-posted, 2 completion):
  // the TLPs of one VC its credits let the sender have unreturned (kUnbounded: infinite
  // credits), and the delay from a buffer freeing to its credits being back at the sender
  // (UpdateFC latency plus the DLLP's flight: docs/architecture.md, "Flow control").
  std::array<double, 3> credit_tlps{kUnbounded, kUnbounded, kUnbounded};
  double credit_return_ns = 0;
  // The same credits as advertised: headers and data credits (16 bytes each) per class, of one
  // VC (kUnbounded: infinite). credit_tlps counts full-size TLPs (MWr of MPS, CplD of the
  // completion size); a copy of smaller TLPs runs out of headers first (window_tlps()).
  std::array<double, 3> credit_headers{kUnbounded, kUnbounded, kUnbounded};
  std::array<double, 3> credit_data{kUnbounded, kUnbounded, kUnbounded};

  // One TLP's serialisation, rounded to the packet kernel's 1 ps (models/pcie/link_direction.h).
  double serialize_ns(TlpType t, uint32_t payload) const;
  // TLPs of class `cls`, each taking `data_credits` data credits (16 bytes each: ceil(payload
  // / 16) for one TLP, PCIe Base Spec §2.6.1, docs/pcie-reference.md §3; a copy's mean over
  // its TLPs; 0 for an MRd), that the credits hold: the headers, or the data credits over
  // that, whichever is fewer; credit_tlps where neither is given.
  double window_tlps(int cls, double data_credits) const;
  // The receiver's limits of class `cls` as {headers, data credits}: credit_tlps as headers
  // where it advertises neither (a config that gives whole TLPs only).
  std::array<double, 2> credit_limits(int cls) const;
  // Wire bytes per payload byte of a copy of `bytes` cut into TLPs of at most `tlp_payload`
  // bytes: every TLP pays its overhead, the last, shorter one too (as the packet model sends
  // them). A copy of 0 bytes counts as one full TLP's.
  double weight(TlpType t, uint32_t tlp_payload, uint64_t bytes) const;
};

class Network {
 public:
  int add_node(const Node& n);
  int add_edge(const Edge& e);  // both ends must exist
  const Node& node(int n) const { return nodes_.at(n); }
  const Edge& edge(int e) const { return edges_.at(e); }
  int edge_count() const { return static_cast<int>(edges_.size()); }
  std::vector<double> capacities() const;
  // The edges from `from` to `to`: fewest hops, earliest-added edges first (on a tree, the
  // one path the packet model routes). Throws std::invalid_argument when there is none.
  // Found once per pair (a copy starts on every event of the flow mode; the search walks
  // the whole platform) and remembered.
  const std::vector<int>& path(int from, int to) const;

 private:
  std::vector<int> search(int from, int to) const;
  std::vector<Node> nodes_;
  std::vector<Edge> edges_;
  std::vector<std::vector<int>> out_;  // [node] edges leaving it
  mutable std::map<std::pair<int, int>, std::vector<int>> paths_;
};

// Time from a TLP's grant at the first edge of `path` to its tail reaching the last node,
// with no other traffic: per edge the serialisation and propagation, per node passed the
// forwarding latency from the head (cut-through) or the tail (store-and-forward), and onto a
// faster edge a cut-through node starts only when the tail, through the node, cannot
// underrun (the packet model's rule: models/pcie/egress_port.cpp).`path` is not empty.
double transit_ns(const Network& n, const std::vector<int>& path, TlpType t, uint32_t payload);

struct FabricParams {
  int mps = 256, mrrs = 512, completion_bytes = 256;
};

// One copy: a write pushes `bytes` from `requester` to `remote` (MWr); a read pulls them
// from `remote` to `requester` (MRd up to MRRS bytes, answered by CplDs).
struct TransferSpec {
  bool read = false;
  int requester = -1, remote = -1;  // nodes
  uint64_t bytes = 0;
  int tags = 256;                   // the requester's outstanding reads
  int first_slot = 0;               // a write's engine slot at the requester's egress (a read's data
                                    // leaves the completer, slot 0: docs/config.md "Port arbiter")
};

// Where a receiver's credits bound a copy on their own: a window of credit_tlps TLPs per
// round trip carries less than the copy could move alone (credit_loop_cap()).
struct CreditLoop {
  int edge = 0;
  bool request = false;  // on the request path (a read's MRds), else the data path
  int cls = 0;           // its credit class there (CreditClass)
  double round_trip_ns = 0;  // a TLP's credits' round trip there (credit_loop_cap())
  double tlps = 0;          // the copy's TLPs of the class there
  double data_credits = 0;  // the data credits one of them takes (its mean payload's; 0 for an MRd)
  double window = 0;        // how many of them the credits hold (Edge::window_tlps())
};

struct TransferPlan {
  FlowSpec flow;                    // data hops, a read's request hops, its tag-window cap
  std::vector<int> data_path, request_path;
  std::vector<CreditLoop> credit_loops;
  // Where the credits could not carry the copy's pace either, but it has no more TLPs of the
  // class than they hold, so alone it sends them all at once: copies back to back, or beside
  // it in the class, can still find them out (fidelity_watch.h).
  std::vector<CreditLoop> shared_credit_loops;
  // Where the credits carry less of its TLPs per round trip than the link could: copies
  // sharing them (one class and VC) can outpace them together though each fits alone (four
  // writes up one link of 8 posted-header credits). Every credit loop is one. The fidelity
  // watch adds their rates (fidelity_watch.h, CreditPool).
  std::vector<CreditLoop> credit_pools;
  TlpType data_type = TlpType::MWr;
  double latency_ns = 0;            // the first data TLP's arrival, timed as the packet model does
  uint64_t first_bytes = 0;         // that TLP's payload (its time at the flow's rate overlaps the latency)
  // What the fluid moves, in units of the flow's rate: the copy's bytes (pool_overheads()
  // may add to it). A hop's weight is per unit of it.
  double volume = 0;
};

TransferPlan plan_transfer(const Network& n, const FabricParams& p, const TransferSpec& t);

// Copies of at least kPooledTlps TLPs get weights that do not depend on their size, so that
// a stream's next copy, of another size, has its predecessor's spec and the rates of a
// component of such copies are looked up, not computed (rate_memo.h). Exact weights spread
// the overhead of a copy's partly filled last TLP over its bytes, so they differ with every
// size. Here instead (docs/architecture.md, "Flow-level mode"):
// - a data hop weighs a full TLP's (payload + overhead) / payload, and the volume grows to
//   (bytes + TLPs x overhead) / that ratio for the path's largest overhead: every data link
//   of that overhead (all of a path's PCIe links of one generation family) is charged
//   exactly its wire bytes, one of less overhead or a raw link (a memory port) at most one
//   TLP's overhead more;
// - a read's MRd hop of at least kPooledTlps requests, not a whole number of MRRS, weighs
//   overhead / MRRS x kPooledTlps / (kPooledTlps - 1): never less than its requests' wire
//   bytes, at most 1 / (kPooledTlps - 1) of them more (under 0.02 % of a link's bytes).
// A copy of whole TLPs keeps its exact weights and volume, a shorter one everything. The
// fluid never charges a link less than the packet model sends. Batch predictions (seed 002)
// keep exact weights: they do not call it.
constexpr uint64_t kPooledTlps = 256;

// The weight of a read's MRd hop on a raw link (a memory port): there an MRd has no payload
// and no overhead, so it takes 0 ps on the wire, yet it is a grant of the port's VC and port
// arbiters, which turn TLP by TLP: a read's requests take turns from the writes in their VC
// (survey seed 30015: host memory's 16 GB/s write side, rr over VCs, a read's 6.6 M MRds
// per second beside a write in VC7 and a write alone in VC0: 5.60 and 3.93 GB/s in the
// packet model, where the fluid, leaving the MRds out there, gave both 4.76). A hop this
// light takes its turns (a turn is one TLP whatever it weighs: Hop::tlp) and, in
// capacity, a part in 10^9 of its bytes.
constexpr double kTurnOnlyWeight = 1e-9;
void pool_overheads(const Network& n, const FabricParams& p, const TransferSpec& t, TransferPlan& plan);

// What edge e's receiver's credits of class `cls` carry at most, in units of a flow's rate
// per ns, for TLPs of type t with `payload` bytes each carrying `units` of rate: its credit
// window for such TLPs (Edge::window_tlps()) over one TLP's credit round trip (kUnbounded
// with infinite credits).
double credit_loop_cap(const Network& n, int e, int cls, TlpType t, uint32_t payload, double units);
// That round trip, ns: a TLP's credits from its start on the wire until they are back.
double credit_round_trip_ns(const Network& n, int e, TlpType t, uint32_t payload);

// TLPs the packet model sends for a copy: its data TLPs (MWr of MPS, or CplDs of the
// completion size within MRRS requests) and its MRd requests (0 for a write).
uint64_t data_tlps(const FabricParams& p, bool read, uint64_t bytes);
// The data TLP's payload: MPS for a write; for a read a CplD of the completion size, or the
// whole request when MRRS is the smaller (docs/pcie-reference.md §3, completion splitting).
uint32_t data_tlp_bytes(const FabricParams& p, bool read);
uint64_t request_tlps(const FabricParams& p, bool read, uint64_t bytes);

}  // namespace arbsim::flow
