// TLP kinds and credit classes: plain C++ (no SystemC) so policies, arbiters and
// link timing can be unit-tested without a kernel.
// PCIe Base Spec §2.1 (transaction types) and §2.6.1 (flow-control credit types),
// as summarised in docs/pcie-reference.md §2 and §3.
#pragma once
#include <cstdint>

namespace arbsim {

enum class TlpType : uint8_t { MRd, MWr, CplD, Cpl };

// Flow-control class of a TLP: posted (P), non-posted (NP), completion (Cpl).
enum class CreditClass : uint8_t { Posted = 0, NonPosted = 1, Completion = 2 };
constexpr int kCreditClasses = 3;

constexpr CreditClass credit_class(TlpType t) {
  return t == TlpType::MWr ? CreditClass::Posted
         : t == TlpType::MRd ? CreditClass::NonPosted
                             : CreditClass::Completion;
}

// Does the TLP carry data on the wire (MWr and CplD carry payload; MRd/Cpl do not)?
constexpr bool carries_data(TlpType t) { return t == TlpType::MWr || t == TlpType::CplD; }

// Completions are routed by ID, requests by address (PCIe Base Spec §2.2.4).
constexpr bool id_routed(TlpType t) { return t == TlpType::CplD || t == TlpType::Cpl; }

// Seed 000 §3.2: ID_T = 0 for requests (reads and writes), 1 for responses.
constexpr int packet_type_id(TlpType t) { return id_routed(t) ? 1 : 0; }

const char* to_string(TlpType t);

constexpr int kNumTcs = 8;   // 3-bit TC field (docs/pcie-reference.md §4)
constexpr int kMaxVcs = 8;   // VC0..VC7 (docs/pcie-reference.md §4)
constexpr int kCreditUnitBytes = 16;  // one data credit = 4 DW (docs/pcie-reference.md §3)

}  // namespace arbsim
