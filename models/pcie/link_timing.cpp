// PCIe link timing: rates, per-TLP overhead, DLLP/SKP overhead and the pcie-bench efficiency
// model. Every formula follows pcie-bench's pcie-model (`model/pcie.py`, `model/mem_bw.py`) as
// written out in docs/pcie-reference.md §1-2, so that PcieBench mode reproduces the
// published pcie-bench tables (§2.3). Units: Gb/s = 1e9 bit/s; sizes in bytes. See docs/link-model.md.
#include "models/pcie/link_timing.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/pcie/dllp_tables.h"

namespace arbsim {
namespace {

// DLLP (Ack, UpdateFC) on the wire: 4 B content + 2 B CRC16 + 2 B framing (docs/pcie-reference.md §2).
constexpr double kDllpBytes = 8.0;
// SKP ordered sets: pcie-model charges 4 B per 1538 symbols for every generation (§1).
constexpr double kSkpBytes = 4.0;
constexpr double kSkpIntervalSymbols = 1538.0;

// Per-TLP non-payload bytes, split the way pcie-model splits them (docs/pcie-reference.md §2):
// framing + sequence number + LCRC, the common first header DW, the rest of the header.
constexpr int kFramingSeqLcrcBytes = 8;  // pcie-model DLLP_Hdr
constexpr int kCommonHdrBytes = 4;       // TLP_Hdr
constexpr int kAddr32HdrRestBytes = 8;   // TLP_MWr_32_Hdr / TLP_MRd_32_Hdr: 3-DW header
constexpr int kAddr64HdrRestBytes = 12;  // TLP_MWr_64_Hdr / TLP_MRd_64_Hdr: 4-DW header
constexpr int kCplHdrRestBytes = 8;      // TLP_Cpl_Hdr / TLP_CplD_Hdr: completions are 3 DW
constexpr int kEcrcBytes = 4;            // TLP_Dig

// Smallest completion chunk we accept: the smallest RCB (docs/pcie-reference.md §3, MPS/MRRS/RCB).
constexpr int kMinCplBytes = 64;

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}

bool power_of_two(int v) { return v > 0 && (v & (v - 1)) == 0; }

void check_gen(int gen) {
  require(valid_gen(gen), "PCIe gen must be 1..5: " + std::to_string(gen));
}

void check_width(int width) {
  require(valid_width(width), "PCIe width must be 1,2,4,8,16,32: " + std::to_string(width));
}

void check_params(const PcieLinkParams& p) {
  check_gen(p.gen);
  check_width(p.width);
  require(valid_payload_size(p.mps),
          "MPS must be 128..4096, power of two: " + std::to_string(p.mps));
}

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Fraction of the raw rate spent on Ack + UpdateFC DLLPs and SKP ordered sets (docs/pcie-reference.md §2).
// pcie-model reads the symbol-time table values as bytes; LaneScaled multiplies them by the width
// because one symbol time carries `width` bytes on an xN link.
double dllp_skp_overhead(const PcieLinkParams& p) {
  const double scale = p.dllp == DllpModel::LaneScaled ? p.width : 1.0;
  const double ack = ack_limit_symbols(p.gen, p.width, p.mps) * scale;
  const double fc = fc_guide_symbols(p.gen, p.width, p.mps) * scale;
  return kDllpBytes / ack + kDllpBytes / fc + kSkpBytes / kSkpIntervalSymbols;
}

}  // namespace

double gts_per_lane(int gen) {
  check_gen(gen);
  constexpr double kGts[] = {2.5, 5.0, 8.0, 16.0, 32.0};  // docs/pcie-reference.md §1
  return kGts[gen - 1];
}

double encoding_efficiency(int gen) {
  check_gen(gen);
  return gen <= 2 ? 8.0 / 10.0 : 128.0 / 130.0;  // 8b/10b, then 128b/130b (docs/pcie-reference.md §1)
}

double raw_gbps(int gen, int width) {
  check_width(width);
  return gts_per_lane(gen) * encoding_efficiency(gen) * width;  // pcie-model `Raw` (§1)
}

double tlp_bandwidth_gbps(const PcieLinkParams& p) {
  check_params(p);
  const double raw = raw_gbps(p.gen, p.width);
  if (p.dllp == DllpModel::None) return raw;
  // Written as pcie-model writes it (Raw - Raw x overheads) so the numbers match to the last bit.
  return raw - raw * dllp_skp_overhead(p);
}

