// Memory manager for TLPs (tlm_mm_interface): payloads are recycled through a free list,
// so the hot path allocates nothing per TLP once the pool has warmed up.
#pragma once
#include <memory>
#include <vector>
#include "models/pcie/tlp.h"

namespace arbsim {

class TlpPool : public tlm::tlm_mm_interface {
 public:
  TlpPool() = default;
  TlpPool(const TlpPool&) = delete;
  TlpPool& operator=(const TlpPool&) = delete;
  ~TlpPool() override;

  // A TLP with reference count 1 and a default extension; owned by the caller until the
  // final consumer calls release() (which returns it here through free()).
  Tlp* acquire();
  void free(tlm::tlm_generic_payload* gp) override;

  std::size_t allocated() const { return all_.size(); }
  std::size_t in_use() const { return all_.size() - free_.size(); }
  // The earliest inject_time of a TLP still in use; `none` says there is none.
  sc_core::sc_time oldest_in_use(bool* none) const;

 private:
  std::vector<std::unique_ptr<Tlp>> all_;
  std::vector<Tlp*> free_;
};

// The process-wide pool every model draws from (one simulation per process).
TlpPool& tlp_pool();

}  // namespace arbsim
