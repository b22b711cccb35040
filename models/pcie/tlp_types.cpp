// Names of TLP kinds as used in logs, traces and configs (docs/pcie-reference.md §2).
#include "models/pcie/tlp_types.h"

namespace arbsim {

const char* to_string(TlpType t) {
  switch (t) {
    case TlpType::MRd: return "MRd";
    case TlpType::MWr: return "MWr";
    case TlpType::CplD: return "CplD";
    case TlpType::Cpl: return "Cpl";
  }
  return "?";
}

}  // namespace arbsim
