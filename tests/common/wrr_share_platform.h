// The platform of the share-control-by-WRR-weights tests (tests/config/test_share_points.cpp,
// tests/sim/test_periodic.cpp): three GPUs under sw0, host-pushed H2D data, and a wrr port
// arbiter at cpu0 -> sw0 with `weights` (its requesters: 0 = the sw0 port, 1 = memory, 2-4 =
// the host DMA engines of gpu0-gpu2: docs/config.md "Port arbiter at a root complex"),
// followed by `rest` (the driver: and apps: sections). 15 lines before `rest`.
#pragma once
#include <string>

namespace arbsim::test {

inline std::string three_gpus_wrr(const std::string& weights, const std::string& rest) {
  return "platform:\n"
         "  name: three-gpus\n"
         "  h2d_mode: push\n"
         "  defaults: {link: {gen: 3, width: 16}}\n"
         "  nodes:\n"
         "    - {name: cpu0, type: root_complex}\n"
         "    - {name: sw0, type: switch}\n"
         "    - {name: gpu0, type: gpu}\n"
         "    - {name: gpu1, type: gpu}\n"
         "    - {name: gpu2, type: gpu}\n"
         "  links:\n"
         "    - {up: cpu0, down: sw0, arbitration_down: {port_arbiter: {type: wrr, weights: " + weights + "}}}\n"
         "    - {up: sw0, down: gpu0}\n"
         "    - {up: sw0, down: gpu1}\n"
         "    - {up: sw0, down: gpu2}\n" + rest;
}

}  // namespace arbsim::test
