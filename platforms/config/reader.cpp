#include "platforms/config/reader.h"
#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <filesystem>
#include <fstream>
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

std::string one_line(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) out += '?';
    else out += c;
  }
  return out;
}

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
void Reader::fail(const std::string& key, const std::string& reason) const { Origin{place(key), {}}.fail("", reason); }

KeyPlace Reader::place(const std::string& key) const {
  if (origin_) {
    KeyPlace p = origin_->place(key);
    p.inherited = join_key(path_, key);
    return p;
  }
  if (inherited_ && inherited_->count(key)) {
    KeyPlace p = inherited_->at(key).place(key);
    p.inherited = join_key(path_, key);
    return p;
  }
  YAML::Node at = !key.empty() && has(key) ? lookup(key) : node_;
  if (!key.empty() && at.IsNull())
    for (const auto& kv : node_)
      if (kv.first.Scalar() == key) at = kv.first;
  const YAML::Mark m = at.Mark();
  return {file_of(key), m.line >= 0 ? m.line + 1 : 0, join_key(path_, key), ""};
}

void Reader::written_in(const std::string& key, const std::string& file) {
  if (!written_in_) written_in_ = std::make_shared<std::map<std::string, std::string>>();
  (*written_in_)[key] = file;
}

const std::string& Reader::file_of(const std::string& key) const {
  if (written_in_ && !key.empty())
    if (const auto it = written_in_->find(key); it != written_in_->end()) return it->second;
  return file_;
}

Origin Reader::origin() const {
  Origin o;
  o.element = place("");
  for (const auto& kv : node_) o.keys[kv.first.Scalar()] = place(kv.first.Scalar());
  if (inherited_)
    for (const auto& [key, from] : *inherited_) o.keys[key] = place(key);
  return o;
}

KeyPlace Origin::at(const std::string& key) const {
  const auto it = keys.find(key);
  if (key.empty() || it == keys.end()) {
    KeyPlace p = element;
    if (!key.empty()) p.key += "." + key;
    return p;
  }
  return it->second;
}

void Origin::fail(const std::string& key, const std::string& reason) const {
  const KeyPlace p = key.empty() ? element : at(key);
  const std::string where = p.line > 0 ? p.file + ":" + std::to_string(p.line) : p.file;
  throw ConfigError(where + ": " + p.key + ": " + reason +
                    (p.inherited.empty() ? "" : " (inherited by " + p.inherited + ")"));
}

void Reader::inherit(const std::string& key, const Reader& from) {
  if (!inherited_) inherited_ = std::make_shared<std::map<std::string, Reader>>();
  inherited_->emplace(key, from);
}

// Const lookup: a missing key is not inserted into the tree.
YAML::Node Reader::lookup(const std::string& key) const {
  const YAML::Node& c = node_;
  return c[key];
}

bool Reader::has(const std::string& key) const { return node_.IsMap() && static_cast<bool>(lookup(key)); }

// An empty section (`sim:` with nothing under it) reads as an empty map. A sub-map of an
// inherited key reports its errors where it was inherited from.
Reader Reader::map(const std::string& key) const {
  if (!has(key) || lookup(key).IsNull()) node_[key] = YAML::Node(YAML::NodeType::Map);
  Reader child(node_[key], join_key(path_, key), file_of(key));
  const Reader* from = origin_ ? origin_.get() : inherited_ && inherited_->count(key) ? &inherited_->at(key) : nullptr;
  if (from && from->has(key) && from->lookup(key).IsMap()) child.origin_ = std::make_shared<Reader>(from->map(key));
  return child;
}

std::vector<Reader> Reader::list(const std::string& key) const {
  std::vector<Reader> out;
  if (!has(key) || lookup(key).IsNull()) return out;  // `apps:` with nothing under it: no elements
  YAML::Node seq = lookup(key);
  if (!seq.IsSequence()) fail(key, "expected a list, got " + scalar_text(seq));
  for (std::size_t i = 0; i < seq.size(); ++i)
    out.emplace_back(seq[i], join_key(path_, key) + "[" + std::to_string(i) + "]", file_of(key));
  return out;
}

