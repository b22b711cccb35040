// Loading a config file: YAML parse errors, the `platform:` include, `-s` overrides, and
// the top-level sections. Platform and app parsing live in config_platform.cpp and
// config_apps.cpp.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include "platforms/config.h"
#include "platforms/config_parse.h"
#include "platforms/config_reader.h"

namespace arbsim {

namespace fs = std::filesystem;

namespace {

YAML::Node parse_text(const std::string& text, const std::string& path) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw ConfigError(path + ": file is empty");
  try {
    YAML::Node n = YAML::Load(text);
    if (!n.IsMap()) throw ConfigError(path + ": top level must be a map of keys, got " + scalar_text(n));
    return n;
  } catch (const YAML::Exception& e) {
    const std::string line = e.mark.line >= 0 ? ":" + std::to_string(e.mark.line + 1) : "";
    throw ConfigError(path + line + ": YAML syntax error: " + e.msg);
  }
}

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw ConfigError(path + ": cannot open file: no such file");
  if (fs::is_directory(path, ec)) throw ConfigError(path + ": cannot open file: it is a directory");
  std::ifstream in(path);
  if (!in) throw ConfigError(path + ": cannot open file: not readable");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

YAML::Node load_file(const std::string& path) { return parse_text(read_file(path), path); }

// A copy of `n` without source marks: a value from `-s` has no line in any file, and the
// marks YAML::Load gives it (line 1 of the override text) would point into the config.
YAML::Node unmarked(const YAML::Node& n) {
  if (n.IsScalar()) return YAML::Node(n.Scalar());
  YAML::Node out(n.IsMap() ? YAML::NodeType::Map : n.IsSequence() ? YAML::NodeType::Sequence
                                                                    : YAML::NodeType::Null);
  if (n.IsSequence())
    for (const YAML::Node& e : n) out.push_back(unmarked(e));
  if (n.IsMap())
    for (const auto& kv : n) out[kv.first.Scalar()] = unmarked(kv.second);
  return out;
}

// The list element `seg` names: an index, the element's `name`, or for a link without a
// name its default name "up-down". Null when there is none.
YAML::Node list_element(const YAML::Node& seq, const std::string& seg) {
  const bool numeric = seg.size() <= 9 && seg.find_first_not_of("0123456789") == std::string::npos;
  if (numeric) return std::stoul(seg) < seq.size() ? seq[std::stoul(seg)] : YAML::Node();
  for (const YAML::Node& e : seq) {
    if (!e.IsMap()) continue;
    const YAML::Node name = e["name"], up = e["up"], down = e["down"];
    if (name ? name.IsScalar() && name.Scalar() == seg
             : up && down && up.IsScalar() && down.IsScalar() && up.Scalar() + "-" + down.Scalar() == seg)
      return e;
  }
  return YAML::Node();
}

struct Override {
  std::vector<std::string> keys;
  YAML::Node value;
};

// Splits "dotted.key=value"; the value is YAML ("4", "[1, 2]", "{type: rr}").
Override parse_override(const std::string& spec, const std::string& file) {
  const std::string at = file + ": -s " + spec + ": ";
  const auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0) throw ConfigError(at + "expected dotted.key=value");
  Override o;
  std::stringstream ss(spec.substr(0, eq));
  for (std::string p; std::getline(ss, p, '.');) o.keys.push_back(p);
  if (spec[eq - 1] == '.' || std::count(o.keys.begin(), o.keys.end(), "") > 0)
    throw ConfigError(at + "empty key segment");
  try {
    o.value = unmarked(YAML::Load(spec.substr(eq + 1)));
  } catch (const YAML::Exception& e) {
    throw ConfigError(at + "value is not valid YAML: " + e.msg);
  }
  return o;
}

// Walks the keys (map keys, or list elements by list_element()), creating maps as
// needed, and sets the leaf. Maps are reached through a const handle: yaml-cpp's
// non-const operator[] would add every key it looks at.
void apply_override(YAML::Node root, const std::string& spec, const std::string& file) {
  const Override o = parse_override(spec, file);
  const std::string at = file + ": -s " + spec + ": ";
  YAML::Node cur = root;
  for (std::size_t i = 0; i < o.keys.size(); ++i) {
    const std::string& k = o.keys[i];
    const bool last = i + 1 == o.keys.size();
    YAML::Node next;
    if (cur.IsSequence()) {
      next = list_element(cur, k);
      if (next.IsNull()) throw ConfigError(at + "no list element '" + k + "' (give an index or a name)");
      if (last) throw ConfigError(at + "cannot replace a whole list element; set its keys");
    } else if (cur.IsMap() || cur.IsNull()) {
      if (last) {
        cur[k] = o.value;
        return;
      }
      const YAML::Node& c = cur;
      if (!c[k] || c[k].IsNull()) cur[k] = YAML::Node(YAML::NodeType::Map);
      next = c[k];
    } else {
      throw ConfigError(at + "'" + k + "' is under a value that is not a map or a list");
    }
    cur.reset(next);
  }
}

