// Ack latency limits and UpdateFC guidelines (PCIe Base Spec rev 5.0, in symbol times) as the
// pcie-bench model tabulates them: the inputs to its DLLP overhead term (docs/pcie-reference.md §2-2.3).
// The data lives in dllp_tables.cpp, transcribed from ../shared/reference/pcie-dllp-limits.json.
#pragma once

namespace arbsim {

// Table axes. Widths are those of the spec tables: there is no x12 row, so x12 is not supported.
constexpr int kDllpGens = 5;  // gen1..gen5 (gen4/gen5 repeat gen3)
constexpr int kDllpWidths = 6;
constexpr int kDllpMpsSizes = 6;
constexpr int kDllpTableWidths[kDllpWidths] = {1, 2, 4, 8, 16, 32};
constexpr int kDllpTableMps[kDllpMpsSizes] = {128, 256, 512, 1024, 2048, 4096};

// Position of `width` / `mps` on the table axis, or -1 when the table has no such entry.
int dllp_width_index(int width);
int dllp_mps_index(int mps);

// Table lookups (also declared in link_timing.h). Throw std::invalid_argument for any
// gen/width/MPS outside the table.
int ack_limit_symbols(int gen, int width, int mps);
int fc_guide_symbols(int gen, int width, int mps);

}  // namespace arbsim
