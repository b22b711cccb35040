// A synthetic stream of copies to or from host memory, or to a peer GPU: fixed or
// seeded-uniform sizes, back to back (keeping `depth` commands queued) or at a rate.
#pragma once
#include <random>
#include "testbenches/app.h"

namespace arbsim {

class StreamApp : public App {
 public:
  StreamApp(sc_core::sc_module_name name, const AppSetup& setup, const StreamParams& p, Driver& driver,
            uint64_t seed);

 protected:
  void on_wake() override;

 private:
  bool may_issue() const;
  void issue_one(uint64_t size);
  uint64_t next_size();
  const StreamParams p_;
  std::mt19937_64 rng_;
  int64_t issued_ = 0;
  int outstanding_ = 0;
};

}  // namespace arbsim
