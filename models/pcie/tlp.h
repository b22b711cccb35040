// A TLP is a TLM-2.0 generic payload carrying one PCIe extension (DEVELOPERS.md: generic
// payload + extensions). Field meanings follow PCIe Base Spec §2.2 (docs/pcie-reference.md §2, §4).
#pragma once
#include <systemc>
#include <tlm>
#include <cstdint>
#include "models/pcie/tlp_types.h"

namespace arbsim {

struct TlpExtension : tlm::tlm_extension<TlpExtension> {
  // --- Transaction-layer header fields ---
  TlpType type = TlpType::MWr;
  uint8_t tc = 0;              // traffic class 0..7 (seed 000 Eq. 1 assigns it)
  bool relaxed_ordering = false;
  uint16_t requester_id = 0;   // endpoint index + 1 (ID routing of completions)
  uint16_t completer_id = 0;
  uint16_t tag = 0;
  uint32_t byte_count = 0;     // payload bytes (MWr/CplD) or requested bytes (MRd)
  uint64_t address = 0;
  // --- Model bookkeeping (not on the wire) ---
  uint32_t flow_id = 0;        // app / flow the TLP belongs to
  uint64_t transfer_id = 0;    // TransferTracker id; 0 = none
  uint64_t offset = 0;         // byte offset of the payload inside its transfer
  uint32_t cpl_remaining = 0;  // CplD: request bytes still outstanding after this one
  sc_core::sc_time inject_time;
  // --- Per-hop scratch, rewritten at every hop ---
  sc_core::sc_time head_at;    // head of the TLP reaches the current node
  sc_core::sc_time tail_at;    // tail reaches the current node (fully received)
  sc_core::sc_time ready_at;   // eligible for arbitration at the current node
  sc_core::sc_time tail_ready_at;  // the tail is through the current node (may leave it)
  sc_core::sc_time head_since; // became head of its queue and ready (arbiter wait start)
  uint8_t in_vc = 0;           // VC on the link it arrived on

  tlm::tlm_extension_base* clone() const override;
  void copy_from(const tlm::tlm_extension_base& other) override;
};

// The payload type the fabric moves: a generic payload with its extension attached once,
// so the hot path reaches the PCIe fields without a lookup.
class Tlp : public tlm::tlm_generic_payload {
 public:
  explicit Tlp(tlm::tlm_mm_interface* mm);
  TlpExtension& x() { return ext_; }
  const TlpExtension& x() const { return ext_; }
  uint32_t payload_bytes() const { return carries_data(ext_.type) ? ext_.byte_count : 0; }

 private:
  TlpExtension ext_;
};

inline Tlp* as_tlp(tlm::tlm_generic_payload& gp) { return static_cast<Tlp*>(&gp); }

}  // namespace arbsim
