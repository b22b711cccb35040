#include "platforms/config/node_types.h"
#include <memory>
#include <stdexcept>

namespace arbsim {

namespace {

std::map<std::string, std::unique_ptr<EndpointType>>& registry() {
  static std::map<std::string, std::unique_ptr<EndpointType>> r;
  return r;
}

bool builtin(const std::string& name) {
  return name == "root_complex" || name == "io_hub" || name == "switch" || name == "gpu";
}

}  // namespace

void register_endpoint_type(const EndpointType& t) {
  if (t.name.empty() || builtin(t.name) || registry().count(t.name))
    throw std::invalid_argument("register_endpoint_type: the name '" + t.name + "' is taken or empty");
  if (t.engines < 0 || t.engines > 64)
    throw std::invalid_argument("register_endpoint_type: " + t.name + ": engines must be in 0..64");
  registry()[t.name] = std::make_unique<EndpointType>(t);
}

const EndpointType* find_endpoint_type(const std::string& name) {
  const auto it = registry().find(name);
  return it == registry().end() ? nullptr : it->second.get();
}

std::vector<std::string> endpoint_type_names() {
  std::vector<std::string> v;
  for (const auto& [name, t] : registry()) v.push_back(name);
  return v;
}

}  // namespace arbsim
