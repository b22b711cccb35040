// The fabric of a system: what moves bytes between endpoints, at one of two fidelities.
//   packet (packet_fabric.h)  every TLP through SystemC modules: links, switches, egress
//                             arbitration, credits (the reference model)
//   flow   (flow_level_fabric.h)  fluid flows sharing each link as its egress arbitrates
//                             (fast; no TLPs or credits: it says where that mattered)
// Both build from the same Scenario and answer for the same walk directions and engine ids,
// so the System, the driver, the apps and results.json never ask which one runs. Only
// make_fabric() chooses.
#pragma once
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include <systemc>
#include "models/common/copy_executor.h"
#include "models/common/link_stats.h"
#include "models/common/transfer_tracker.h"
#include "platforms/topology/scenario.h"

namespace arbsim {

// What a run asked that its fidelity cannot represent, or did that it could not follow:
// one entry of results.json `fidelity_notes` (docs/results.md).
struct FidelityNote {
  std::string where;    // the egress ("sw0->rc0"), or "fabric"
  std::string setting;  // what was asked or seen
  std::string effect;   // what the fidelity does instead
  std::vector<uint32_t> flows;  // the copies' flow ids it concerns (CopyCommand::flow_id), ascending
};

// What --trace asks for (docs/observability.md): a window of simulated time and the link
// directions to watch (a glob over their names, e.g. "sw0->*").
struct ObserveOptions {
  bool on = false;                // the transaction trace and why_not_granted (--trace)
  bool detect = false;            // the detectors (--detect)
  double starvation_bound_ns = 10000;  // a head waiting longer is starved (--starvation-bound)
  double from_ns = 0, to_ns = 0;  // to_ns 0: to the end of the run
  std::string filter = "*";
  bool any() const { return on || detect; }
};

// What the detectors found (--detect; docs/observability.md "Detectors"): one episode of
// head-of-line blocking, priority inversion or starvation beyond the bound, at one egress.
struct DetectedTlp {
  uint64_t transfer = 0;
  uint32_t flow = 0;   // the app (its flow id: apps[flow - 1]), 0 = none
  int tc = 0;
  std::string requester;  // its requester at the egress
};
struct Detection {
  std::string kind;      // head_of_line_blocking | priority_inversion | starvation
  std::string where;     // the egress ("sw0->rc0") where the waiting head waits
  int64_t from_ps = 0, to_ps = 0;
  bool to_end = false;   // still so when the run (or the window) ended
  DetectedTlp waiting;   // HOL: the TLP held behind the head; otherwise the head that waits
  DetectedTlp cause;     // HOL: the head in front; inversion: the lower TC's TLP; starvation: none
  std::string detail;    // what happened, in words
};

// One line of results.json arbiters[].why_not_granted: a requester's head, on one VC, lost
// `arbitrations` arbitrations for `reason` and waited `waited_ps` for it (inside the window).
struct WaitTotal {
  std::string requester;
  int vc = 0;
  std::string reason;
  uint64_t arbitrations = 0;
  double waited_ps = 0;
};

struct FabricOptions {
  // The VC arbiter of every egress port when the driver's policy needs one (TcPolicy::
  // vc_arbiter), instead of the configured ones.
  std::optional<ArbiterSpec> vc_arbiter;
  ObserveOptions observe;  // the packet fabric only (the CLI refuses --trace in flow fidelity)
};

class Fabric {
 public:
  virtual ~Fabric() = default;
  // The DMA engine with scenario engine id `id` (Scenario::engines).
  virtual CopyExecutor& engine(int id) = 0;
  // Programs every egress port's TC/VC map: vc8[tc] on an 8-VC link, scaled to each port's
  // VCs (models/pcie/tc_vc_map.h).
  virtual void set_tc_map(const std::array<uint8_t, kNumTcs>& vc8) = 0;
  // Reloads the WRR port arbiter of walk direction `dir` with one weight per slot (the packet
  // fabric; the flow fabric has no port arbiters and throws std::logic_error: config checks
  // refuse WRR share control in flow fidelity).
  virtual void set_port_weights(int dir, const std::vector<int>& weights) = 0;
  // Per walk direction (Scenario::walk): its statistics (complete after finish()), its VCs,
  // and its VC arbiter as results.json names it (none where this fidelity has no arbiter).
  virtual const EgressStats& link_stats(int dir) const = 0;
  virtual int link_vcs(int dir) const = 0;
  virtual std::optional<std::string> vc_arbiter(int dir) const = 0;
  // Payload bytes of open transfer `transfer` that have reached its destination so far: what
  // seed 000's policies rank on (docs/host-policies.md, "Remaining bytes"). The packet fabric's
  // tracker counts them TLP by TLP; the flow fabric, which delivers a copy whole at its end,
  // computes them on its fluid's timeline. Both must count the same thing: a ranking of
  // equal tenants turns on a few KB (a fresh copy's data on the way counted as arrived in
  // one fidelity and not in the other swapped two tenants' order).
  virtual uint64_t delivered_bytes(uint64_t transfer) const = 0;
  // The driver's policy ranked two destinations with equal remaining bytes, and the order it
  // chose (the lower GPU index first) changed the map it programs. `pair` names them, `flows`
  // their copies. The packet fabric ignores it (its counts differ by the TLP that separates
  // identical copies, and a tie there is the reference's); the flow fabric lists it in
  // fidelity_notes, since the fluid makes identical tenants tie to the byte.
  virtual void note_ranking_tie(const std::string& /*pair*/, uint64_t /*bytes*/, const std::vector<uint32_t>& /*flows*/) {}
  // TLPs forwarded over links so far (0 where there are no TLPs).
  virtual uint64_t tlp_hops() const = 0;
  // Whether it moves TLPs, whose ages the liveness check reads (results.json run_checks).
  virtual bool moves_tlps() const { return true; }
  // The share of a copy's time within which its end may differ from the packet model's (0:
  // it is the packet model). A copy ending that near a cut-off is noted (System::cutoff_notes).
  virtual double timing_accuracy() const { return 0.0; }
  // What this fidelity could not represent (complete after finish(): the flow fabric adds
  // what its fidelity watch saw).
  virtual const std::vector<FidelityNote>& fidelity_notes() const = 0;
  // What waits inside the fabric, one entry per port that holds work (deadlock reports).
  virtual std::vector<std::string> waiting() const = 0;
  virtual void trace(sc_core::sc_trace_file* tf) = 0;
  // With FabricOptions::observe on: why heads waited at walk direction `dir` (nullopt when
  // it was not watched; empty when it was and no head waited), and the transaction trace as
  // Chrome trace-event JSON ("" when nothing is observed). Complete after finish().
  virtual std::optional<std::vector<WaitTotal>> why_not_granted(int /*dir*/) const { return std::nullopt; }
  virtual std::string trace_json() const { return ""; }
  // With FabricOptions::observe.detect: the episodes found, in time order (nullptr: not
  // detecting). Complete after finish().
  virtual const std::vector<Detection>* detections() const { return nullptr; }
  // A time series' reading of walk direction `dir` now (the kernel paused): its busy time so
  // far inside the statistics window, and, where this fidelity has them, the TLPs queued
  // for it and its receiver's posted data credits on `vc` (nullopt: not represented).
  virtual double busy_ps_now(int dir) const = 0;
  virtual std::optional<int64_t> queued_tlps(int /*dir*/) const { return std::nullopt; }
  virtual std::optional<int64_t> posted_data_credits(int /*dir*/, int /*vc*/) const { return std::nullopt; }
  virtual void finish() = 0;  // closes time-weighted statistics at the end of the run
  // The end of the warm-up (sim.warmup_ns): link statistics count from now on.
  virtual void restart_stats() = 0;
};

// The fabric the scenario's sim.fidelity names. Call during elaboration.
std::unique_ptr<Fabric> make_fabric(const Scenario& s, const FabricOptions& o, TransferTracker& tracker);
// Why the fabric of `s` cannot be observed (FabricOptions::observe, --trace), or "".
std::string why_not_observable(const Scenario& s);

}  // namespace arbsim
