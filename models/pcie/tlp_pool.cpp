#include "models/pcie/tlp_pool.h"

namespace arbsim {

TlpPool::~TlpPool() {
  // Payloads still referenced elsewhere at shutdown are destroyed with the pool; detach the
  // extension first so the generic payload's destructor does not delete our member.
  for (auto& t : all_) t->clear_extension(&t->x());
}

Tlp* TlpPool::acquire() {
  Tlp* t;
  if (free_.empty()) {
    all_.push_back(std::make_unique<Tlp>(this));
    t = all_.back().get();
  } else {
    t = free_.back();
    free_.pop_back();
  }
  t->x() = TlpExtension();
  t->acquire();
  return t;
}

void TlpPool::free(tlm::tlm_generic_payload* gp) { free_.push_back(as_tlp(*gp)); }

sc_core::sc_time TlpPool::oldest_in_use(bool* none) const {
  *none = true;
  sc_core::sc_time oldest;
  for (const auto& t : all_)
    if (t->get_ref_count() > 0 && (*none || t->x().inject_time < oldest)) {
      oldest = t->x().inject_time;
      *none = false;
    }
  return oldest;
}

TlpPool& tlp_pool() {
  static TlpPool pool;
  return pool;
}

}  // namespace arbsim
