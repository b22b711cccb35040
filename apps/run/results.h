// results.json: every figure of a run that depends only on the config and the seed, so the
// same inputs give a byte-identical file (wall-clock figures go to run.json). docs/results.md.
#pragma once
#include <nlohmann/json.hpp>
#include "platforms/system.h"

namespace arbsim {

nlohmann::ordered_json collect_results(const System& sys, const sc_core::sc_time& end);
// Nearest-rank percentile (q in [0,1]) of unsorted samples; 0 when empty.
double percentile(std::vector<double> v, double q);

}  // namespace arbsim