int tlp_overhead_bytes(TlpType t, const PcieLinkParams& p) {
  // Not validated: only ecrc/addr64 matter, and this sits on the per-TLP hot path.
  int bytes = kFramingSeqLcrcBytes + kCommonHdrBytes;
  switch (t) {
    case TlpType::MRd:
    case TlpType::MWr:
      bytes += p.addr64 ? kAddr64HdrRestBytes : kAddr32HdrRestBytes;
      break;
    case TlpType::CplD:
    case TlpType::Cpl:
      bytes += kCplHdrRestBytes;
      break;
  }
  return bytes + (p.ecrc ? kEcrcBytes : 0);
}

// mem_bw.write: the DMA is cut into MPS-sized MWr TLPs; only the TX direction is used.
double pciebench_write_gbps(const PcieLinkParams& p, uint64_t size) {
  const double bw = tlp_bandwidth_gbps(p);
  require(size > 0, "DMA size must be > 0");
  const uint64_t n = ceil_div(size, static_cast<uint64_t>(p.mps));
  const double wire_bytes = double(n) * tlp_overhead_bytes(TlpType::MWr, p) + double(size);
  return double(size) / wire_bytes * bw;
}

// mem_bw.read: MRd requests (MRRS-sized) go out on TX, CplDs (cpl_bytes each) come back on RX.
// Both directions have TLP_bw; the DMA rate is set by whichever saturates first.
// pcie-model makes no further cap on the completion count: n_cpl = ceil(size / chunk) (§2.3).
double pciebench_read_gbps(const PcieLinkParams& p, uint64_t size, int mrrs, int cpl_bytes) {
  const double bw_bps = tlp_bandwidth_gbps(p) * 1e9;
  require(size > 0, "DMA size must be > 0");
  require(valid_payload_size(mrrs),
          "MRRS must be 128..4096, power of two: " + std::to_string(mrrs));
  // A CplD never carries more than MPS (docs/pcie-reference.md §3); chunks below the 64-B RCB are not modelled.
  require(power_of_two(cpl_bytes) && cpl_bytes >= kMinCplBytes && cpl_bytes <= p.mps,
          "completion size must be a power of two in 64..MPS: " + std::to_string(cpl_bytes));
  const uint64_t n_req = ceil_div(size, static_cast<uint64_t>(mrrs));
  const uint64_t n_cpl = ceil_div(size, static_cast<uint64_t>(cpl_bytes));
  const double tx_bits = 8.0 * double(n_req) * tlp_overhead_bytes(TlpType::MRd, p);
  const double cpl_hdr_bytes = double(n_cpl) * tlp_overhead_bytes(TlpType::CplD, p);
  const double rx_bits = 8.0 * (cpl_hdr_bytes + double(size));
  const double dmas_per_s = std::min(bw_bps / rx_bits, bw_bps / tx_bits);
  return dmas_per_s * 8.0 * double(size) / 1e9;
}

const char* to_string(DllpModel m) {
  switch (m) {
    case DllpModel::PcieBench: return "pcie-bench";
    case DllpModel::LaneScaled: return "lane-scaled";
    case DllpModel::None: return "none";
  }
  return "?";
}

bool parse_dllp_model(const std::string& s, DllpModel* out) {
  for (DllpModel m : {DllpModel::PcieBench, DllpModel::LaneScaled, DllpModel::None}) {
    if (s == to_string(m)) {
      if (out) *out = m;
      return true;
    }
  }
  return false;
}

bool valid_gen(int gen) { return gen >= 1 && gen <= kDllpGens; }

// Only the widths the Ack/UpdateFC tables have a row for (no x12: docs/pcie-reference.md §2).
bool valid_width(int width) { return dllp_width_index(width) >= 0; }

bool valid_payload_size(int bytes) { return bytes >= 128 && bytes <= 4096 && power_of_two(bytes); }

double update_fc_latency_ns(const PcieLinkParams& p) {
  const double symbol_ns = (p.gen <= 2 ? 10.0 : 8.0 * 130.0 / 128.0) / gts_per_lane(p.gen);
  return fc_guide_symbols(p.gen, p.width, p.mps) * symbol_ns;
}

}  // namespace arbsim
