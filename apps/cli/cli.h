// The pcie-arbsim command line: subcommands and their shared options.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace arbsim {

struct RunArgs {
  std::string config, out_dir, vcd, sim_time, log_level;
  std::string vcd_window, vcd_filter;  // --vcd-window T0:T1, --vcd-filter GLOB[,GLOB...]
  std::string log_modules;             // --log MODULE=LEVEL[,...]
  std::string arbiter_impl;  // --arbiter-impl: "" (the config's), cpp or rtl
  std::string fidelity;      // --fidelity: "" (the config's sim.fidelity), packet or flow
  std::string trace, trace_window, trace_filter;  // --trace FILE, --trace-window T0:T1, --trace-filter GLOB
  bool detect = false;            // --detect: the detectors (docs/observability.md)
  std::string starvation_bound;   // --starvation-bound T
  bool progress = false;     // --progress: a progress line on stderr (also when stderr is a terminal)
  std::vector<std::string> overrides;
  std::optional<long long> seed;  // --seed (none: the config's sim.seed)
  std::string command_line;  // as typed (run.json records it)
};

// Exit codes: 0 success, 1 model/runtime error, 2 bad input (usage, config, an output
// directory that cannot be created or is in use), 3 the outputs could not be written
// completely (nothing of them is left).
constexpr int kExitOk = 0, kExitModelError = 1, kExitBadInput = 2, kExitIoError = 3;

int cmd_run(const RunArgs& a);
int cmd_validate(const RunArgs& a);
int cmd_predict(const RunArgs& a);
int cmd_jobs(const RunArgs& a);

}  // namespace arbsim
