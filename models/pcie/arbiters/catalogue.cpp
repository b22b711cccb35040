#include "models/pcie/arbiters/catalogue.h"

namespace arbsim {

const std::vector<const ArbiterType*>& arbiter_catalogue() {
  static const std::vector<const ArbiterType*> rows = {&kRoundRobinType, &kStrictPriorityType,
                                                       &kWeightedRoundRobinType};
  return rows;
}

const ArbiterType* find_arbiter_type(const std::string& name) {
  for (const ArbiterType* t : arbiter_catalogue())
    if (name == t->name) return t;
  return nullptr;
}

std::string arbiter_type_names() {
  std::string s;
  for (const ArbiterType* t : arbiter_catalogue()) s += (s.empty() ? "" : ", ") + std::string(t->name);
  return s;
}

}  // namespace arbsim
