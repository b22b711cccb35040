// Endpoint types beyond the built-in nodes (root_complex, io_hub, switch, gpu): a registered
// type is a name for `type:`, its YAML keys with defaults and ranges, and how many DMA
// engines its port has. The loader checks such a node like a built-in one (unknown keys,
// types, ranges) and gives its values to the model registered for it
// (platforms/device_registry.h). NICs and NVMe drives are registered this way; a user's
// endpoint too (examples/, docs/api.md). No SystemC.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace arbsim {

enum class KeyKind {
  Number,  // a plain number
  Count,   // an integer
  Time,    // ns, or with a unit (200us)
  Rate,    // GB/s, or with a unit (400Gb/s)
  Bytes,   // bytes, or with a unit (128KiB)
  Choice,  // one of `choices`; the value is its index
};

struct EndpointKey {
  std::string name;
  KeyKind kind = KeyKind::Number;
  double def = 0;                    // default (Choice: index into choices)
  double lo = 0, hi = 1e15;          // allowed range (not for Choice)
  std::vector<std::string> choices;  // Choice only
  std::string help;
};

struct EndpointCfg;

struct EndpointType {
  std::string name;                  // the `type:` value
  std::string description;
  std::vector<EndpointKey> keys;
  int engines = 1;                   // its DMA engines (requesters at its port, after the completer)
  // Checks across keys, after each key's own range: returns {key, reason} of the first
  // problem, or an empty key when the node is fine. Optional.
  std::function<std::pair<std::string, std::string>(const EndpointCfg&)> check;
};

// Registers a type; throws std::invalid_argument for a name taken (built-in or registered)
// or not a valid name, and for a key that is reserved, invalid, given twice, with a default
// outside its range, or a Choice without choices or with a default index outside them.
// Call before loading configs (e.g. at static initialisation).
void register_endpoint_type(const EndpointType& t);
const EndpointType* find_endpoint_type(const std::string& name);
std::vector<std::string> endpoint_type_names();

// A node of a registered type: its values, by key (every key present: defaults filled in).
struct EndpointCfg {
  const EndpointType* type = nullptr;
  std::map<std::string, double> values;
  double get(const std::string& key) const { return values.at(key); }
};

}  // namespace arbsim
