// A minimal VCD writer for the lockstep testbench: a few integer signals in named scopes.
#pragma once
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace arbsim::test {

class VcdWriter {
 public:
  explicit VcdWriter(const std::string& path) : out_(path) {}
  bool ok() const { return static_cast<bool>(out_); }

  // Declares a signal (before the first time()); returns its handle.
  int add(const std::string& scope, const std::string& name, int width) {
    sigs_.push_back({scope, name, width, code(static_cast<int>(sigs_.size())), 0, false});
    return static_cast<int>(sigs_.size()) - 1;
  }

  void time(uint64_t ps) {
    if (!started_) header();
    out_ << '#' << ps << '\n';
  }

  void set(int id, uint64_t v) {
    Sig& s = sigs_[static_cast<size_t>(id)];
    if (s.known && s.value == v) return;
    s.known = true;
    s.value = v;
    if (s.width == 1) {
      out_ << (v ? '1' : '0') << s.code << '\n';
      return;
    }
    std::string bits;
    for (int b = s.width - 1; b >= 0; --b) bits += ((v >> b) & 1u) ? '1' : '0';
    out_ << 'b' << bits << ' ' << s.code << '\n';
  }

 private:
  struct Sig {
    std::string scope, name;
    int width;
    std::string code;
    uint64_t value;
    bool known;
  };

  static std::string code(int i) {
    std::string c;
    do {
      c += static_cast<char>('!' + i % 94);
      i /= 94;
    } while (i > 0);
    return c;
  }

  void header() {
    started_ = true;
    out_ << "$timescale 1ps $end\n";
    std::string open;
    for (const Sig& s : sigs_) {
      if (s.scope != open) {
        if (!open.empty()) out_ << "$upscope $end\n";
        out_ << "$scope module " << s.scope << " $end\n";
        open = s.scope;
      }
      out_ << "$var wire " << s.width << ' ' << s.code << ' ' << s.name;
      if (s.width > 1) out_ << " [" << s.width - 1 << ":0]";
      out_ << " $end\n";
    }
    if (!open.empty()) out_ << "$upscope $end\n";
    out_ << "$enddefinitions $end\n";
  }

  std::ofstream out_;
  std::vector<Sig> sigs_;
  bool started_ = false;
};

}  // namespace arbsim::test
