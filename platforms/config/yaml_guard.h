// Loading YAML text with bounds, before any of our code walks the tree. yaml-cpp builds an
// alias as a shared reference, so a self-referencing alias (`&a [*a]`) makes a cyclic graph
// that every recursive walk follows forever, and an alias "billion laughs" (each level ten
// aliases of the one before) expands to 10^9 nodes in a few hundred bytes of text. Both
// are found here from the parser's events, in time linear in the text, and rejected as
// ConfigError; yaml-cpp's own depth guard bounds the nesting.
#pragma once
#include <cstdint>
#include <string>
#include <yaml-cpp/yaml.h>

namespace arbsim {

// Largest tree, counted with every alias expanded, that a config, include, workload, `-s`
// value or sweep spec may describe. A 1,024-GPU platform with its links is ~30,000 nodes.
constexpr uint64_t kMaxYamlNodes = 1000000;

// Parses the first document of `text`; `where` (a file name, or "-s KEY=VALUE") starts
// every message. Throws ConfigError on a syntax error, an alias cycle or an expansion
// beyond kMaxYamlNodes. An empty or blank text gives a null node.
YAML::Node load_yaml_bounded(const std::string& text, const std::string& where);

}  // namespace arbsim
