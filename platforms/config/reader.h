// Reads one YAML map of a config with the checks every key needs: unknown keys, wrong
// types, ranges. Each error names the file, the dotted key, the line (when YAML has one)
// and the reason, and is thrown as ConfigError (the CLI turns it into exit code 2).
// Defaults are written back into the tree, so the tree dumps as config.effective.yaml.
#pragma once
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>
#include "platforms/config/config_error.h"
#include "platforms/config/origin.h"

namespace arbsim {

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
  double number_in(const std::string& key, double def, double lo, double hi) const;
  // A time in ns, a plain number or with a unit ("200us", "1.5 ms": parse_time_ns), in
  // [lo, hi]. time_ns: 0 <= v <= kMaxTimeNs; latency_ns: 0 <= v <= kMaxLatencyNs.
  double time_in(const std::string& key, double def, double lo, double hi) const;
  double time_ns(const std::string& key, double def) const;
  double latency_ns(const std::string& key, double def) const;
  // A rate in GB/s, a plain number or with a unit ("12 GB/s", "400Gb/s": parse_rate_GBps),
  // in [lo, hi].
  double rate_in(const std::string& key, double def, double lo, double hi) const;
  int int_in(const std::string& key, int def, int lo, int hi) const;
  std::string one_of(const std::string& key, const std::string& def,
                     std::initializer_list<const char*> allowed) const;
  std::string one_of(const std::string& key, const std::string& def, const std::vector<std::string>& allowed) const;

  // Every key present must be one of `keys`, and appear once.
  void allow(std::initializer_list<const char*> keys) const;
  void allow(const std::vector<std::string>& keys) const;
  // Fails unless `value` (the string at `key`) is a valid name (valid_name()).
  void check_name(const std::string& key, const std::string& value) const;
  [[noreturn]] void fail(const std::string& key, const std::string& reason) const;
  // Where this map and each key written in it are (inherited keys: where they are written).
  Origin origin() const;
  KeyPlace place(const std::string& key) const;

  // `key` was copied into this map from `from` (a link's keys from `defaults.link`): an error
  // in it is reported at `from`'s line and key, naming this map as the one that inherited it.
  void inherit(const std::string& key, const Reader& from);
  // `key`, with all under it, was written in `file` (a key of `platform: {include: F, ...}`
  // replacing the included file's): its errors name that file, at the lines there.
  void written_in(const std::string& key, const std::string& file);

 private:
  template <class T> T convert(const std::string& key, const YAML::Node& v) const;
  double quantity(const std::string& key, double def, bool (*parse)(const std::string&, double*),
                  const char* example) const;
  void check_range(const std::string& key, double v, double lo, double hi) const;
  std::string where(const YAML::Node& n) const;
  YAML::Node lookup(const std::string& key) const;
  mutable YAML::Node node_;  // defaults are written back (see class comment)
  std::string path_, file_;
  // Where errors in inherited keys are reported: per key, or for a whole map copied from
  // elsewhere (a sub-map of an inherited key).
  std::shared_ptr<std::map<std::string, Reader>> inherited_;
  std::shared_ptr<Reader> origin_;
  std::shared_ptr<std::map<std::string, std::string>> written_in_;  // key -> file (written_in())
  const std::string& file_of(const std::string& key) const;
};

// Longest latency a config may give a link, switch or completer (ns): 1 s, far above any
// real part (ns to us), and small enough that a path's latencies summed with a run's
// duration stay exact at 1 ps in double precision (the batch predictor's clock).
constexpr double kMaxLatencyNs = 1e9;

// "300us", "0.3 s", "1e6" (ns), "2ms", "500ps", "10min", "1h" -> ns; false on bad text (ranges are the
// caller's).
bool parse_time_ns(const std::string& text, double* ns);
// "12", "12GB/s", "12 GBps", "100Gb/s", "400 Gbps", "500MB/s", "1.5TB/s" -> GB/s (10^9 B/s);
// false on bad text.
bool parse_rate_GBps(const std::string& text, double* gbps);

// Longest time a config may give (ns). SystemC counts time in 64-bit picoseconds
// (~1.8e16 ns); a cap well below keeps sums of times (start + iterations) from wrapping.
constexpr double kMaxTimeNs = 1e15;
// Largest byte count a config may give (a copy, a phase, a batch stream): 1 PB, which even
// at 1 B/ns stays within kMaxTimeNs (5e17 B of a copy overflowed the flow mode's time).
constexpr double kMaxBytes = 1e15;

// Names of nodes, links and apps: letters, digits, '_' and '-'. SystemC module names may
// not hold '.' or spaces, and `-s` keys split on '.' and '='.
bool valid_name(const std::string& name);

// Parses "64", "64B", "4 KiB", "1.5MB" into bytes; false on bad text.
bool parse_bytes(const std::string& text, uint64_t* out);
// The file at `path`, read whole; ConfigError naming the path and the reason (missing, a
// directory, a symlink loop, a name too long, unreadable) otherwise. Never throws anything else.
std::string read_text_file(const std::string& path);
// What is at `path` (not_found, regular, directory, ...), without throwing; `why` gets the
// reason when it cannot be told (none is returned then).
std::filesystem::file_type file_type_at(const std::string& path, std::string* why);
bool is_regular_file_at(const std::string& path);

// A YAML scalar as shown in messages.
std::string scalar_text(const YAML::Node& n);

}  // namespace arbsim
