// A user's own endpoint on a pcie-arbsim platform: an accelerator card that reads a block of
// input from host memory, computes on it, and writes the result back, block after block.
// It is a SystemC module (a Device: models/devices/device.h) registered as node type
// `accelerator` with its YAML keys; the loader then checks `type: accelerator` nodes like
// built-in ones, and the platform attaches one to each such node's endpoint (its completer
// and two DMA engines) in either fidelity. docs/api.md walks through it.
#include <cstdio>
#include <iostream>
#include "apps/run/simulation.h"
#include "platforms/config/config_error.h"
#include "platforms/device_registry.h"

namespace {

class Accelerator : public arbsim::Device {
 public:
  SC_HAS_PROCESS(Accelerator);
  Accelerator(sc_core::sc_module_name name, const arbsim::EndpointCfg& cfg, arbsim::DeviceContext ctx)
      : Device(name, std::move(ctx)),
        block_(static_cast<uint64_t>(cfg.get("block_bytes"))),
        compute_(cfg.get("compute_ns"), sc_core::SC_NS),
        blocks_(static_cast<int64_t>(cfg.get("blocks"))) {
    SC_METHOD(computed);
    sensitive << compute_done_;
    dont_initialize();
    next();
  }
  bool finished() const override { return done_ >= blocks_; }

 private:
  // Read block k (engine 0 pulls it from host memory), compute, write the result (engine 1).
  void next() {
    if (started_ >= blocks_) return;
    ++started_;
    const sc_core::sc_time issued = sc_core::sc_time_stamp();
    dma(0, false, block_, 0, 0, [this, issued] {
      record(block_, false, issued);
      compute_done_.notify(compute_);
    });
  }
  void computed() {
    const sc_core::sc_time issued = sc_core::sc_time_stamp();
    dma(1, true, block_, 0, 0, [this, issued] {
      record(block_, true, issued);
      ++done_;
    });
    next();  // the next block's input loads while this result is written
  }

  const uint64_t block_;
  const sc_core::sc_time compute_;
  const int64_t blocks_;
  int64_t started_ = 0, done_ = 0;
  sc_core::sc_event compute_done_;
};

void register_accelerator() {
  using arbsim::KeyKind;
  arbsim::EndpointType t;
  t.name = "accelerator";
  t.description = "a card that reads a block from host memory, computes, and writes the result back";
  t.keys = {{"block_bytes", KeyKind::Bytes, 1 << 20, 512, 1 << 30, {}, "bytes read and written per block"},
            {"compute_ns", KeyKind::Time, 10000, 0, 1e9, {}, "compute time per block"},
            {"blocks", KeyKind::Count, 8, 1, 1e6, {}, "blocks in all"}};
  t.engines = 2;
  arbsim::register_device(t, [](sc_core::sc_module_name n, const arbsim::EndpointCfg& c, arbsim::DeviceContext ctx) {
    return std::make_unique<Accelerator>(n, c, std::move(ctx));
  });
}

}  // namespace

int sc_main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: custom_endpoint CONFIG.yaml\n";
    return 2;
  }
  register_accelerator();
  arbsim::Scenario scenario;
  try {
    scenario = arbsim::load_scenario(argv[1], {});
  } catch (const arbsim::ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  const arbsim::SimOutcome o = arbsim::simulate(scenario);
  // The accelerator's own figures, and the check that every block went both ways.
  bool ok = true;
  for (const auto& d : o.results["devices"]) {
    std::printf("%s (%s): %llu B read, %llu B written, %.3f Gb/s, block p50 %.3f us\n",
                d["name"].get<std::string>().c_str(), d["type"].get<std::string>().c_str(),
                d["bytes_from_host"].get<unsigned long long>(), d["bytes_to_host"].get<unsigned long long>(),
                d["throughput_gbps"].get<double>(), d["p50_ns"].get<double>() / 1e3);
    ok = ok && d["finished"].get<bool>() && d["bytes_to_host"] == d["bytes_from_host"];
  }
  std::printf("makespan %.3f us; %s\n", o.results["makespan_ns"].get<double>() / 1e3, ok ? "ok" : "INCOMPLETE");
  return ok ? 0 : 1;
}
