#include "platforms/config_reader.h"
#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <sstream>

namespace arbsim {

namespace {
std::string join_key(const std::string& path, const std::string& key) {
  return path.empty() ? key : key.empty() ? path : path + "." + key;
}
template <class T> const char* type_name();
template <> const char* type_name<int>() { return "an integer"; }
template <> const char* type_name<int64_t>() { return "an integer"; }
template <> const char* type_name<double>() { return "a number"; }
template <> const char* type_name<bool>() { return "true or false"; }
template <> const char* type_name<std::string>() { return "a string"; }
template <> const char* type_name<std::vector<int>>() { return "a list of integers"; }
}  // namespace

std::string scalar_text(const YAML::Node& n) {
  if (n.IsScalar()) return "'" + n.Scalar() + "'";
  if (n.IsSequence()) return "a list";
  if (n.IsMap()) return "a map";
  return "nothing";
}

Reader::Reader(YAML::Node node, std::string path, std::string file)
    : node_(node), path_(std::move(path)), file_(std::move(file)) {
  if (!node_.IsMap()) fail("", "expected a map of keys, got " + scalar_text(node_));
}

// Nodes without a mark were set by `-s` or filled in as defaults: no line to give.
std::string Reader::where(const YAML::Node& n) const {
  const YAML::Mark m = n.Mark();
  return m.line >= 0 ? file_ + ":" + std::to_string(m.line + 1) : file_;
}

// Points at the value; an empty value (`apps:`) has its mark on the token after it, so
// then at the key.
void Reader::fail(const std::string& key, const std::string& reason) const {
  YAML::Node at = !key.empty() && has(key) ? lookup(key) : node_;
  if (!key.empty() && at.IsNull())
    for (const auto& kv : node_)
      if (kv.first.Scalar() == key) at = kv.first;
  throw ConfigError(where(at) + ": " + join_key(path_, key) + ": " + reason);
}

// Const lookup: a missing key is not inserted into the tree.
YAML::Node Reader::lookup(const std::string& key) const {
  const YAML::Node& c = node_;
  return c[key];
}

bool Reader::has(const std::string& key) const { return node_.IsMap() && static_cast<bool>(lookup(key)); }

// An empty section (`sim:` with nothing under it) reads as an empty map.
Reader Reader::map(const std::string& key) const {
  if (!has(key) || lookup(key).IsNull()) node_[key] = YAML::Node(YAML::NodeType::Map);
  return Reader(node_[key], join_key(path_, key), file_);
}

std::vector<Reader> Reader::list(const std::string& key) const {
  std::vector<Reader> out;
  if (!has(key) || lookup(key).IsNull()) return out;  // `apps:` with nothing under it: no elements
  YAML::Node seq = lookup(key);
  if (!seq.IsSequence()) fail(key, "expected a list, got " + scalar_text(seq));
  for (std::size_t i = 0; i < seq.size(); ++i)
    out.emplace_back(seq[i], join_key(path_, key) + "[" + std::to_string(i) + "]", file_);
  return out;
}

template <class T>
T Reader::convert(const std::string& key, const YAML::Node& v) const {
  try {
    if constexpr (std::is_same_v<T, std::vector<int>>) {
      if (!v.IsSequence()) throw YAML::Exception(YAML::Mark(), "");
    } else if (!v.IsScalar()) {
      throw YAML::Exception(YAML::Mark(), "");
    }
    return v.as<T>();
  } catch (const YAML::Exception&) {
    fail(key, std::string("expected ") + type_name<T>() + ", got " + scalar_text(v));
  }
}

template <class T>
T Reader::get(const std::string& key, const T& def) const {
  if (!has(key)) {
    node_[key] = def;
    return def;
  }
  return convert<T>(key, lookup(key));
}

template <class T>
T Reader::need(const std::string& key) const {
  if (!has(key)) fail(key, "required key is missing");
  return convert<T>(key, lookup(key));
}

template int Reader::get<int>(const std::string&, const int&) const;
template int64_t Reader::get<int64_t>(const std::string&, const int64_t&) const;
template double Reader::get<double>(const std::string&, const double&) const;
template bool Reader::get<bool>(const std::string&, const bool&) const;
template std::string Reader::get<std::string>(const std::string&, const std::string&) const;
template std::vector<int> Reader::get<std::vector<int>>(const std::string&, const std::vector<int>&) const;
template int Reader::need<int>(const std::string&) const;
template double Reader::need<double>(const std::string&) const;
template std::string Reader::need<std::string>(const std::string&) const;
template std::vector<int> Reader::need<std::vector<int>>(const std::string&) const;

bool parse_bytes(const std::string& text, uint64_t* out) {
  std::istringstream in(text);
  double value = 0;
  if (!(in >> value)) return false;
  std::string unit;
  in >> std::ws;
  std::getline(in, unit);
  static const std::pair<const char*, double> units[] = {
      {"", 1}, {"B", 1}, {"KB", 1e3}, {"KiB", 1024.0}, {"MB", 1e6}, {"MiB", 1048576.0},
      {"GB", 1e9}, {"GiB", 1073741824.0}};
  for (const auto& [name, scale] : units)
    if (unit == name) {
      const double b = std::round(value * scale);
      if (!(b > 0) || b > 1.8e19) return false;
      *out = static_cast<uint64_t>(b);
      return true;
    }
  return false;
}

uint64_t Reader::need_bytes(const std::string& key) const {
  if (!has(key)) fail(key, "required key is missing");
  return bytes(key, 1);
}

uint64_t Reader::bytes(const std::string& key, uint64_t def) const {
  if (!has(key)) {
    node_[key] = def;
    return def;
  }
  const YAML::Node v = lookup(key);
  uint64_t b = 0;
  if (!v.IsScalar() || !parse_bytes(v.Scalar(), &b))
    fail(key, "expected a positive byte count (e.g. 4096, 64KiB, 1MiB), got " + scalar_text(v));
  return b;
}

double Reader::positive(const std::string& key, double def) const {
  const double v = get<double>(key, def);
  if (!(v > 0) || !std::isfinite(v)) fail(key, "must be > 0, got " + scalar_text(lookup(key)));
  return v;
}

double Reader::non_negative(const std::string& key, double def) const {
  const double v = get<double>(key, def);
  if (!(v >= 0) || !std::isfinite(v)) fail(key, "must be >= 0, got " + scalar_text(lookup(key)));
  return v;
}

double Reader::number_in(const std::string& key, double def, double lo, double hi) const {
  const double v = get<double>(key, def);
  if (!(v >= lo && v <= hi)) {
    std::ostringstream range;
    range << "must be in [" << lo << ", " << hi << "], got ";
    fail(key, range.str() + scalar_text(lookup(key)));
  }
  return v;
}

double Reader::time_ns(const std::string& key, double def) const {
  return number_in(key, def, 0, kMaxTimeNs);
}

int Reader::int_in(const std::string& key, int def, int lo, int hi) const {
  const int v = get<int>(key, def);
  if (v < lo || v > hi)
    fail(key, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                  std::to_string(v));
  return v;
}

std::string Reader::one_of(const std::string& key, const std::string& def,
                           std::initializer_list<const char*> allowed) const {
  const std::string v = get<std::string>(key, def);
  std::string list;
  for (const char* a : allowed) {
    if (v == a) return v;
    list += std::string(list.empty() ? "" : ", ") + a;
  }
  fail(key, "must be one of " + list + ", got '" + v + "'");
}

void Reader::allow(std::initializer_list<const char*> keys) const {
  std::set<std::string> seen;
  for (const auto& kv : node_) {
    const std::string k = kv.first.Scalar();
    // yaml-cpp keeps both copies of a repeated key and lookups see only the first.
    if (!seen.insert(k).second)
      throw ConfigError(where(kv.first) + ": " + join_key(path_, k) + ": key given twice in one map");
    if (std::none_of(keys.begin(), keys.end(), [&](const char* a) { return k == a; })) {
      std::string list;
      for (const char* a : keys) list += std::string(list.empty() ? "" : ", ") + a;
      throw ConfigError(where(kv.first) + ": " + join_key(path_, k) + ": unknown key (known: " + list + ")");
    }
  }
}

bool valid_name(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

void Reader::check_name(const std::string& key, const std::string& value) const {
  if (!valid_name(value))
    fail(key, "'" + value + "' is not a valid name (use letters, digits, '_' and '-')");
}

}  // namespace arbsim
