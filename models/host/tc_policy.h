// How the host driver chooses a copy command's traffic class, and the hooks through which a
// policy follows commands and reprograms the fabric's TC/VC maps (seed 000 §3.2-3.3).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <vector>
#include "models/common/copy_command.h"
#include "models/pcie/arbiters/arbiter.h"
#include "models/pcie/tc_vc_map.h"
#include "models/pcie/tlp_types.h"

namespace arbsim {

struct MemcpyRequest {
  CopyDir dir = CopyDir::H2D;
  int gpu = 0;        // GPU ordinal (H2D/D2H target, P2P source)
  int peer = -1;      // P2P destination GPU ordinal
  uint64_t bytes = 0;
  int tc = 0;         // the app's requested TC (the static policy keeps it)
  uint32_t flow_id = 0;
  double deadline_ns = 0;     // absolute transfer deadline (QoS tasks), 0 = none
  bool response_data = false; // the data travels as completions (H2D by device read)
  int host = -1;              // host memory (root-complex ordinal) of an H2D/D2H copy; -1 = the GPU's own
  double rate_GBps = 0;       // pace the copy at this payload rate (a static bandwidth share); 0 = none
};

// What a policy may ask of the platform.
class FabricControl {
 public:
  virtual ~FabricControl() = default;
  // Programs every egress port: `vc8[tc]` is the VC on an 8-VC link; a port with n VCs
  // uses vc8[tc] * n / 8 (order kept, TC0 stays on VC0).
  virtual void set_tc_map(const std::array<uint8_t, kNumTcs>& vc8) = 0;
  virtual uint64_t delivered_bytes(uint64_t transfer) const = 0;  // so far, of an open transfer
  virtual double now_ns() const = 0;
  // The VC counts of the platform's link directions, each once (how set_tc_map's map is
  // scaled on them).
  virtual std::vector<int> vc_counts() const { return {kNumTcs}; }
  // A ranking put destination `first` above `second` (driver ordinals) only by index: both
  // had `bytes` left, and the other order programs another map. `flows`: their copies.
  virtual void ranking_tie(int /*first*/, int /*second*/, uint64_t /*bytes*/, const std::vector<uint32_t>& /*flows*/) {}
};

class TcPolicy {
 public:
  virtual ~TcPolicy() = default;
  virtual void attach(FabricControl& /*fabric*/) {}
  virtual int assign_tc(const MemcpyRequest& r) = 0;
  virtual void on_submit(uint64_t /*cmd*/, const MemcpyRequest& /*r*/) {}
  virtual void on_start(uint64_t /*cmd*/, uint64_t /*transfer*/) {}
  virtual void on_complete(uint64_t /*cmd*/) {}
  // Periodic re-evaluation (deadline prediction); 0 = never.
  virtual double tick_ns() const { return 0; }
  virtual void on_tick() {}
  virtual const char* name() const = 0;
  // The VC arbitration the policy relies on at every egress port, or none when it keeps
  // the configured arbiters. A policy that ranks TCs onto VCs needs the VC arbiter to honour
  // that rank (strict priority); the system builds the fabric with it, and says so.
  virtual std::optional<ArbiterSpec> vc_arbiter() const { return std::nullopt; }
};

// Keeps the TC each app asks for; never touches the fabric.
class StaticTcPolicy : public TcPolicy {
 public:
  int assign_tc(const MemcpyRequest& r) override { return r.tc; }
  const char* name() const override { return "static"; }
};

}  // namespace arbsim
