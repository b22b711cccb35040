// Loading a config file: YAML parse errors, the `platform:` include, `-s` overrides,
// workloads, and the top-level sections (platform: parse_platform.cpp; apps: parse_apps.cpp;
// driver and sim: parse_settings.cpp).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include "platforms/config/config.h"
#include "platforms/config/parse.h"
#include "platforms/config/reader.h"
#include "platforms/config/yaml_guard.h"

namespace arbsim {

namespace fs = std::filesystem;

namespace {

YAML::Node parse_text(const std::string& text, const std::string& path) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw ConfigError(path + ": file is empty");
  YAML::Node n = load_yaml_bounded(text, path);
  if (!n.IsMap()) throw ConfigError(path + ": top level must be a map of keys, got " + scalar_text(n));
  return n;
}

YAML::Node load_file(const std::string& path) { return parse_text(read_text_file(path), path); }

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

// One dotted segment, with list elements also as error messages spell them: "links[0]" is
// "links", "0" (names hold no brackets: valid_name()).
void push_segment(const std::string& seg, const std::string& at, std::vector<std::string>* keys) {
  const auto open = seg.find('[');
  if (open == std::string::npos) {
    if (seg.find(']') != std::string::npos) throw ConfigError(at + "']' without '[' in '" + seg + "'");
    keys->push_back(seg);
    return;
  }
  keys->push_back(seg.substr(0, open));
  for (std::size_t i = open; i < seg.size();) {
    const auto close = seg.find(']', i);
    if (seg[i] != '[' || close == std::string::npos || close == i + 1 || seg.find('[', i + 1) < close)
      throw ConfigError(at + "'" + seg + "': a list element is KEY[INDEX] or KEY.INDEX (e.g. platform.links[0].gen)");
    keys->push_back(seg.substr(i + 1, close - i - 1));
    i = close + 1;
  }
}

// Splits "dotted.key=value" (a list element by .INDEX, .NAME or [INDEX]); the value is YAML
// ("4", "[1, 2]", "{type: rr}").
Override parse_override(const std::string& spec, const std::string& file) {
  const std::string at = file + ": -s " + spec + ": ";
  const auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0) throw ConfigError(at + "expected dotted.key=value");
  Override o;
  std::stringstream ss(spec.substr(0, eq));
  for (std::string p; std::getline(ss, p, '.');) push_segment(p, at, &o.keys);
  if (spec[eq - 1] == '.' || std::count(o.keys.begin(), o.keys.end(), "") > 0)
    throw ConfigError(at + "empty key segment");
  o.value = unmarked(load_yaml_bounded(spec.substr(eq + 1), file + ": -s " + spec));
  return o;
}

// The index of `e` in `seq` (a list element list_element() found).
std::string index_in(const YAML::Node& seq, const YAML::Node& e) {
  for (std::size_t i = 0; i < seq.size(); ++i)
    if (seq[i].is(e)) return std::to_string(i);
  return "?";
}

// How many places of the tree under `root` hold node `n` (a YAML alias makes several).
int places_of(const YAML::Node& root, const YAML::Node& n) {
  if (root.is(n)) return 1;
  int k = 0;
  if (root.IsSequence())
    for (const YAML::Node& e : root) k += places_of(e, n);
  if (root.IsMap())
    for (const auto& kv : root) k += places_of(kv.second, n);
  return k;
}

// Map `cur`'s value at `k` as a node of its own, where an alias shares it with other places:
// an override sets what its path names only (through `size: *s`, setting apps.a.size.fixed
// changed app b's size too). A copy made so has no source lines.
void unshare(YAML::Node root, YAML::Node cur, const std::string& k) {
  const YAML::Node& c = cur;
  if (!c[k] || places_of(root, c[k]) < 2) return;
  const YAML::Node copy = YAML::Clone(c[k]);
  cur.remove(k);
  cur[k] = copy;
}

