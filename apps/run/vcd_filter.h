// --vcd-filter and --vcd-window (docs/observability.md "Waveforms"): keeps the signals of a VCD whose dotted
// name below the top scope ("sw0.to_rc0.busy", "gpu1.state") matches one of a list of globs
// (fnmatch, '*' crossing dots), drops the rest, the scopes left empty and the time steps left
// without a change. Streams the body: a VCD of any size in constant memory.
#pragma once
#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace arbsim {

// The globs of "GLOB[,GLOB...]".
std::vector<std::string> vcd_globs(const std::string& list);

struct VcdRewrite {
  std::vector<std::string> globs;  // the signals kept; empty: all
  // A VCD begun mid-run (--vcd-window): SystemC dumps its initial values with no timestamp
  // before them, which readers take as time 0; this one ("#start_ps") goes before them.
  uint64_t start_ps = 0;
};

// Copies `in` to `out` as `r` asks; returns how many signals it kept.
std::size_t rewrite_vcd(std::istream& in, std::ostream& out, const VcdRewrite& r);

// Rewrites the file at `path` in place (through a temporary beside it); returns the count
// kept. Throws std::runtime_error when it cannot read or write it.
std::size_t rewrite_vcd_file(const std::string& path, const VcdRewrite& r);

}  // namespace arbsim
