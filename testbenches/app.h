// Traffic apps: the testbenches that drive the platform through the host driver.
// Every app records the bytes it moved, the iterations it completed and the latency of
// each transfer (command submitted -> last byte delivered).
#pragma once
#include <cstdint>
#include "models/common/progress_guard.h"
#include <functional>
#include <random>
#include <vector>
#include <systemc>
#include "models/host/driver.h"
#include "platforms/config.h"

namespace arbsim {

struct AppStats {
  uint64_t bytes = 0, transfers = 0, iterations = 0;
  uint64_t deadlines_met = 0, deadlines_missed = 0;  // transfers of a QoS app
  std::vector<double> latencies_ns;
  sc_core::sc_time first_issue, last_done;
  bool issued_any = false;
};

class App : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(App);
  App(sc_core::sc_module_name name, const AppCfg& cfg, Driver& driver, int gpu, int peer, uint32_t flow_id);
  const AppCfg& config() const { return cfg_; }
  const AppStats& stats() const { return stats_; }
  bool finished() const { return finished_; }

 protected:
  virtual void on_wake() = 0;            // start time reached, or a timer the app set
  void wake_at(sc_core::sc_time delay) { wake_.notify(delay); }
  bool past_deadline() const;            // duration_ns elapsed since start_ns
  void copy(CopyDir dir, uint64_t bytes, std::function<void()> then);
  void finish() { finished_ = true; }

  const AppCfg cfg_;
  Driver& driver_;
  const int gpu_, peer_;
  const uint32_t flow_id_;
  AppStats stats_;

 private:
  void tick();
  sc_core::sc_event wake_;
  ProgressGuard guard_;
  bool finished_ = false;
};

// Copy-then-execute (seed 000 §1): copy in, run the kernel, optionally copy out; repeat.
class CopyExecApp : public App {
 public:
  using App::App;

 protected:
  void on_wake() override { iterate(); }

 private:
  void iterate();
  void after_copy_in();
  void end_iteration();
};

// Synthetic stream of copies: fixed or seeded-uniform sizes, back to back (keeping `depth`
// commands queued) or at a rate. Also GPU-to-GPU peer copies (direction p2p).
class StreamApp : public App {
 public:
  StreamApp(sc_core::sc_module_name name, const AppCfg& cfg, Driver& driver, int gpu, int peer,
            uint32_t flow_id, uint64_t seed);

 protected:
  void on_wake() override;

 private:
  bool may_issue() const;
  void issue_one(uint64_t size);
  uint64_t next_size();
  std::mt19937_64 rng_;
  int64_t issued_ = 0;
  int outstanding_ = 0;
};

}  // namespace arbsim
