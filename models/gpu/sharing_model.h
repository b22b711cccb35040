// Seed 004's execution model of N processes sharing one GPU (§4.1-4.2, Eq. 1-11): the total
// time without a sharing layer (each process its own context: serial, with T_init per
// process and T_ctx_switch between processes) and with it (one context, a stream per
// process) under the two issue orders PS-1 and PS-2, and the speedups. These are the
// paper's upper bounds (complete kernel overlap, one transfer per direction at a time); the
// simulated GPU (issue "GPU sharing") is checked against them and shows where it departs
// (e.g. kernels whose blocks exceed the free SMs: sm_scheduler.h). Plain C++, times in ns.
#pragma once

namespace arbsim::gpu_sharing {

struct Phases {
  double data_in = 0;    // T_data_in: one process's host-to-device copy alone
  double comp = 0;       // T_comp: its kernel alone
  double data_out = 0;   // T_data_out: its device-to-host copy alone
  double init = 0;       // T_init: per-process GPU initialisation (no sharing layer)
  double ctx_switch = 0; // T_ctx_switch: between two processes' contexts
};

// Eq. 1: N (T_init + T_in + T_comp + T_out) + (N - 1) T_ctx_switch.
double total_without_sharing(const Phases& t, int n);
// Eq. 2 (compute-intensive, PS-1; also Eq. 4, I/O-intensive, PS-1): N (T_in + T_out) + T_comp.
double total_ps1(const Phases& t, int n);
// Eq. 3 (compute-intensive, PS-2): T_in + N T_comp + T_out.
double total_ci_ps2(const Phases& t, int n);
// Eq. 7 (I/O-intensive, PS-2; Eq. 5 and 6 joined): N max(T_in, T_out) + T_comp + min(T_in, T_out).
double total_ioi_ps2(const Phases& t, int n);
// Eq. 8 and 9: Eq. 1 over Eq. 2, and over Eq. 7.
double speedup_ci(const Phases& t, int n);
double speedup_ioi(const Phases& t, int n);
// Eq. 10 and 11: their limits as N grows.
double max_speedup_ci(const Phases& t);
double max_speedup_ioi(const Phases& t);

}  // namespace arbsim::gpu_sharing
