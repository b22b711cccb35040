// Prints the TLP bandwidth of a Gen3 x16 link at MPS 256 through the library's link timing
// (docs/pcie-reference.md §2: 113.7 Gb/s = 14.21 GB/s), and a round-robin grant.
#include <cstdio>
#include "models/pcie/arbiters/catalogue.h"
#include "models/pcie/link_timing.h"

int main() {
  arbsim::PcieLinkParams p;
  p.gen = 3;
  p.width = 16;
  p.mps = 256;
  std::printf("Gen3 x16 TLP bandwidth %.2f GB/s; %zu arbiter types\n", arbsim::tlp_bandwidth_gbps(p) / 8.0,
              arbsim::arbiter_catalogue().size());
  return 0;
}
