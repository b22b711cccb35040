// One simulation: elaborate the platform from a config, optionally trace a VCD, run, and
// collect results. SystemC elaborates once per process, so call this once per process.
#pragma once
#include <memory>
#include <string>
#include <nlohmann/json.hpp>
#include "platforms/platform.h"

namespace arbsim {

struct SimOutcome {
  std::unique_ptr<Platform> platform;   // kept for inspection after the run
  nlohmann::ordered_json results;
  sc_core::sc_time end;
  double wall_seconds = 0;
};

SimOutcome simulate(const Config& cfg, const std::string& vcd_path = "");

// load_config for YAML text (tests and tools); `name` stands for the file in messages and
// includes resolve against the current directory.
Config load_config_text(const std::string& yaml, const std::vector<std::string>& overrides = {},
                        const std::string& name = "<config>");

}  // namespace arbsim
