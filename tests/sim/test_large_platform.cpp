// A root complex with many GPUs (issue 9): its egress ports arbitrate among its ports and one
// host DMA engine per GPU of its tree, which capped a single socket at ~27 GPUs (32
// requesters). Requesters now go to Arbiter::kMaxRequesters (4,096): a 64-GPU tree under one
// socket, and 64 GPUs on root ports directly (129 requesters per RC egress), both run.
#include <gtest/gtest.h>
#include "tests/sim/sim_helpers.h"

using namespace arbsim;
using namespace arbsim::test;

namespace {

// 64 GPUs: under `switches` switches (8 GPUs each), or on root ports (switches = 0).
std::string sixty_four_gpus(int switches) {
  std::string nodes = "    - {name: rc0, type: root_complex}\n", links;
  for (int s = 0; s < switches; ++s) {
    nodes += "    - {name: sw" + std::to_string(s) + ", type: switch}\n";
    links += "    - {up: rc0, down: sw" + std::to_string(s) + "}\n";
  }
  std::string apps = "apps:\n";
  for (int g = 0; g < 64; ++g) {
    const std::string gpu = "gpu" + std::to_string(g);
    nodes += "    - {name: " + gpu + ", type: gpu}\n";
    links += "    - {up: " + (switches ? "sw" + std::to_string(g % switches) : std::string("rc0")) + ", down: " + gpu + "}\n";
    // Every other GPU pushes H2D through its RC DMA engine, the others write D2H.
    apps += "  - {type: stream, gpu: " + gpu + ", direction: " + (g % 2 ? "d2h" : "h2d") +
            ", size: {fixed: 16KiB}, count: 2}\n";
  }
  return "platform:\n  name: big\n  h2d_mode: push\n  nodes:\n" + nodes + "  links:\n" + links + apps;
}

void expect_all_delivered(const SimOutcome& o) {
  EXPECT_EQ(o.results["transfers_completed"].get<int>(), 128);
  EXPECT_EQ(o.results["bytes_delivered"].get<int>(), 128 * 16384);
  EXPECT_EQ(o.results["ordering_violations"].get<int>(), 0);
  EXPECT_EQ(o.results["transfers_open"].get<int>(), 0);
}

}  // namespace

TEST(LargePlatform, SixtyFourGpusUnderOneSocketThroughSwitches) {
  SimOutcome o = run_yaml(sixty_four_gpus(8));
  expect_all_delivered(o);
}

// 64 root ports + the memory port + 64 DMA engines: 129 requesters, three 64-bit words.
TEST(LargePlatform, SixtyFourGpusOnRootPorts) {
  SimOutcome o = run_yaml(sixty_four_gpus(0));
  expect_all_delivered(o);
}
