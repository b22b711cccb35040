// PCIe link timing: rates per generation and width, per-TLP overhead, DLLP/SKP overhead,
// and the pcie-bench (Neugebauer et al., SIGCOMM 2018) efficiency model.
// Plain C++, no SystemC. Formulas: docs/pcie-reference.md §1-2; see docs/link-model.md.
#pragma once
#include <cstdint>
#include <string>
#include "models/pcie/tlp_types.h"

namespace arbsim {

// How DLLP (ACK, UpdateFC) overhead is charged.
enum class DllpModel {
  PcieBench,   // pcie-model: 8 B per Ack_Limit/FC_Guide table value, read as bytes (docs/pcie-reference.md §2)
  LaneScaled,  // spec-faithful: 8 B per (table value x width) bytes (the physical upper bound)
  None         // no DLLP or SKP overhead
};

struct PcieLinkParams {
  int gen = 3;            // 1..5
  int width = 16;         // 1,2,4,8,16,32
  int mps = 256;          // max payload size, bytes: 128..4096
  bool ecrc = false;      // optional 4-B TLP digest
  bool addr64 = true;     // 4DW (64-bit) request headers
  DllpModel dllp = DllpModel::PcieBench;
};

double gts_per_lane(int gen);                 // GT/s
double encoding_efficiency(int gen);          // 0.8 or 128/130
double raw_gbps(int gen, int width);          // Gb/s per direction after encoding
// Ack latency limit / UpdateFC guideline in symbol times (spec rev 5.0 tables; docs/pcie-reference.md §2)
int ack_limit_symbols(int gen, int width, int mps);
int fc_guide_symbols(int gen, int width, int mps);
// The UpdateFC guideline in ns (symbol times: 10 bits per lane at 8b/10b, 8 x 130/128 at
// 128b/130b): the default UpdateFC latency of a link (docs/pcie-reference.md §2).
double update_fc_latency_ns(const PcieLinkParams& p);
// TLP-level bandwidth (Gb/s) after DLLP and SKP overhead: pcie-model's TLP_bw.
double tlp_bandwidth_gbps(const PcieLinkParams& p);
// Non-payload bytes on the wire for one TLP: framing+sequence+LCRC (8 B) + header (+4 ECRC).
int tlp_overhead_bytes(TlpType t, const PcieLinkParams& p);

// pcie-bench model results in Gb/s for a DMA of `size` bytes (docs/pcie-reference.md §2).
double pciebench_write_gbps(const PcieLinkParams& p, uint64_t size);
// cpl_bytes: completion size (RCB when completions come in RCB chunks, else MPS).
double pciebench_read_gbps(const PcieLinkParams& p, uint64_t size, int mrrs, int cpl_bytes);

const char* to_string(DllpModel m);
bool parse_dllp_model(const std::string& s, DllpModel* out);
bool valid_gen(int gen);
bool valid_width(int width);
bool valid_payload_size(int bytes);  // 128..4096, power of two

}  // namespace arbsim
