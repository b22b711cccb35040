// A GTKWave save file for a run's VCD (docs/observability.md, "Waveforms"): opening
// `FILE.gtkw` shows the signals at once, grouped per node, then per port, with each port's
// per-VC credits in a collapsed group, and the GPU states as names (Idle, Copy, Compute,
// Stalled) through a translate filter file written beside it.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace arbsim {

// (file path, text) of the save file and its filter file for the VCD at `vcd_path`, built
// from that VCD's header (the signals it really holds). Throws std::runtime_error when the
// VCD cannot be read.
std::vector<std::pair<std::string, std::string>> gtkw_files(const std::string& vcd_path);

}  // namespace arbsim
