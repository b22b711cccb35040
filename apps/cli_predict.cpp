// `pcie-arbsim predict CONFIG`: predictBatchLatency (seed 002 §3.1) for every batch app of
// a config, under each of the three methods, without simulating: Algorithm 1's timeline
// (and the two baselines') on the platform's graph with max-min sharing.
#include <cstdio>
#include <iostream>
#include "apps/cli.h"
#include "platforms/batch_model.h"
#include "platforms/config.h"

namespace arbsim {

namespace {

void print_timeline(const AppCfg& a, BatchMethod m, const BatchTimeline& t) {
  std::printf("  %-22s makespan %12.3f us\n", to_string(m), t.makespan_ns / 1e3);
  for (std::size_t i = 0; i < t.streams.size(); ++i) {
    const StreamTimes& s = t.streams[i];
    std::printf("    S%zu %-8s copy %12.3f -> %12.3f us   kernel %12.3f -> %12.3f us\n", i + 1,
                a.streams[i].gpu.c_str(), s.copy_start / 1e3, s.copy_end / 1e3, s.kernel_start / 1e3,
                s.kernel_end / 1e3);
  }
}

}  // namespace

int cmd_predict(const RunArgs& args) {
  Config cfg;
  try {
    cfg = load_config(args.config, args.overrides);
  } catch (const ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  }
  const Topology topo = build_topology(Reader(cfg.effective["platform"], "platform", cfg.file), cfg.platform);
  const BatchModel model = make_batch_model(cfg.platform, topo);
  int batches = 0;
  for (const AppCfg& a : cfg.apps) {
    if (a.type != "batch") continue;
    ++batches;
    const std::vector<BatchStreamOp> ops = batch_ops(cfg.platform, a);
    std::printf("%s (%zu streams; the app runs %s)\n", a.name.c_str(), a.streams.size(), a.batch_method.c_str());
    for (BatchMethod m : {BatchMethod::Batch, BatchMethod::BandwidthAllocation, BatchMethod::TimeDivision})
      print_timeline(a, m, model.predict(ops, m));
  }
  if (batches == 0) std::printf("%s has no batch app: nothing to predict\n", args.config.c_str());
  return kExitOk;
}

}  // namespace arbsim
