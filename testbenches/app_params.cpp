#include "testbenches/app_params.h"

namespace arbsim {

const char* app_kind_name(const AppParams& p) {
  if (std::holds_alternative<CopyExecParams>(p)) return "copy_exec";
  if (std::holds_alternative<BatchParams>(p)) return "batch";
  if (std::holds_alternative<SpmdParams>(p)) return "spmd";
  if (std::holds_alternative<PeriodicParams>(p)) return "periodic";
  return std::get<StreamParams>(p).direction == CopyDir::P2P ? "peer" : "stream";
}

const std::string& app_gpu(const AppParams& p) {
  if (const auto* c = std::get_if<CopyExecParams>(&p)) return c->gpu;
  if (const auto* b = std::get_if<BatchParams>(&p)) return b->first_gpu();
  if (const auto* m = std::get_if<SpmdParams>(&p)) return m->gpu;
  if (const auto* t = std::get_if<PeriodicParams>(&p)) return t->gpu;
  return std::get<StreamParams>(p).gpu;
}

}  // namespace arbsim
