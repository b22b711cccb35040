// A read's requests take turns at host memory's port (flow_network.h, kTurnOnlyWeight): there
// an MRd takes no time on the wire but one grant of the port's arbiters, which turn TLP by
// TLP. Hand-worked timeline, checked in both fidelities within 0.5 %.
#include <gtest/gtest.h>
#include <string>
#include "tests/sim/sim_helpers.h"

namespace flow_memory_turns_test {

using namespace arbsim;
using namespace arbsim::test;

namespace {

// Three GPUs on root ports of their own (Gen4 x16, far faster than the memory), host memory
// at 8 GB/s each way, MPS 256, MRRS 1 KiB. gpu0 writes 9 MB in TC0 and gpu1 3 MB in TC1;
// gpu2 reads 16 MB in TC1, its MRds in the memory port's VC1 beside gpu1's writes, with 32
// tags: its first window of MRds arrives at once and takes turns from w1 ahead of their pace
// (w1's end in the packet model, by gpu2's tags: 32, 1,001.2 us; 256, 1,010.8; 768, 1,032.6:
// ~42 ns a tag), a start-up the fluid leaves out (the named "tag window bursting").
SimOutcome memory_turns(const char* fidelity) {
  return run_yaml(std::string("platform:\n  name: m\n  mps: 256\n  mrrs: 1024\n"
                              "  nodes: [{name: rc0, type: root_complex, memory: {bandwidth_GBps: 8}},"
                              " {name: gpu0, type: gpu}, {name: gpu1, type: gpu}, {name: gpu2, type: gpu, tags: 32}]\n"
                              "  links: [{up: rc0, down: gpu0, gen: 4, width: 16}, {up: rc0, down: gpu1, gen: 4, width: 16},"
                              " {up: rc0, down: gpu2, gen: 4, width: 16}]\n"
                              "sim: {fidelity: ") + fidelity + "}\n"
                  "apps:\n"
                  "  - {name: w0, type: stream, gpu: gpu0, direction: d2h, tc: 0, size: {fixed: 9000000}, count: 1}\n"
                  "  - {name: w1, type: stream, gpu: gpu1, direction: d2h, tc: 1, size: {fixed: 3000000}, count: 1}\n"
                  "  - {name: r2, type: stream, gpu: gpu2, direction: h2d, tc: 1, size: {fixed: 16000000}, count: 1}\n");
}

// By hand. The read's data leave the memory alone at 8 GB/s: its MRds reach the write side
// at 8 / 1024 = 0.0078125 per ns. The write side turns round robin over VC0 (w0) and VC1 (w1
// and the MRds), so each VC has L turns per ns: 256 B x (L + L - 0.0078125) = 8 B/ns, L =
// 0.01953125: w0 5 GB/s, w1 3 GB/s. w1 ends at 3 MB / 3 = 1.0 ms; w0 has 5 MB by then and the
// write side to itself (the MRds take turns, not time): 4 MB / 8 = 0.5 ms more, 1.5 ms. The
// read ends at 16 MB / 8 = 2.0 ms. Leaving the MRds out, the two writes get 4 GB/s each and w1
// ends at 0.75 ms (the fluid did so before).
void expect_memory_turns(const SimOutcome& o) {
  EXPECT_NEAR(end_of(o, "w1"), 1.0e6, 0.005e6);
  EXPECT_NEAR(end_of(o, "w0"), 1.5e6, 0.0075e6);
  EXPECT_NEAR(end_of(o, "r2"), 2.0e6, 0.01e6);
}

}  // namespace

TEST(FlowMemoryTurns, AReadsRequestsTakeTurnsFromTheWritesInTheirVcAtTheMemory) {
  expect_memory_turns(memory_turns("flow"));
}

TEST(FlowMemoryTurns, AReadsRequestsTakeTurnsFromTheWritesInTheirVcAtTheMemoryInThePacketModel) {
  expect_memory_turns(memory_turns("packet"));
}

}  // namespace flow_memory_turns_test
