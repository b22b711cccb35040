// Loading a config file: YAML parse errors, the `platform:` include, `-s` overrides, and
// the top-level sections. Platform and app parsing live in config_platform.cpp and
// config_apps.cpp.
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
    if (!n.IsMap()) throw ConfigError(path + ": top level must be a map of keys");
    return n;
  } catch (const YAML::Exception& e) {
    throw ConfigError(path + ":" + std::to_string(e.mark.line + 1) + ": YAML syntax error: " + e.msg);
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in || fs::is_directory(path)) throw ConfigError(path + ": cannot open file");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

YAML::Node load_file(const std::string& path) { return parse_text(read_file(path), path); }

// Walks `dotted` (map keys, list indices, or list elements by their `name`) creating maps
// as needed, and sets the leaf to the YAML value of `value`.
void apply_override(YAML::Node root, const std::string& spec) {
  const auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError("-s " + spec + ": expected dotted.key=value");
  const std::string dotted = spec.substr(0, eq);
  std::vector<std::string> parts;
  std::stringstream ss(dotted);
  for (std::string p; std::getline(ss, p, '.');) {
    if (p.empty()) throw ConfigError("-s " + spec + ": empty key segment");
    parts.push_back(p);
  }
  YAML::Node value;
  try {
    value = YAML::Load(spec.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    throw ConfigError("-s " + spec + ": value is not valid YAML: " + e.msg);
  }
  YAML::Node cur = root;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& p = parts[i];
    const bool last = i + 1 == parts.size();
    if (cur.IsSequence()) {
      YAML::Node next;
      const bool numeric = p.find_first_not_of("0123456789") == std::string::npos;
      for (std::size_t k = 0; k < cur.size(); ++k)
        if ((numeric && std::stoul(p) == k) || (cur[k].IsMap() && cur[k]["name"] &&
                                                cur[k]["name"].Scalar() == p))
          next = cur[k];
      if (!next) throw ConfigError("-s " + spec + ": no list element '" + p + "' under " + dotted);
      if (last) throw ConfigError("-s " + spec + ": cannot replace a whole list element");
      cur.reset(next);
      continue;
    }
    if (!cur.IsMap() && !cur.IsNull())
      throw ConfigError("-s " + spec + ": '" + p + "' is under a value that is not a map");
    if (last) {
      cur[p] = value;
    } else {
      YAML::Node next = cur[p];
      if (!next) cur[p] = YAML::Node(YAML::NodeType::Map);
      YAML::Node n2 = cur[p];
      cur.reset(n2);
    }
  }
}

}  // namespace

Config load_config(const std::string& path, const std::vector<std::string>& overrides) {
  return load_config_yaml(read_file(path), path, fs::path(path).parent_path().string(), overrides);
}

Config load_config_yaml(const std::string& text, const std::string& path, const std::string& base_dir,
                        const std::vector<std::string>& overrides) {
  Config cfg;
  cfg.file = path;
  YAML::Node root = parse_text(text, path);
  std::string platform_file = path;
  {
    const YAML::Node& c = root;
    if (c["platform"] && c["platform"].IsScalar()) {
      // `platform: FILE` includes a platform file, relative to this config.
      const std::string rel = c["platform"].Scalar();
      platform_file = (fs::path(base_dir) / rel).lexically_normal().string();
      if (!fs::exists(platform_file))
        throw ConfigError(path + ":" + std::to_string(c["platform"].Mark().line + 1) +
                          ": platform: included file '" + platform_file + "' does not exist");
      root["platform"] = load_file(platform_file);
    }
  }
  for (const std::string& o : overrides) apply_override(root, o);

  Reader top(root, "", path);
  top.allow({"platform", "apps", "sim", "description"});
  if (!top.has("platform")) top.fail("platform", "required key is missing");
  YAML::Node pnode = root["platform"];
  cfg.platform = parse_platform(Reader(pnode, "platform", platform_file));
  cfg.sim = parse_sim(top.map("sim"));
  cfg.apps = parse_apps(top, cfg.platform);
  cfg.effective = root;
  return cfg;
}

}  // namespace arbsim
