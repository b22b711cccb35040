// What each kind of traffic app is configured with (docs/config.md, "Apps"): one struct per
// kind, held in a std::variant by the config (platforms/config/config.h) and handed to the
// app that kind names. Plain C++: the config floor reads these without SystemC.
#pragma once
#include <cstdint>
#include <string>
#include <variant>
#include <vector>
#include "models/batch/batch_predictor.h"
#include "models/common/copy_command.h"

namespace arbsim {

// Keys every app has.
struct AppTiming {
  double start_ns = 0;
  double duration_ns = 0;  // 0 = until its count is done
  int tc = 0;
  double deadline_ns = 0;  // per-transfer deadline (a QoS task), 0 = none
};

// copy_exec (seed 000 §1): copy in, run the kernel, optionally copy out; repeat.
struct CopyExecParams {
  std::string gpu, host;   // host: a root complex whose memory is used ("" = the GPU's own)
  int host_rc = -1;        // its ordinal among root complexes; -1 = the GPU's nearest
  uint64_t h2d_bytes = 0, d2h_bytes = 0;
  double kernel_ns = 0;
  int64_t iterations = 0;  // 0 = until duration_ns
};

// stream (to or from host memory) and peer (GPU to GPU, direction P2P).
struct StreamParams {
  std::string gpu, host, peer;
  int host_rc = -1;
  CopyDir direction = CopyDir::H2D;
  bool uniform = false;    // sizes uniform in [size_min, size_max] (seeded), else `size`
  uint64_t size = 0, size_min = 0, size_max = 0;
  double rate_GBps = 0;    // 0 = back to back
  int depth = 2;           // commands kept queued when back to back
  int64_t count = 0;       // 0 = until duration_ns
};

// batch (seed 002): a program of batch operations, run `count` times.
struct BatchStreamCfg {
  std::string gpu, host, peer;       // peer: a GPU-to-GPU copy from `gpu` to `peer`
  int host_rc = -1;                  // root-complex ordinal of `host`; -1 = the GPU's own
  CopyDir direction = CopyDir::H2D;  // H2D, D2H, or P2P when `peer` is set
  uint64_t bytes = 0;
  double kernel_ns = 0;
};
struct BatchParams {
  std::vector<std::vector<BatchStreamCfg>> batches;  // the app's distinct batch operations
  std::vector<int> program;          // indices into `batches` in issue order, repeats unrolled
  BatchMethod method = BatchMethod::Batch;
  double period_ns = 0;              // 0 = the next run when one completes
  int64_t count = 0;                 // 0 = until duration_ns
  const std::string& first_gpu() const { return batches.front().front().gpu; }
};

// One job on a GPU: copy in, run a kernel (its grid), copy out, each optional (at least one);
// an spmd process and a periodic task's job are one. Its caps: a share of the SMs (MPS
// active-thread percentage, seed 003 §3.2) and a share of PCIe (its copies paced at that share
// of the reference bandwidth, driver.share_control.pcie_GBps).
struct GpuJob {
  uint64_t h2d_bytes = 0, d2h_bytes = 0;
  double kernel_ns = 0;     // alone on the GPU (T_comp)
  int64_t blocks = 0;       // its grid; 0 = the whole GPU in one wave
  double sm_share_pct = 100;
  double pcie_share_pct = 100;
};

// spmd (seed 004 §4): `processes` processes of one SPMD program on one GPU, each running the
// job once. Without a sharing layer each has its own context: they run one after another,
// each paying `init_ns` (T_init) and a context switch (`ctx_switch_ns`, T_ctx_switch) between
// two (Eq. 1). With `sharing: streams` (the paper's GVM) one context holds a stream per
// process, issued in PS-1 or PS-2 order through the GPU's hardware queues
// (models/gpu/work_queue.h). The job's shares are each process's.
struct SpmdParams : GpuJob {
  std::string gpu, host;
  int host_rc = -1;
  int processes = 1;
  bool streams = false;    // sharing: none | streams
  bool ps1 = true;         // order: ps1 | ps2
  bool per_stream_queues = false;  // queues: single (Fermi) | per_stream (Hyper-Q)
  double init_ns = 0, ctx_switch_ns = 0;
};

// periodic (seed 003 §5.3): a real-time task releasing its job every `period_ns`; a job
// should end within `deadline_ns` of its release. Its `priority` ranks it for the share
// controller (driver.share_control), which then sets the share it acts on.
struct PeriodicParams : GpuJob {
  std::string gpu, host;
  int host_rc = -1;
  int priority = 0;
  double period_ns = 0, deadline_ns = 0;  // deadline 0 = the period
  int64_t count = 0;        // jobs; 0 = until duration_ns
};

using AppParams = std::variant<CopyExecParams, StreamParams, BatchParams, SpmdParams, PeriodicParams>;

// The kind's name as configs and results.json write it: copy_exec, stream, peer, batch, spmd,
// periodic.
const char* app_kind_name(const AppParams& p);
// The GPU an app runs on (a batch app: its first stream's).
const std::string& app_gpu(const AppParams& p);

}  // namespace arbsim
