// What neither fidelity represents that a config asks, found from the config alone and listed
// in results.json fidelity_notes in both (docs/results.md): a number the model cannot give is
// said, never left silent. Plain C++ over the Scenario.
#pragma once
#include <string>
#include <vector>
#include "platforms/fabric.h"
#include "platforms/topology/scenario.h"

namespace arbsim {

// Pushed copies (h2d_mode: push) are read by their root complex's host DMA engines inside it
// (models/pcie/root_complex.h): they do not cross its memory port, so memory.bandwidth_GBps
// and read_latency_ns do not bound or delay them. Where a GPU pushes, noted for each root
// complex whose memory bandwidth is below what its root ports can carry down (where the
// memory could bind and does not).
// A peer app between GPUs of two PCIe domains moves its copies as peer writes over the
// processor interconnect, where such platforms stage them through host memory (seed 002
// §2.1; a batch app's peer stream does): noted for each such app.
// A batch app on GPUs with copy_submit_ns > 0: seed 002's predictor has no submission cost,
// so its predictions are short by it (noted per app; `predict` prints the same); the same
// for a batch app's credit-limited copies (its rates are max-min shares of the links).
std::vector<FidelityNote> model_notes(const Scenario& s);

// For `predict`: "copy_submit_ns > 0 on gpu0, gpu1" where batch app `b`'s GPUs have a
// submission cost, "" where none does; and what that leaves out of its predictions.
std::string batch_submit_setting(const Scenario& s, const BatchParams& b);
extern const char* const kBatchSubmitEffect;
// The same for credits: "credit-limited copies to or from gpu0" where a copy of batch app
// `b` crosses a receiver whose credits carry less per round trip than the copy could move
// alone, "" where none does; and what that leaves out.
std::string batch_credit_setting(const Scenario& s, const BatchParams& b);
extern const char* const kBatchCreditEffect;

}  // namespace arbsim
