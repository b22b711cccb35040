// A sweep's tables (docs/sweeps.md): summary.csv (one wide row per point, as before) and the
// tidy tables under DIR/tables/, one row per point and app, per point and link direction, per
// point and arbiter, and per VC of each, with the swept parameters as columns: CSV that
// pandas reads as it is (python/pcie_arbsim loads them).
#pragma once
#include <string>
#include <utility>
#include <vector>
#include "apps/cli/sweep_point.h"

namespace arbsim {

std::string summary_csv(const SweepSpec& s, const std::vector<SweepPoint>& points);

// (file name under DIR, CSV text) of every tidy table.
std::vector<std::pair<std::string, std::string>> tidy_tables(const SweepSpec& s, const std::vector<SweepPoint>& points);

}  // namespace arbsim
