// Reads one YAML map of a config with the checks every key needs: unknown keys, wrong
// types, ranges. Each error names the file, the dotted key, the line (when YAML has one)
// and the reason, and is thrown as ConfigError (the CLI turns it into exit code 2).
// Defaults are written back into the tree, so the tree dumps as config.effective.yaml.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

namespace arbsim {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Reader {
 public:
  Reader(YAML::Node node, std::string path, std::string file);

  const std::string& path() const { return path_; }
  const std::string& file() const { return file_; }
  YAML::Node node() const { return node_; }
  bool has(const std::string& key) const;

  // Sub-map at `key` (created empty when absent or null, so its defaults land in the tree).
  Reader map(const std::string& key) const;
  // Elements of the sequence at `key` (none when absent or null).
  std::vector<Reader> list(const std::string& key) const;

  template <class T> T get(const std::string& key, const T& def) const;
  template <class T> T need(const std::string& key) const;
  // Byte counts: an integer or a string with a unit (B, KB, KiB, MB, MiB, GB, GiB); > 0.
  uint64_t bytes(const std::string& key, uint64_t def) const;
  uint64_t need_bytes(const std::string& key) const;
  double positive(const std::string& key, double def) const;     // > 0
  double non_negative(const std::string& key, double def) const; // >= 0
  // A time in ns: 0 <= v <= kMaxTimeNs.
  double time_ns(const std::string& key, double def) const;
  double number_in(const std::string& key, double def, double lo, double hi) const;
  int int_in(const std::string& key, int def, int lo, int hi) const;
  std::string one_of(const std::string& key, const std::string& def,
                     std::initializer_list<const char*> allowed) const;

  // Every key present must be one of `keys`, and appear once.
  void allow(std::initializer_list<const char*> keys) const;
  // Fails unless `value` (the string at `key`) is a valid name (valid_name()).
  void check_name(const std::string& key, const std::string& value) const;
  [[noreturn]] void fail(const std::string& key, const std::string& reason) const;

 private:
  template <class T> T convert(const std::string& key, const YAML::Node& v) const;
  std::string where(const YAML::Node& n) const;
  YAML::Node lookup(const std::string& key) const;
  mutable YAML::Node node_;  // defaults are written back (see class comment)
  std::string path_, file_;
};

// Longest time a config may give (ns). SystemC counts time in 64-bit picoseconds
// (~1.8e16 ns); a cap well below keeps sums of times (start + iterations) from wrapping.
constexpr double kMaxTimeNs = 1e15;

// Names of nodes, links and apps: letters, digits, '_' and '-'. SystemC module names may
// not hold '.' or spaces, and `-s` keys split on '.' and '='.
bool valid_name(const std::string& name);

// Parses "64", "64B", "4 KiB", "1.5MB" into bytes; false on bad text.
bool parse_bytes(const std::string& text, uint64_t* out);
// A YAML scalar as shown in messages.
std::string scalar_text(const YAML::Node& n);

}  // namespace arbsim