// Where an integer's digits start (after a sign), and whether it opens with a 0 followed by
// more: yaml-cpp reads 010 as octal 8 and 0x10 as 16, where the same digits as a size are 10
// bytes and 08 is an error; integers are read one way, in decimal.
static std::size_t digits_from(const std::string& t) { return !t.empty() && (t[0] == '+' || t[0] == '-') ? 1 : 0; }
static bool leading_zero(const std::string& t) { return digits_from(t) + 1 < t.size() && t[digits_from(t)] == '0'; }
static bool decimal_integer(const YAML::Node& v) {
  const std::string& t = v.Scalar();
  if (digits_from(t) == t.size() || leading_zero(t)) return false;
  return std::all_of(t.begin() + static_cast<std::ptrdiff_t>(digits_from(t)), t.end(), [](char c) { return c >= '0' && c <= '9'; });
}

template <class T>
T Reader::convert(const std::string& key, const YAML::Node& v) const {
  try {
    if constexpr (std::is_same_v<T, std::vector<int>>) {
      if (!v.IsSequence()) throw YAML::Exception(YAML::Mark(), "");
      for (const YAML::Node& x : v)
        if (!x.IsScalar() || !decimal_integer(x)) throw YAML::Exception(YAML::Mark(), "");
    } else if (!v.IsScalar()) {
      throw YAML::Exception(YAML::Mark(), "");
    } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (leading_zero(v.Scalar()))
        fail(key, "expected an integer in decimal digits (no leading zero, no 0x), got " + scalar_text(v));
      if (!decimal_integer(v)) throw YAML::Exception(YAML::Mark(), "");
    } else if constexpr (std::is_same_v<T, bool>) {
      // YAML 1.2's true and false only: yaml-cpp also reads YAML 1.1's yes/no/on/off/y/n,
      // which a list of names or a typo can hit unseen (`ecrc: yes` was on, `ecrc: 1` an
      // error), so they are refused with the rest.
      static const std::set<std::string> kTrue = {"true", "True", "TRUE"}, kFalse = {"false", "False", "FALSE"};
      if (kTrue.count(v.Scalar())) return T(true);
      if (kFalse.count(v.Scalar())) return T(false);
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
      {"GB", 1e9}, {"GiB", 1073741824.0}, {"TB", 1e12}, {"TiB", 1099511627776.0}};
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
  if (!v.IsScalar() || !parse_bytes(v.Scalar(), &b) || static_cast<double>(b) > kMaxBytes) {
    // A positive size under half a byte rounds to none: say so ("0.4" read as not positive).
    double x = 0;
    std::istringstream in(v.IsScalar() ? v.Scalar() : "");
    const bool rounds_to_zero = (in >> x) && x > 0 && x < 0.5 && (in >> std::ws).eof();
    fail(key, std::string("expected a positive byte count of at most 1e15, a number with one of the units B, KB, "
                          "KiB, MB, MiB, GB, GiB, TB, TiB (e.g. 4096, 64KiB, 1MiB), got ") +
                  scalar_text(v) + (rounds_to_zero ? ", which rounds to 0 whole bytes" : ""));
  }
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
  check_range(key, v, lo, hi);
  return v;
}

void Reader::check_range(const std::string& key, double v, double lo, double hi) const {
  if (v >= lo && v <= hi) return;
  std::ostringstream range;
  range << "must be in [" << lo << ", " << hi << "], got ";
  fail(key, range.str() + scalar_text(lookup(key)));
}

// A number, or text the unit parser reads; written back as given (config.effective.yaml
// keeps "200us").
double Reader::quantity(const std::string& key, double def, bool (*parse)(const std::string&, double*),
                        const char* example) const {
  if (!has(key)) {
    node_[key] = def;
    return def;
  }
  const YAML::Node v = lookup(key);
  double out = 0;
  if (v.IsScalar() && parse(v.Scalar(), &out) && std::isfinite(out)) return out;
  fail(key, std::string("expected ") + example + ", got " + scalar_text(v));
}

double Reader::time_in(const std::string& key, double def, double lo, double hi) const {
  const double v = quantity(key, def, parse_time_ns, "a time in ns, or with a unit (e.g. 1500, 200us, 1.5ms)");
  check_range(key, v, lo, hi);
  return v;
}

double Reader::time_ns(const std::string& key, double def) const { return time_in(key, def, 0, kMaxTimeNs); }

double Reader::latency_ns(const std::string& key, double def) const { return time_in(key, def, 0, kMaxLatencyNs); }

double Reader::rate_in(const std::string& key, double def, double lo, double hi) const {
  const double v = quantity(key, def, parse_rate_GBps, "a rate in GB/s, or with a unit (e.g. 12, 12GB/s, 400Gb/s)");
  check_range(key, v, lo, hi);
  return v;
}