// `platform: FILE` includes a platform file, relative to the config's directory. Returns
// the file platform keys live in (for messages).
std::string include_platform(YAML::Node root, const std::string& path, const std::string& base_dir) {
  const YAML::Node& c = root;
  if (!c["platform"] || !c["platform"].IsScalar()) return path;
  const std::string file = (fs::path(base_dir) / c["platform"].Scalar()).lexically_normal().string();
  if (!fs::is_regular_file(file))
    throw ConfigError(path + ":" + std::to_string(c["platform"].Mark().line + 1) +
                      ": platform: included file '" + file + "' does not exist or is not a file");
  root["platform"] = load_file(file);
  return file;
}

// `workload: NAME` in an app pulls NAME.yaml from a workloads/ folder beside the config or
// one level up (configs/workloads/); the app's own keys win over the workload's.
void resolve_workloads(YAML::Node root, const std::string& base_dir, const std::string& path) {
  const YAML::Node& c = root;
  if (!c["apps"] || !c["apps"].IsSequence()) return;
  for (std::size_t i = 0; i < c["apps"].size(); ++i) {
    YAML::Node app = root["apps"][i];
    const YAML::Node& ca = app;
    if (!ca.IsMap() || !ca["workload"]) continue;
    const std::string name = ca["workload"].Scalar();
    const std::string key = "apps[" + std::to_string(i) + "].workload";
    if (name.empty() || name.find('/') != std::string::npos)
      throw ConfigError(path + ": " + key + ": expected a workload name such as 'sc', got '" + name + "'");
    fs::path file;
    for (const char* dir : {"workloads", "../workloads"})
      if (fs::is_regular_file(fs::path(base_dir) / dir / (name + ".yaml"))) file = fs::path(base_dir) / dir / (name + ".yaml");
    if (file.empty()) throw ConfigError(path + ": " + key + ": no workload '" + name + "' in workloads/ or ../workloads/");
    const YAML::Node w = load_file(file.lexically_normal().string());
    Reader wr(w, "workload", file.string());
    wr.allow({"name", "description", "h2d_bytes", "d2h_bytes", "kernel_ns"});
    for (const char* k : {"h2d_bytes", "d2h_bytes", "kernel_ns"})
      if (w[k] && !ca[k]) app[k] = YAML::Clone(w[k]);
  }
}

Config parse_config(const std::string& text, const std::string& path, const std::string& base_dir,
                    const std::vector<std::string>& overrides) {
  Config cfg;
  cfg.file = path;
  YAML::Node root = parse_text(text, path);
  const std::string platform_file = include_platform(root, path, base_dir);
  for (const std::string& o : overrides) apply_override(root, o, path);
  resolve_workloads(root, base_dir, path);

  Reader top(root, "", path);
  top.allow({"platform", "apps", "driver", "sim", "description"});
  if (top.has("description")) top.need<std::string>("description");
  if (!top.has("platform")) top.fail("platform", "required key is missing");
  cfg.platform = parse_platform(Reader(root["platform"], "platform", platform_file));
  cfg.sim = parse_sim(top.map("sim"));
  cfg.driver = parse_driver(top.map("driver"));
  cfg.apps = parse_apps(top, cfg.platform);
  cfg.effective = root;
  return cfg;
}

}  // namespace

Config load_config(const std::string& path, const std::vector<std::string>& overrides) {
  return load_config_yaml(read_file(path), path, fs::path(path).parent_path().string(), overrides);
}

// Checked loading; yaml-cpp exceptions that escape the checks (a loader bug) still end as
// a config error naming the file, not as a crash.
Config load_config_yaml(const std::string& text, const std::string& path, const std::string& base_dir,
                        const std::vector<std::string>& overrides) {
  try {
    return parse_config(text, path, base_dir, overrides);
  } catch (const YAML::Exception& e) {
    throw ConfigError(path + ": cannot read the config: " + e.what());
  }
}

}  // namespace arbsim
