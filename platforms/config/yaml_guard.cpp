#include "platforms/config/yaml_guard.h"
#include <sstream>
#include <vector>
#include <yaml-cpp/eventhandler.h>
#include "platforms/config/reader.h"

namespace arbsim {

namespace {

constexpr uint64_t kIncomplete = UINT64_MAX;

// Counts the nodes of the tree as the events arrive, each alias as the size of the node it
// names. An alias met while its anchor's node is still open refers to itself: a cycle.
class ExpansionCounter : public YAML::EventHandler {
 public:
  explicit ExpansionCounter(std::string where) : where_(std::move(where)) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t anchor) override { leaf(m, anchor); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor, const std::string&) override {
    leaf(m, anchor);
  }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t anchor) override {
    if (anchor >= sizes_.size() || sizes_[anchor] == kIncomplete)
      fail(m, "an alias refers to the node that contains it (a cycle); YAML aliases must not nest in "
              "their own anchor");
    add(m, sizes_[anchor]);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(m, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(m, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Open {
    YAML::Mark mark;
    YAML::anchor_t anchor;
    uint64_t nodes;
  };

  void leaf(const YAML::Mark& m, YAML::anchor_t anchor) {
    set_anchor(anchor, 1);
    add(m, 1);
  }
  void open(const YAML::Mark& m, YAML::anchor_t anchor) {
    set_anchor(anchor, kIncomplete);
    stack_.push_back({m, anchor, 1});
  }
  void close() {
    const Open o = stack_.back();
    stack_.pop_back();
    set_anchor(o.anchor, o.nodes);
    add(o.mark, o.nodes);
  }
  void set_anchor(YAML::anchor_t anchor, uint64_t nodes) {
    if (anchor == YAML::NullAnchor) return;
    if (anchor >= sizes_.size()) sizes_.resize(anchor + 1, kIncomplete);
    sizes_[anchor] = nodes;
  }
  // Sizes never exceed kMaxYamlNodes before this throws, so the sums cannot overflow.
  void add(const YAML::Mark& m, uint64_t nodes) {
    uint64_t& into = stack_.empty() ? total_ : stack_.back().nodes;
    into += nodes;
    if (into > kMaxYamlNodes || total_ > kMaxYamlNodes)
      fail(m, "the YAML expands to more than " + std::to_string(kMaxYamlNodes) +
                  " nodes once its aliases are resolved (an alias bomb?)");
  }
  [[noreturn]] void fail(const YAML::Mark& m, const std::string& why) const {
    const std::string line = m.line >= 0 ? ":" + std::to_string(m.line + 1) : "";
    throw ConfigError(where_ + line + ": " + why);
  }

  std::string where_;
  std::vector<uint64_t> sizes_;  // [anchor id] expanded node count, or kIncomplete while open
  std::vector<Open> stack_;
  uint64_t total_ = 0;
};

// Takes a later document's events and keeps only whether it holds anything.
struct NoEvents : YAML::EventHandler {
  bool content = false;
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { content = true; }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override { content = true; }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    content = true;
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    content = true;
  }
  void OnMapEnd() override {}
};

}  // namespace

YAML::Node load_yaml_bounded(const std::string& text, const std::string& where) {
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    ExpansionCounter counter(where);
    parser.HandleNextDocument(counter);
    // YAML::Load reads the first document only: a second one (after `---`) was dropped
    // unread, its keys and its errors alike (found by a user trial).
    // An empty one (a bare `---` at the end, or one holding a comment only) drops nothing.
    // The next few only: on some malformed text yaml-cpp reports documents for ever (the
    // config fuzzer found one), and a file's third document after an empty second is rare.
    NoEvents rest;
    for (int more = 0; more < 4 && parser.HandleNextDocument(rest); ++more)
      if (rest.content)
        throw ConfigError(where + ": holds more than one YAML document (a `---` followed by more): one config or "
                                  "spec per file, or the rest would be ignored");
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    const std::string line = e.mark.line >= 0 ? ":" + std::to_string(e.mark.line + 1) : "";
    throw ConfigError(where + line + ": YAML syntax error: " + e.msg);
  }
}

}  // namespace arbsim
