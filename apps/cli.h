// The pcie-arbsim command line: subcommands and their shared options.
#pragma once
#include <string>
#include <vector>

namespace arbsim {

struct RunArgs {
  std::string config, out_dir, vcd, sim_time, log_level;
  std::string arbiter_impl;  // --arbiter-impl: "" (the config's), cpp or rtl
  std::string fidelity;      // --fidelity: "" (the config's sim.fidelity), packet or flow
  std::vector<std::string> overrides;
  long long seed = -1;
};

// Exit codes: 0 success, 1 model/runtime error, 2 bad input (usage or config).
constexpr int kExitOk = 0, kExitModelError = 1, kExitBadInput = 2;

int cmd_run(const RunArgs& a);
int cmd_validate(const RunArgs& a);
int cmd_predict(const RunArgs& a);
// Writes `text` to `path` through a temporary file, so a reader never sees half a file.
void write_atomically(const std::string& path, const std::string& text);
// "300us", "0.3s", "1e6" (ns), "2ms" -> ns; false on bad text.
bool parse_duration_ns(const std::string& text, double* ns);

}  // namespace arbsim
