// A small VCD reader for tests: each signal by its dotted name below the top scope, with its
// value changes in time order (the initial values at the time before them, 0 if none).
#pragma once
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace arbsim::test {

using VcdChanges = std::map<std::string, std::vector<std::pair<uint64_t, std::string>>>;

inline VcdChanges read_vcd(const std::string& text) {
  std::istringstream in(text);
  std::map<std::string, std::vector<std::string>> names;  // id -> dotted names
  std::vector<std::string> scope;
  for (std::string word; in >> word && word != "$enddefinitions";) {
    if (word == "$scope") {
      std::string kind, name;
      in >> kind >> name;
      scope.push_back(name);
    } else if (word == "$upscope") {
      scope.pop_back();
    } else if (word == "$var") {
      std::string type, width, id, name, full;
      in >> type >> width >> id >> name;
      for (std::size_t k = 1; k < scope.size(); ++k) full += scope[k] + ".";
      names[id].push_back(full + name);
    }
  }
  VcdChanges out;
  uint64_t t = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '$') continue;
    if (line[0] == '#') {
      t = std::stoull(line.substr(1));
      continue;
    }
    std::string id, value;
    if (line[0] == 'b' || line[0] == 'r') {
      const std::size_t sp = line.find(' ');
      value = line.substr(1, sp - 1);
      id = line.substr(sp + 1);
    } else {
      value = line.substr(0, 1);
      id = line.substr(1);
    }
    for (const std::string& n : names[id]) out[n].push_back({t, value});
  }
  return out;
}

// A signal's value at the end of time t ("" when it has none yet).
inline std::string vcd_value_at(const std::vector<std::pair<uint64_t, std::string>>& changes, uint64_t t) {
  std::string v;
  for (const auto& [at, value] : changes)
    if (at <= t) v = value;
  return v;
}

}  // namespace arbsim::test
