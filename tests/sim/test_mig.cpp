// MIG instances sharing one GPU's link (seed 001 §3.1, Fig. 1; docs/gpu-sharing.md "MIG
// instances"). An A100 on a Gen4 x16 root port, split 1g + 2g + 3g. The mechanism stated
// there: a copy uses one copy engine of its instance; every engine has the same tags; the
// host memory completes reads in arrival order and the root port sends the completions in
// that order. So n instances reading at once keep the same number of reads in flight each and
// get the same share of the link, C / n, whatever their sizes, where C is the downstream
// direction's CplD payload rate:
//   C = TLP_bw x 256 / (256 + CplD overhead)   (pcie-bench's TLP bandwidth, docs/pcie-reference.md §2)
#include <gtest/gtest.h>
#include "models/pcie/link_timing.h"
#include "tests/sim/sim_helpers.h"

using namespace arbsim;
using namespace arbsim::test;

namespace {

std::string a100(const std::string& apps) {
  return "platform:\n"
         "  name: a100-pcie\n"
         "  defaults: {link: {gen: 4, width: 16, latency_ns: 20}}\n"
         "  nodes:\n"
         "    - {name: rc0, type: root_complex, memory: {bandwidth_GBps: 1000}}\n"
         "    - {name: gpu0, type: gpu, mig: [1g.5gb, 2g.10gb, 3g.20gb]}\n"
         "    - {name: gpu1, type: gpu}\n"
         "  links:\n"
         "    - {up: rc0, down: gpu0}\n"
         "    - {up: rc0, down: gpu1}\n"
         "apps:\n" + apps;
}

std::string copy(const std::string& name, const std::string& gpu, const std::string& bytes,
                 const std::string& more = "iterations: 1") {
  return "  - {name: " + name + ", type: copy_exec, gpu: " + gpu + ", h2d_bytes: " + bytes + ", " + more + "}\n";
}

// GB/s of CplD payload on a saturated Gen4 x16 downstream direction.
double cpld_payload_GBps() {
  PcieLinkParams p;
  p.gen = 4;
  p.width = 16;
  const double tlp = tlp_bandwidth_gbps(p) / 8.0;
  return tlp * 256.0 / (256.0 + tlp_overhead_bytes(TlpType::CplD, p));
}

double gbps(const SimOutcome& o, const std::string& name) { return app(o, name)["throughput_gbps"].get<double>() / 8; }

void expect_equal_split(const std::string& fidelity) {
  SimOutcome o = run_yaml(a100(copy("a", "gpu0/mig0", "32MiB") + copy("b", "gpu0/mig1", "32MiB") +
                               copy("c", "gpu0/mig2", "32MiB")),
                          {"sim.fidelity=" + fidelity});
  const double share = cpld_payload_GBps() / 3;
  for (const char* n : {"a", "b", "c"}) EXPECT_NEAR(gbps(o, n), share, 0.02 * share) << n << " " << fidelity;
  EXPECT_NEAR(gbps(o, "a"), gbps(o, "c"), 0.005 * share);  // 1g and 3g alike
  EXPECT_EQ(o.results["gpus"][0]["mig_profile"], "1g");
  EXPECT_EQ(o.results["gpus"][2]["sms"], 45);
}

}  // namespace

TEST(Mig, ThreeInstancesSplitTheLinkEquallyPacket) { expect_equal_split("packet"); }
TEST(Mig, ThreeInstancesSplitTheLinkEquallyFlow) { expect_equal_split("flow"); }

// Shares follow the number of instances copying, not their sizes: 1g copies 16 MiB and 3g
// 48 MiB from t = 0. Both move at C / 2 until 1g's last byte, at 2 x 16 MiB / C; then 3g has
// 32 MiB left and moves alone at R1, what one engine moves on its own (an unsplit GPU's
// copy, gpu1's, run before them on its own link: R1 < C, its tags limit it).
TEST(Mig, SharesFollowTheNumberOfInstancesCopying) {
  const std::string later = "iterations: 1, start_ns: 2ms";
  SimOutcome o = run_yaml(a100(copy("alone", "gpu1", "64MiB") + copy("small", "gpu0/mig0", "16MiB", later) +
                               copy("large", "gpu0/mig2", "48MiB", later)));
  const double c = cpld_payload_GBps(), r1 = gbps(o, "alone");
  const double mib = 1 << 20;
  const double t1 = 2e6 + 2 * 16 * mib / c;
  EXPECT_NEAR(end_of(o, "small"), t1, 0.01 * (t1 - 2e6));
  const double t2 = t1 + 32 * mib / r1;
  EXPECT_NEAR(end_of(o, "large"), t2, 0.01 * (t2 - 2e6));
}

// An instance copying alone is as fast as a whole GPU: the same engine, tags and link
// (gpu1 on its own root port at the same time; host memory is not the limit).
TEST(Mig, AnInstanceAloneCopiesAsFastAsAWholeGpu) {
  SimOutcome o = run_yaml(a100(copy("inst", "gpu0/mig1", "32MiB") + copy("whole", "gpu1", "32MiB")));
  EXPECT_NEAR(end_of(o, "inst"), end_of(o, "whole"), 1e-3 * end_of(o, "whole"));
}

// Compute is isolated: kernels of two instances run at once (1 ms each, both done by
// 1 ms + the 4-KiB copy), while two apps on one whole GPU take turns (2 ms).
TEST(Mig, InstancesRunKernelsIndependently) {
  const std::string k = "kernel_ns: 1ms, iterations: 1";
  SimOutcome o = run_yaml(a100(copy("a", "gpu0/mig0", "4KiB", k) + copy("b", "gpu0/mig1", "4KiB", k) +
                               copy("c", "gpu1", "4KiB", k) + copy("d", "gpu1", "4KiB", k)));
  EXPECT_LT(end_of(o, "a"), 1.01e6);
  EXPECT_LT(end_of(o, "b"), 1.01e6);
  EXPECT_GT(std::max(end_of(o, "c"), end_of(o, "d")), 2e6);
}