// Walks the keys (map keys, or list elements by list_element()), creating maps as
// needed, and sets the leaf. Maps are reached through a const handle: yaml-cpp's
// non-const operator[] would add every key it looks at. `target`, if given, gets the
// setting's path with each list element by its index (one spelling for every way of naming it).
void apply_override(YAML::Node root, const std::string& spec, const std::string& file, std::string* target = nullptr) {
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
      if (target) *target += (i ? "." : "") + index_in(cur, next);
    } else if (cur.IsMap() || cur.IsNull()) {
      if (target) *target += (i ? "." : "") + k;
      unshare(root, cur, k);
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

// `platform: FILE` includes a platform file (relative to this config); so does
// `platform: {include: FILE, KEY: VALUE...}`, whose other keys replace the file's top-level
// keys (e.g. a scenario that reuses a platform with another h2d_mode). Returns the file
// platform keys live in (for messages); `replaced` gets the keys this config wrote over the
// file's (their lines are this config's: Reader::written_in()).
std::string include_platform(YAML::Node root, const std::string& path, const std::string& base_dir,
                             std::vector<std::string>* replaced = nullptr) {
  const YAML::Node& c = root;
  const YAML::Node p = c["platform"];
  const bool map_include = p && p.IsMap() && p["include"];
  if (!p || !(p.IsScalar() || map_include)) return path;
  const YAML::Node name = map_include ? YAML::Node(p["include"]) : p;
  if (!name.IsScalar())
    throw ConfigError(path + ":" + std::to_string(name.Mark().line + 1) +
                      ": platform.include: expected a file name, got " + scalar_text(name));
  const std::string file = (fs::path(base_dir) / name.Scalar()).lexically_normal().string();
  std::string why;
  const fs::file_type type = file_type_at(file, &why);
  if (type != fs::file_type::regular)
    throw ConfigError(path + ":" + std::to_string(name.Mark().line + 1) + ": platform: included file '" + file +
                      "' " + (type == fs::file_type::not_found ? "does not exist"
                              : why.empty()                    ? "is not a regular file"
                                                               : "cannot be read: " + why));
  YAML::Node loaded = load_file(file);
  if (map_include) {
    std::set<std::string> seen;  // (yaml-cpp keeps both copies of a repeated key: Reader::allow())
    for (const auto& kv : p) {
      if (!seen.insert(kv.first.Scalar()).second)
        throw ConfigError(path + ":" + std::to_string(kv.first.Mark().line + 1) + ": platform." + kv.first.Scalar() +
                          ": key given twice in one map");
      if (kv.first.Scalar() == "include") continue;
      // Marked, and named as written here: an error in one named the included file, no line.
      loaded[kv.first.Scalar()] = replaced ? kv.second : unmarked(kv.second);
      if (replaced) replaced->push_back(kv.first.Scalar());
    }
  }
  root["platform"] = loaded;
  return file;
}

// The file of workload `name`: workloads/NAME.yaml beside the config, else one level up
// (configs/workloads/); empty when neither exists.
fs::path find_workload(const std::string& base_dir, const std::string& name) {
  for (const char* dir : {"workloads", "../workloads"}) {
    const fs::path f = (fs::path(base_dir) / dir / (name + ".yaml")).lexically_normal();
    if (is_regular_file_at(f.string())) return f;
  }
  return {};
}

// Copies the workload's keys the app lacks into the app. They are checked here, against
// the workload file and its lines, and copied without marks: merged into the app, a line
// of the workload file would be reported against the config.
void merge_workload(YAML::Node app, const fs::path& file) {
  const Reader w(load_file(file.string()), "workload", file.string());
  w.allow({"name", "description", "h2d_bytes", "d2h_bytes", "kernel_ns"});
  if (w.has("h2d_bytes")) w.bytes("h2d_bytes", 1);
  if (w.has("d2h_bytes")) w.bytes("d2h_bytes", 1);
  if (w.has("kernel_ns")) w.time_ns("kernel_ns", 0);
  const YAML::Node& ca = app;
  for (const char* k : {"h2d_bytes", "d2h_bytes", "kernel_ns"})
    if (w.has(k) && !ca[k]) app[k] = unmarked(w.node()[k]);
}

// `workload: NAME` in an app pulls NAME.yaml (find_workload()); the app's own keys win
// over the workload's.
void resolve_workloads(YAML::Node root, const std::string& base_dir, const std::string& path) {
  const YAML::Node& c = root;
  if (!c["apps"] || !c["apps"].IsSequence()) return;
  for (std::size_t i = 0; i < c["apps"].size(); ++i) {
    const YAML::Node app = c["apps"][i];
    if (!app.IsMap() || !app["workload"]) continue;
    const Reader r(app, "apps[" + std::to_string(i) + "]", path);
    // A workload sets a copy_exec app's keys; merged into another kind, its keys were
    // reported as unknown to it (`apps[0].h2d_bytes: unknown key`; a user trial).
    const YAML::Node type = app["type"];
    const std::string kind = type && type.IsScalar() ? type.Scalar() : "copy_exec";
    if (kind != "copy_exec")
      r.fail("workload", "applies to copy_exec apps (it sets h2d_bytes, d2h_bytes and kernel_ns); this app is " + kind);
    const YAML::Node n = app["workload"];
    const std::string name = n.IsScalar() ? n.Scalar() : "";
    if (name.empty() || name.find_first_of("/\\") != std::string::npos)
      r.fail("workload", "expected a workload name such as 'sc', got " + scalar_text(n));
    const fs::path file = find_workload(base_dir, name);
    if (file.empty()) r.fail("workload", "no workload '" + name + "' in workloads/ or ../workloads/");
    merge_workload(app, file);
    // Resolved: the app now holds the workload's keys. The effective config (written beside
    // the results, run again from there) must not look for the file again.
    YAML::Node resolved = app;
    resolved.remove("workload");
  }
}

// RTL arbiters run in the packet fidelity's egress ports; the flow fidelity has none (it
// divides links as fluid shares), so `rtl` there co-simulated nothing and said nothing.
// Refused, named where it was written (a link's, a node's, the platform's).
void check_rtl_needs_packets(const Config& cfg) {
  if (cfg.sim.fidelity != Fidelity::Flow) return;
  const auto rtl = [](const std::optional<ArbitrationCfg>& a) {
    return a && (a->vc.impl == "rtl" || a->port.impl == "rtl");
  };
  const std::string why = "rtl arbiters run in the packet fidelity's egress ports; the flow fidelity has none to "
                          "co-simulate (run with --fidelity packet, or arbiter_impl cpp)";
  const PlatformCfg& pf = cfg.platform;
  if (pf.arbiter_impl == "rtl") pf.origin.fail("arbiter_impl", why);  // every arbiter's default
  for (const LinkCfg& l : pf.links) {
    if (rtl(l.arb_up)) l.origin.fail("arbitration_up", why);
    if (rtl(l.arb_down)) l.origin.fail("arbitration_down", why);
  }
  for (const NodeCfg& n : pf.nodes)
    if (rtl(n.arbitration)) n.origin.fail("arbitration", why);
  if (rtl(std::optional<ArbitrationCfg>(pf.arbitration))) pf.origin.fail("arbitration", why);
}

// A periodic app's SM or PCIe share is the controller's to set when it acts on that share: a
// fixed one too would be silently overridden.
void check_sm_shares(const Reader& top, const Config& cfg) {
  const ShareControlCfg& c = cfg.driver.share_control;
  if (!c.on) return;
  const char* key = c.pcie ? "pcie_share_pct" : "sm_share_pct";
  const std::vector<Reader> apps = top.list("apps");
  for (std::size_t i = 0; i < cfg.apps.size() && i < apps.size(); ++i) {
    const auto* t = std::get_if<PeriodicParams>(&cfg.apps[i].params);
    if (t && (c.pcie ? t->pcie_share_pct : t->sm_share_pct) < 100)
      apps[i].fail(key, std::string("driver.share_control (kind: aimd, acts_on: ") + (c.pcie ? "pcie" : "sm") +
                            ") sets the " + (c.pcie ? "PCIe" : "SM") + " shares of periodic apps; remove one or the other");
  }
}

Config parse_config(const std::string& text, const std::string& path, const std::string& base_dir,
                    const std::vector<std::string>& overrides) {
  Config cfg;
  cfg.file = path;
  YAML::Node root = parse_text(text, path);
  std::vector<std::string> replaced;
  const std::string platform_file = include_platform(root, path, base_dir, &replaced);
  for (const std::string& o : overrides) apply_override(root, o, path);
  resolve_workloads(root, base_dir, path);

  Reader top(root, "", path);
  top.allow({"platform", "apps", "driver", "sim", "description"});
  if (top.has("description")) top.need<std::string>("description");
  if (!top.has("platform")) top.fail("platform", "required key is missing");
  Reader platform(root["platform"], "platform", platform_file);
  for (const std::string& k : replaced) platform.written_in(k, path);
  cfg.platform = parse_platform(platform);
  cfg.sim = parse_sim(top.map("sim"));
  cfg.driver = parse_driver(top.map("driver"));
  cfg.driver_origin = top.map("driver").origin();
  cfg.apps = parse_apps(top, cfg.platform);
  check_sm_shares(top, cfg);
  check_rtl_needs_packets(cfg);
  cfg.effective = root;
  return cfg;
}

}  // namespace

