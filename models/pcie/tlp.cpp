#include "models/pcie/tlp.h"

namespace arbsim {

tlm::tlm_extension_base* TlpExtension::clone() const { return new TlpExtension(*this); }

void TlpExtension::copy_from(const tlm::tlm_extension_base& other) {
  *this = static_cast<const TlpExtension&>(other);
}

Tlp::Tlp(tlm::tlm_mm_interface* mm) : tlm::tlm_generic_payload(mm) {
  // Attached for the payload's whole life (not an auto extension): the pool reuses both.
  set_extension(&ext_);
}

}  // namespace arbsim
