// The one error a config raises: what is wrong, where (file:line: dotted.key: reason), on
// one line. The CLI turns it into exit code 2. No SystemC.
#pragma once
#include <stdexcept>
#include <string>

namespace arbsim {

// `text` with control characters (a newline in a quoted value) written as escapes, so an
// error message is always one line.
std::string one_line(const std::string& text);

class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(const std::string& what) : std::runtime_error(one_line(what)) {}
};

}  // namespace arbsim