namespace {

// A number and the rest of the text after it (spaces skipped); false when no number leads.
bool split_number(const std::string& text, double* value, std::string* unit) {
  std::istringstream in(text);
  if (!(in >> *value)) return false;
  in >> std::ws;
  std::getline(in, *unit);
  return true;
}

bool scaled(const std::string& text, std::initializer_list<std::pair<const char*, double>> units, double* out) {
  double v = 0;
  std::string unit;
  if (!split_number(text, &v, &unit) || !std::isfinite(v)) return false;
  for (const auto& [name, scale] : units)
    if (unit == name) {
      *out = v * scale;
      return true;
    }
  return false;
}

}  // namespace

bool parse_time_ns(const std::string& text, double* ns) {
  return scaled(text, {{"", 1}, {"ps", 1e-3}, {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"min", 60e9}, {"h", 3600e9}}, ns);
}

bool parse_rate_GBps(const std::string& text, double* gbps) {
  return scaled(text, {{"", 1}, {"GB/s", 1}, {"GBps", 1}, {"Gb/s", 0.125}, {"Gbps", 0.125}, {"MB/s", 1e-3},
                       {"MBps", 1e-3}, {"Mb/s", 1.25e-4}, {"TB/s", 1e3}, {"Tb/s", 125}},
                gbps);
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
  return one_of(key, def, std::vector<std::string>(allowed.begin(), allowed.end()));
}

std::string Reader::one_of(const std::string& key, const std::string& def,
                           const std::vector<std::string>& allowed) const {
  const std::string v = get<std::string>(key, def);
  std::string list;
  for (const std::string& a : allowed) {
    if (v == a) return v;
    list += (list.empty() ? "" : ", ") + a;
  }
  fail(key, "must be one of " + list + ", got '" + v + "'");
}

void Reader::allow(std::initializer_list<const char*> keys) const {
  allow(std::vector<std::string>(keys.begin(), keys.end()));
}

void Reader::allow(const std::vector<std::string>& keys) const {
  if (origin_) origin_->allow(keys);  // the same keys, with their own lines
  std::set<std::string> seen;
  for (const auto& kv : node_) {
    const std::string k = kv.first.Scalar();
    // yaml-cpp keeps both copies of a repeated key and lookups see only the first.
    if (!seen.insert(k).second)
      throw ConfigError(where(kv.first) + ": " + join_key(path_, k) + ": key given twice in one map");
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) {
      std::string list;
      for (const std::string& a : keys) list += (list.empty() ? "" : ", ") + a;
      throw ConfigError(where(kv.first) + ": " + join_key(path_, k) + ": unknown key (known: " + list + ")");
    }
  }
}

// What is at `path`, without throwing: a path too long, a symlink loop or a permission
// problem is a config error naming the path, like a missing file.
std::filesystem::file_type file_type_at(const std::string& path, std::string* why) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (st.type() == std::filesystem::file_type::not_found) {
    *why = "no such file";
    return st.type();
  }
  if (ec) *why = ec.message();
  return ec ? std::filesystem::file_type::none : st.type();
}

std::string read_text_file(const std::string& path) {
  std::string why;
  const std::filesystem::file_type type = file_type_at(path, &why);
  if (type == std::filesystem::file_type::directory) throw ConfigError(path + ": cannot open file: it is a directory");
  if (type != std::filesystem::file_type::regular) {
    if (why.empty()) why = "not a regular file";
    throw ConfigError(path + ": cannot open file: " + why);
  }
  std::ifstream in(path);
  if (!in) throw ConfigError(path + ": cannot open file: not readable");
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ConfigError(path + ": cannot read file");
  return text.str();
}

bool is_regular_file_at(const std::string& path) {
  std::string why;
  return file_type_at(path, &why) == std::filesystem::file_type::regular;
}

bool valid_name(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

void Reader::check_name(const std::string& key, const std::string& value) const {
  if (!valid_name(value))
    fail(key, "'" + value + "' is not a valid name (use letters, digits, '_' and '-')");
  // `-s apps.1.count=7` names a list element by index first: an all-digit name could never
  // be picked (an app named "1" at index 0 was silently the other one; a user trial).
  if (std::all_of(value.begin(), value.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    fail(key, "'" + value + "' is all digits, which -s reads as a list index: give the name a letter");
}

}  // namespace arbsim
