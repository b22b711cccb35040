// MIG instances in the config and the scenario (seed 001 §3.1, docs/gpu-sharing.md "MIG
// instances"): a GPU's `mig:` list splits it into instances, each with its own copy engines
// and its slices' share of the SMs; apps name an instance "<gpu>/mig<i>". Without a kernel.
#include <gtest/gtest.h>
#include <stdexcept>
#include <string>
#include "platforms/config/config_error.h"
#include "platforms/topology/arbitration.h"
#include "platforms/topology/scenario.h"
#include "tests/config/config_text.h"

// Its own namespace: the test programs are unity builds (tests/README.md).
namespace mig_config_test {

using namespace arbsim;
using namespace arbsim::test;

namespace {

// An A100 (108 SMs) split 1g + 2g + 3g beside a whole GPU; line numbers as in the text.
const std::string kBase =
    "platform:\n"                                                                  // 1
    "  nodes:\n"                                                                   // 2
    "    - {name: rc0, type: root_complex}\n"                                      // 3
    "    - {name: gpu0, type: gpu, mig: [1g.5gb, 2g, 3g.20gb]}\n"                  // 4
    "    - {name: gpu1, type: gpu}\n"                                              // 5
    "  links:\n"                                                                   // 6
    "    - {up: rc0, down: gpu0}\n"                                                // 7
    "    - {up: rc0, down: gpu1}\n"                                                // 8
    "apps:\n"                                                                      // 9
    "  - {name: a, type: copy_exec, gpu: gpu0/mig1, h2d_bytes: 1MiB, iterations: 1}\n";  // 10

}  // namespace

// Units in config order, a split GPU as its instances: 108 / 7 = 15 SMs a slice, two copy
// engines an instance (engines 0-1, 2-3, 4-5 of gpu0's six), gpu1 whole after them.
TEST(MigConfig, AnInstanceIsAUnitWithItsOwnEnginesAndSms) {
  const Scenario s = load_scenario_text(kBase);
  ASSERT_EQ(s.units.size(), 4u);
  const int sms[] = {15, 30, 45};
  for (int i = 0; i < 3; ++i) {
    const GpuUnit& u = s.units[static_cast<std::size_t>(i)];
    EXPECT_EQ(u.name, "gpu0/mig" + std::to_string(i));
    EXPECT_EQ(u.gpu, 0);
    EXPECT_EQ(u.instance, i);
    EXPECT_EQ(u.slices, i + 1);
    EXPECT_EQ(u.first_engine, 2 * i);
    EXPECT_EQ(u.sm.sms, sms[i]);
  }
  EXPECT_EQ(s.units[3].name, "gpu1");
  EXPECT_EQ(s.units[3].sm.sms, 108);
  EXPECT_EQ(s.unit_of("gpu0/mig2"), 2);
  EXPECT_EQ(s.unit_of("gpu1"), 3);
  EXPECT_EQ(s.unit_of("gpu0"), -1);
  // gpu0's endpoint has 6 engines behind its egress (1 completer + 6 requesters), named per instance.
  EXPECT_EQ(arbitration_slots(s.platform(), s.topo, 1), 7);
  const std::vector<std::string> names = requester_names(s.platform(), s.topo, 1);
  EXPECT_EQ(names.at(1), "mig0_ce0");
  EXPECT_EQ(names.at(6), "mig2_ce1");
}

TEST(MigConfig, MoreSlicesThanTheGpuHas) {
  EXPECT_EQ(error_of(replace(kBase, "[1g.5gb, 2g, 3g.20gb]", "[4g, 4g]")),
            "bad.yaml:4: platform.nodes[1].mig: the instances take 8 slices; the GPU has 7 (mig_slices)");
}

TEST(MigConfig, AProfileAnA100DoesNotOffer) {
  EXPECT_EQ(error_of(replace(kBase, "2g, 3g.20gb", "5g")),
            "bad.yaml:4: platform.nodes[1].mig[1]: no 5g instance on a GPU of 7 slices (mig_slices): an A100 "
            "offers 1g, 2g, 3g, 4g and 7g");
  EXPECT_EQ(error_of(replace(kBase, "2g, 3g.20gb", "big")),
            "bad.yaml:4: platform.nodes[1].mig[1]: expected a MIG profile such as 1g, 3g or 3g.20gb, got 'big'");
}

// Seed 001 §5.3's hypothetical GPUs with more instances: mig_slices raises the limit.
TEST(MigConfig, MoreSlicesMakeMoreInstances) {
  const std::string y = replace(kBase, "mig: [1g.5gb, 2g, 3g.20gb]", "sms: 120, mig_slices: 12, mig: [1g, 1g, 5g, 5g]");
  const Scenario s = load_scenario_text(y);
  EXPECT_EQ(s.units.size(), 5u);
  EXPECT_EQ(s.units[2].sm.sms, 50);  // 120 / 12 x 5
}

TEST(MigConfig, ASplitGpuIsAddressedThroughItsInstances) {
  EXPECT_EQ(error_of(replace(kBase, "gpu: gpu0/mig1", "gpu: gpu0")),
            "bad.yaml:10: apps[0].gpu: gpu 'gpu0' is split into 3 MIG instances: name one, 'gpu0/mig0' .. "
            "'gpu0/mig2'");
  EXPECT_EQ(error_of(replace(kBase, "gpu: gpu0/mig1", "gpu: gpu0/mig3")),
            "bad.yaml:10: apps[0].gpu: no 'gpu0/mig3': gpu 'gpu0' has MIG instances 'gpu0/mig0' .. 'gpu0/mig2'");
  EXPECT_EQ(error_of(replace(kBase, "gpu: gpu0/mig1", "gpu: gpu1/mig0")),
            "bad.yaml:10: apps[0].gpu: gpu 'gpu1' is not split into MIG instances (its key `mig`), so there is "
            "no 'gpu1/mig0'");
  EXPECT_EQ(error_of(replace(kBase, "gpu: gpu0/mig1", "gpu: gpu0/1")),
            "bad.yaml:10: apps[0].gpu: 'gpu0/1': a MIG instance is named <gpu>/mig<i>, i in decimal with no leading "
            "zero, e.g. 'gpu0/mig0'");
  // "mig01" read as instance 1 while its name matched none: validate said ok, run crashed
  // (SIGSEGV at elaboration, found by a user trial).
  for (const char* bad : {"gpu0/mig01", "gpu0/mig00"})
    EXPECT_EQ(error_of(replace(kBase, "gpu: gpu0/mig1", std::string("gpu: ") + bad)),
              std::string("bad.yaml:10: apps[0].gpu: '") + bad +
                  "': a MIG instance is named <gpu>/mig<i>, i in decimal with no leading zero, e.g. 'gpu0/mig0'");
  EXPECT_EQ(error_of(replace(kBase, "gpu: gpu0/mig1", "gpu: gpu0/mig0")), "");
}

TEST(MigConfig, APeerCopyBetweenInstancesOfOneGpuDoesNotCrossPcie) {
  const std::string y = replace(kBase, "type: copy_exec, gpu: gpu0/mig1, h2d_bytes: 1MiB, iterations: 1",
                                "type: peer, gpu: gpu0/mig1, peer: gpu0/mig0, size: {fixed: 4096}, count: 1");
  EXPECT_EQ(error_of(y), "bad.yaml:10: apps[0].peer: 'gpu0/mig1' and 'gpu0/mig0' are instances of one GPU: a copy "
                         "between them does not cross PCIe");
  // To another GPU it does.
  EXPECT_EQ(error_of(replace(y, "peer: gpu0/mig0", "peer: gpu1")), "");
}

TEST(MigConfig, InstancesPullTheirOwnData) {
  EXPECT_EQ(error_of(replace(kBase, "type: gpu, mig:", "type: gpu, h2d_mode: push, mig:")),
            "bad.yaml:4: platform.nodes[1].mig: MIG instances need h2d_mode read: each pulls its data with its own "
            "copy engine (one host DMA engine per GPU would serialise them)");
}

TEST(MigConfig, BatchAppsRunOnWholeGpus) {
  const std::string y = replace(kBase, "{name: a, type: copy_exec, gpu: gpu0/mig1, h2d_bytes: 1MiB, iterations: 1}",
                                "{name: a, type: batch, count: 1, streams: [{gpu: gpu0/mig1, bytes: 4096}]}");
  EXPECT_EQ(error_of(y), "bad.yaml:10: apps[0].streams[0].gpu: batch apps run on whole GPUs; 'gpu0/mig1' is a "
                         "MIG instance");
}

}  // namespace mig_config_test
