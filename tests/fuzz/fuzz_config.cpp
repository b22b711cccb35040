// libFuzzer target over config loading and validation (issue 9), through the scenario's
// cross-element checks (platforms/topology): any bytes as a config file must either load or fail with ConfigError (the CLI's exit 2 with one line) - never crash,
// hang, take unbounded memory, or throw anything else. The seed corpus is every config of
// configs/ and tests/data/; includes resolve against configs/ (CONFIG_DIR) so the fuzzer
// reaches platform files too. Built with clang by scripts/fuzz (tests/fuzz/CMakeLists.txt).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include "platforms/topology/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    arbsim::make_scenario(arbsim::load_config_yaml(text, "<fuzz>", CONFIG_DIR, {}));
  } catch (const arbsim::ConfigError& e) {
    const std::string what = e.what();
    if (what.find('\n') != std::string::npos) std::abort();  // every error is one line
  }
  return 0;  // anything else escaping is a finding (libFuzzer reports the uncaught exception)
}
