// Section parsers load_config uses (internal to platforms/config/).
#pragma once
#include "platforms/config/config.h"
#include "platforms/config/reader.h"

namespace arbsim {

PlatformCfg parse_platform(const Reader& r);
SimCfg parse_sim(const Reader& r);
DriverCfg parse_driver(const Reader& r);
std::vector<AppCfg> parse_apps(const Reader& top, const PlatformCfg& platform);
// The top of `node`'s tree, following upstream links (for checks of references between
// elements: hosts and peers must be connected to their GPU). Bounded by the node count.
int tree_root(const PlatformCfg& pf, int node);
// A YAML document's top map, bounded (yaml_guard.h); ConfigError naming `path` otherwise.
YAML::Node parse_config_text(const std::string& text, const std::string& path);
// Applies one `-s dotted.key=value` to the tree (ConfigError naming `file` and the spec).
void apply_config_override(YAML::Node root, const std::string& spec, const std::string& file);
// The ordinal of root complex `node` among the root complexes, in node order.
int rc_ordinal(const PlatformCfg& pf, int node);

}  // namespace arbsim
