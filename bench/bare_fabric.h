// The yardstick of issue 13 ("packet mode at 0.8x a bare C++ event loop"): the same work as
// the packet model, written as a bare C++ discrete-event loop, with none of SystemC, TLM,
// statistics, tracing or checks. It walks the same scenario (platforms/topology/scenario.h:
// sites, ports, routes, every link direction's timing and credits) and moves every TLP hop
// by hop: a FIFO ingress queue per port, round robin at each egress among the queues whose
// head is routed there, serialisation at the link's TLP rate (the same LinkDirection),
// cut-through after the node's forwarding latency, posted and non-posted credits freed when
// a TLP leaves a buffer, D2H engines writing MWr of MPS and H2D engines reading MRd of MRRS
// within their tags, host memory answering each MRd with CplDs after its read latency. One
// binary heap of timed events drives it. Not a model: a bench/ tool; it knows stream copies
// to and from host memory on one VC, what the speed benchmarks run.
#pragma once
#include <cstdint>
#include <vector>
#include "platforms/topology/scenario.h"

namespace arbsim::bench {

struct BareWorkload {
  // GPU ordinals (Topology::gpus order) whose D2H engine writes, and whose H2D engine reads,
  // `copies` back-to-back copies of `bytes` each to or from their root complex's memory.
  std::vector<int> writers, readers;
  uint64_t bytes = 1u << 20;
  uint64_t copies = 1;
};

struct BareResult {
  uint64_t hops = 0;    // link traversals of TLPs (the model's tlp_hops)
  double end_ns = 0;    // when the last copy completed
  uint64_t copies = 0;  // copies completed
};

// Throws std::invalid_argument on a scenario it does not know (a GPU without its memory's
// root complex above it, a node kind other than root complex, switch and GPU).
BareResult run_bare(const Scenario& s, const BareWorkload& w);

}  // namespace arbsim::bench