YAML::Node parse_config_text(const std::string& text, const std::string& path) { return parse_text(text, path); }
void apply_config_override(YAML::Node root, const std::string& spec, const std::string& file) {
  apply_override(root, spec, file);
}

std::vector<std::string> override_targets(const std::string& path, const std::vector<std::string>& overrides) {
  try {
    YAML::Node root = load_file(path);
    include_platform(root, path, fs::path(path).parent_path().string());
    std::vector<std::string> out(overrides.size());
    for (std::size_t i = 0; i < overrides.size(); ++i) apply_override(root, overrides[i], path, &out[i]);
    return out;
  } catch (const YAML::Exception& e) {
    throw ConfigError(path + ": cannot read the config: " + e.what());
  }
}

Config load_config(const std::string& path, const std::vector<std::string>& overrides) {
  return load_config_yaml(read_text_file(path), path, fs::path(path).parent_path().string(), overrides);
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

std::string effective_yaml(const Config& cfg) {
  YAML::Emitter e;
  e << cfg.effective;
  return std::string(e.c_str()) + "\n";
}

std::string elements_yaml(const Config& cfg) {
  YAML::Node e = YAML::Clone(cfg.effective);
  const YAML::Node& c = e;
  if (c["platform"] && c["platform"].IsMap() && c["platform"]["defaults"]) e["platform"].remove("defaults");
  YAML::Emitter out;
  out << e;
  return std::string(out.c_str()) + "\n";
}

namespace {

// `n` written one way whatever the input's layout: maps with their keys sorted, lists in
// order, flow style, every scalar quoted as written. (Hashed as emitted, the config's hash
// followed the input's block or flow style and key order: one config as YAML and as JSON,
// or reformatted, gave two hashes, and a sweep re-ran its points.)
void canonical(const YAML::Node& n, std::string* out) {
  const auto quoted = [out](const std::string& s) {
    *out += '"';
    for (const char c : s) *out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    *out += '"';
  };
  if (n.IsMap()) {
    std::map<std::string, YAML::Node> keys;
    for (const auto& kv : n) keys.emplace(kv.first.Scalar(), kv.second);
    *out += '{';
    for (const auto& [k, v] : keys) {
      if (out->back() != '{') *out += ',';
      quoted(k);
      *out += ':';
      canonical(v, out);
    }
    *out += '}';
  } else if (n.IsSequence()) {
    *out += '[';
    for (std::size_t i = 0; i < n.size(); ++i) {
      if (i) *out += ',';
      canonical(n[i], out);
    }
    *out += ']';
  } else if (n.IsScalar()) {
    quoted(n.Scalar());
  } else {
    *out += '~';
  }
}

}  // namespace

std::string canonical_config(const Config& cfg) {
  std::string s;
  canonical(cfg.effective, &s);
  return s;
}

std::string config_hash(const Config& cfg) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a, 64-bit offset basis and prime
  for (const unsigned char c : canonical_config(cfg)) h = (h ^ c) * 0x100000001b3ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

const char* to_string(NodeKind k) {
  switch (k) {
    case NodeKind::RootComplex: return "root_complex";
    case NodeKind::IoHub: return "io_hub";
    case NodeKind::Switch: return "switch";
    case NodeKind::Gpu: return "gpu";
    case NodeKind::Endpoint: return "endpoint";
  }
  return "?";
}

std::string NodeCfg::type_name() const { return is(NodeKind::Endpoint) ? endpoint.type->name : to_string(kind); }

const NodeCfg* PlatformCfg::node(const std::string& name) const {
  for (const NodeCfg& n : nodes)
    if (n.name == name) return &n;
  return nullptr;
}

}  // namespace arbsim
