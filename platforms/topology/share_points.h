// Where seed 003 §3.4's controller sets PCIe shares by WRR weights (driver.share_control:
// {acts_on: pcie, pcie_by: wrr}): the egress ports on the periodic apps' data paths whose
// port arbiter is a weighted round robin, and at each the slot (ingress port or DMA engine,
// docs/config.md "Port arbiter") through which one app's data arrives alone. A share of s %
// multiplies that slot's configured weight by s / 100 (docs/gpu-sharing.md, "PCIe shares").
//
// WRR separates requesters, not flows: two apps whose data enters an egress through one
// slot (e.g. host-to-device reads of every GPU leave the root complex through its memory
// port) cannot be told apart there. wrr_share_points() refuses, with a config error naming
// the app and each egress on its path, a configuration where an app the controller may slow
// (one with a higher-priority app in the loop) crosses no such point. No SystemC.
#pragma once
#include <vector>
#include "platforms/topology/scenario.h"

namespace arbsim {

// The points (WeightPoint, scenario.h), in walk order; empty unless share control acts on
// PCIe by WRR. make_scenario() keeps them in Scenario::wrr_points. Throws ConfigError (at
// driver.share_control) when an app the controller may slow has none.
std::vector<WeightPoint> wrr_share_points(const Scenario& s);

// The weights to load at `p` when app `steers[i].first` has share `share_pct[i]` (percent):
// every slot's configured weight scaled by K = min(100, 65536 / sum), the steered ones by
// share / 100 as well, at least 1 where the configured weight is not 0.
std::vector<int> share_weights(const WeightPoint& p, const std::vector<double>& share_pct);

}  // namespace arbsim
