#include "models/gpu/sharing_model.h"
#include <algorithm>
#include <stdexcept>

namespace arbsim::gpu_sharing {

namespace {

void check(int n) {
  if (n < 1) throw std::invalid_argument("gpu_sharing: the number of processes must be >= 1");
}

}  // namespace

double total_without_sharing(const Phases& t, int n) {
  check(n);
  return n * (t.init + t.data_in + t.comp + t.data_out) + (n - 1) * t.ctx_switch;
}

double total_ps1(const Phases& t, int n) {
  check(n);
  return n * (t.data_in + t.data_out) + t.comp;
}

double total_ci_ps2(const Phases& t, int n) {
  check(n);
  return t.data_in + n * t.comp + t.data_out;
}

double total_ioi_ps2(const Phases& t, int n) {
  check(n);
  return n * std::max(t.data_in, t.data_out) + t.comp + std::min(t.data_in, t.data_out);
}

double speedup_ci(const Phases& t, int n) { return total_without_sharing(t, n) / total_ps1(t, n); }
double speedup_ioi(const Phases& t, int n) { return total_without_sharing(t, n) / total_ioi_ps2(t, n); }

double max_speedup_ci(const Phases& t) {
  return (t.init + t.data_in + t.comp + t.data_out + t.ctx_switch) / (t.data_in + t.data_out);
}

double max_speedup_ioi(const Phases& t) {
  return (t.init + t.data_in + t.comp + t.data_out + t.ctx_switch) / std::max(t.data_in, t.data_out);
}

}  // namespace arbsim::gpu_sharing
