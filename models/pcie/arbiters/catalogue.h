// The arbiter catalogue: one row per arbiter type, the only place that knows which types
// exist. The config parser's allowed names, --help, error messages and the factory all read
// it; adding an arbiter is one file (the class and its row) and one line in catalogue.cpp.
// Plain C++: no SystemC.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace arbsim {

class Arbiter;
struct ArbiterSpec;

struct ArbiterType {
  const char* name;         // as written in configs: "rr"
  const char* description;  // one line for --help and docs/arbiters.md
  bool weighted;            // takes `weights` or `phases` (exactly one of them)
  // Builds the arbiter of a spec that check_arbiter() has accepted, for n requesters.
  std::unique_ptr<Arbiter> (*make)(const ArbiterSpec& spec, int n);
};

// Every type, in the order --help lists them.
const std::vector<const ArbiterType*>& arbiter_catalogue();
// The type named `name`, or nullptr.
const ArbiterType* find_arbiter_type(const std::string& name);
// "rr, strict, wrr": for messages.
std::string arbiter_type_names();

// The rows, each defined beside its class.
extern const ArbiterType kRoundRobinType;          // round_robin.cpp
extern const ArbiterType kStrictPriorityType;      // strict_priority.cpp
extern const ArbiterType kWeightedRoundRobinType;  // weighted_round_robin.cpp

}  // namespace arbsim
