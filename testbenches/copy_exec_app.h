// Copy-then-execute (seed 000 §1): copy in, run the kernel, optionally copy out; repeat
// `iterations` times or until `duration_ns`.
#pragma once
#include "testbenches/app.h"

namespace arbsim {

class CopyExecApp : public App {
 public:
  CopyExecApp(sc_core::sc_module_name name, const AppSetup& setup, const CopyExecParams& p, Driver& driver)
      : App(name, setup, driver), p_(p) {}

 protected:
  void on_wake() override { iterate(); }

 private:
  void iterate();
  void after_copy_in();
  void copy_out();
  void end_iteration();
  const CopyExecParams p_;
  int64_t iterations_done_ = 0;
  sc_core::sc_time iteration_start_;
};

}  // namespace arbsim
