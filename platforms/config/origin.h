// Where an element of a config, and each of its keys, is written: so a check made after
// loading (the topology's) names the file, the line and the dotted key as the loader does.
// No SystemC.
#pragma once
#include <map>
#include <string>
#include "platforms/config/config_error.h"

namespace arbsim {

struct KeyPlace {
  std::string file;
  int line = 0;            // 0: no line (a default, or a value from -s)
  std::string key;         // dotted path, e.g. "platform.links[2].down"
  std::string inherited;   // the key that took it from defaults.link ("" otherwise)
};

struct Origin {
  KeyPlace element;
  std::map<std::string, KeyPlace> keys;
  // The place of `key` (the element's own when the key is not written; "" = the element).
  KeyPlace at(const std::string& key) const;
  // Throws ConfigError "file:line: dotted.key: reason" for `key` ("" = the element).
  [[noreturn]] void fail(const std::string& key, const std::string& reason) const;
};

}  // namespace arbsim
