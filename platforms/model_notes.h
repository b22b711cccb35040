// What neither fidelity represents that a config asks, found from the config alone and listed
// in results.json fidelity_notes in both (docs/results.md): a number the model cannot give is
// said, never left silent. Plain C++ over the Scenario.
#pragma once
#include <vector>
#include "platforms/fabric.h"
#include "platforms/topology/scenario.h"

namespace arbsim {

// Pushed copies (h2d_mode: push) are read by their root complex's host DMA engines inside it
// (models/pcie/root_complex.h): they do not cross its memory port, so memory.bandwidth_GBps
// and read_latency_ns do not bound or delay them. Where a GPU pushes, noted for each root
// complex whose memory bandwidth is below what its root ports can carry down (where the
// memory could bind and does not).
std::vector<FidelityNote> model_notes(const Scenario& s);

}  // namespace arbsim
