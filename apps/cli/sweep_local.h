// The local backend of `pcie-arbsim sweep`: each point its own `pcie-arbsim run` process, N at
// a time, within its wall-time and address-space limits. docs/sweeps.md.
#pragma once
#include <string>
#include <vector>
#include "apps/cli/sweep_point.h"

namespace arbsim {

// Runs `todo`, `jobs` at a time. Returns false when a signal stopped the sweep: its runs are
// stopped (SIGTERM, then SIGKILL after 5 s) and the points left are "stopped".
bool run_local(const std::string& exe, const SweepSpec& s, const SweepLimits& lim, int jobs, SweepProgress& progress,
               const std::vector<SweepPoint*>& todo);

}  // namespace arbsim
