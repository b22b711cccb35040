// A batch app (seed 002): issues `count` batch operations, back to back or one every
// `period_ns`, through the batch run-time, and records each batch's latency and, for the
// first batch, the predicted and measured end of every stream (seed 002 Table 2).
#pragma once
#include <vector>
#include "models/host/batch/batch_runtime.h"
#include "testbenches/app.h"

namespace arbsim {

class BatchApp : public App {
 public:
  BatchApp(sc_core::sc_module_name name, const AppCfg& cfg, Driver& driver, BatchRuntime& runtime,
           std::vector<BatchStreamOp> ops, uint32_t flow_id);
  const BatchResult& first() const { return first_; }
  double predicted_ns() const { return predicted_ns_; }

 protected:
  void on_wake() override;

 private:
  void issue();
  BatchRuntime& runtime_;
  std::vector<BatchStreamOp> ops_;
  BatchMethod method_;
  int64_t issued_ = 0, done_ = 0;
  BatchResult first_;
  double predicted_ns_ = 0;
};

}  // namespace arbsim
