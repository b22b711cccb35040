// How one port of a fabric node is configured: the transmit side (EgressConfig), the
// receive side (IngressConfig) and, for a crossbar, the routes through it. Plain C++: the
// topology floor (platforms/topology/) plans every port with these before any SystemC
// module exists, and the packet fabric hands them to the modules.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>
#include "models/pcie/arbiters/arbiter.h"
#include "models/pcie/credits.h"
#include "models/pcie/link_direction.h"
#include "models/pcie/tlp_types.h"

namespace arbsim {

struct EgressConfig {
  LinkDirection link;
  int vcs = 1;                              // VCs enabled on this link direction
  std::array<uint8_t, kNumTcs> tc_to_vc{};  // TC -> VC on this link (TC0 -> VC0)
  CreditLimits credits;                     // advertised by the receiver, per VC
  double fc_latency_ns = 0;                 // receiver frees a buffer -> UpdateFC sent
  ArbiterSpec vc_arbiter;
  ArbiterSpec port_arbiter;
  int slots = 1;                            // requesters for the port arbiter
  std::vector<std::string> slot_names;      // [slot] what requests there (results.json); may be empty
};

// How a node receives on one port (what the link's receiver side needs).
struct IngressConfig {
  int vcs = 1;
  double credit_return_ns = 0;  // buffer freed -> credits back at the sender
  // Virtual output queues: per VC one queue per egress port, so a head waiting for a busy
  // egress does not block TLPs behind it bound elsewhere (a switch's ingress is otherwise
  // one FIFO per VC, with head-of-line blocking).
  bool voq = false;
};

// Endpoints [lo, hi) are reached through `port`.
struct Route {
  int lo, hi, port;
};

}  // namespace arbsim
