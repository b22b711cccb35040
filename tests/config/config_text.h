// Helpers of the config-error tests (test_config_errors.cpp, test_mig_config.cpp): edit a
// config text and read the ConfigError it raises. No SystemC.
#pragma once
#include <stdexcept>
#include <string>
#include "platforms/config/config_error.h"
#include "platforms/topology/scenario.h"

namespace arbsim::test {

// `s` with the first `from` replaced by `to`; throws if the text lacks `from`.
inline std::string replace(std::string s, const std::string& from, const std::string& to) {
  const std::size_t at = s.find(from);
  if (at == std::string::npos) throw std::logic_error("test text lacks " + from);
  return s.replace(at, from.size(), to);
}

// The message of the ConfigError `yaml` raises, loaded as "bad.yaml" ("" if it loads).
inline std::string error_of(const std::string& yaml) {
  try {
    load_scenario_text(yaml, {}, "bad.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace arbsim::test
