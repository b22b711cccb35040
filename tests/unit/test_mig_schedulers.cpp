// Seed 001's job level on hand-worked arrival sequences (models/jobs/): the performance model
// (Eq. 1-3), and which GPU each scheduler picks, when, and why a job waits - PCIe-bound jobs
// spread by predicted slowdown, the delay threshold and its lifting after the wait-time
// threshold, reconfiguration of idle GPUs only (marking, principle 2), and best fit for a
// starving job. Without a kernel.
#include <gtest/gtest.h>
#include <stdexcept>
#include <vector>
#include "models/jobs/mig_scheduler.h"
#include "tests/unit/mig_job.h"

// Its own namespace: the test programs are unity builds (tests/README.md).
namespace mig_schedulers_test {

using namespace arbsim::jobs;

namespace {

const std::vector<int> k7x1g = {1, 1, 1, 1, 1, 1, 1};

MigJob job(int id, double demand, double work = 100, int slices = 1) { return arbsim::test::mig_job(id, demand, work, slices); }

std::vector<int> gpus_of(const std::vector<Placement>& ps) {
  std::vector<int> g;
  for (const Placement& p : ps) g.push_back(p.gpu);
  return g;
}

}  // namespace

// Eq. 2 with Table 2's Bloom560m (5.7 GB/s, alpha 1.25) on §5.1's 30.08 GB/s: four jobs
// 1.25 x 5.7 x 4 / 30.08 = 0.947 -> 1; six 1.421. Eq. 3: 100 tokens at 10/s, slowdown 1.5:
// 15 s. Eq. 1's fit through the origin of y = 2x: 2.
TEST(MigPerfModel, Equations) {
  EXPECT_DOUBLE_EQ(slowdown(1.25, 5.7, 30.08, 4), 1.0);
  EXPECT_NEAR(slowdown(1.25, 5.7, 30.08, 6), 1.25 * 5.7 * 6 / 30.08, 1e-12);
  EXPECT_DOUBLE_EQ(slowdown(1.25, 0, 30.08, 6), 1.0);  // not PCIe-bound
  EXPECT_DOUBLE_EQ(exec_time(100, 10, 1.5), 15.0);
  EXPECT_DOUBLE_EQ(fit_alpha({{0.5, 1.0}, {1.0, 2.0}, {2.0, 4.0}}), 2.0);
  EXPECT_THROW(fit_alpha({}), std::invalid_argument);
}

// Two GPUs of seven 1g instances, PCIe_max 30 GB/s; A, B, C PCIe-bound (15 GB/s each), D not.
// first_fit fills GPU 0. pcie_aware: A on GPU 0 (slowdown 1 on both, id); B on GPU 0 (15 x 2
// / 30 = 1 on both; best fit: GPU 0 has 6 free slices, GPU 1 7); C on GPU 1 (1.5 on GPU 0
// against 1); D (no PCIe) on GPU 0 (slowdown 1 on both, 5 free slices against 6).
TEST(MigSchedulers, PcieBoundJobsSpreadUnderPcieAwareAndPileUpUnderFirstFit) {
  const std::vector<MigJob> js = {job(0, 15), job(1, 15), job(2, 15), job(3, 0)};
  std::vector<const MigJob*> waiting;
  for (const MigJob& j : js) waiting.push_back(&j);
  MigCluster ff(2, k7x1g, 30), pa(2, k7x1g, 30);
  EXPECT_EQ(gpus_of(make_mig_scheduler("first_fit", {})->schedule(0, waiting, ff)), (std::vector<int>{0, 0, 0, 0}));
  EXPECT_EQ(gpus_of(make_mig_scheduler("pcie_aware", {})->schedule(0, waiting, pa)), (std::vector<int>{0, 0, 1, 0}));
  EXPECT_EQ(pa.pcie_jobs(0), 2);
  EXPECT_EQ(pa.pcie_jobs(1), 1);
}

// One GPU, 20-GB/s jobs, delay_threshold 1.5, wait_time_threshold 60 s: A (slowdown 1) and B
// (20 x 2 / 30 = 1.33) run; C (2.0) waits at t = 0 and t = 10; at t = 60 it has waited the
// threshold and runs at 2.0.
TEST(MigSchedulers, DelayThresholdHoldsAJobUntilItHasWaitedTheWaitTimeThreshold) {
  const MigJob a = job(0, 20), b = job(1, 20), c = job(2, 20);  // arriving at 0
  MigCluster cl(1, k7x1g, 30);
  auto s = make_mig_scheduler("pcie_aware", {1.5, 60, 0});
  EXPECT_EQ(s->schedule(0, {&a, &b, &c}, cl).size(), 2u);
  EXPECT_TRUE(s->schedule(10, {&c}, cl).empty());
  const std::vector<Placement> p = s->schedule(60, {&c}, cl);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].job, 2);
  EXPECT_DOUBLE_EQ(cl.slowdown_on(job(9, 20), 0), 20.0 * 4 / 30);  // a fourth would see four
}

// A 3g job on two GPUs of 1g instances. Under pcie_aware no GPU has a 3g instance: the GPU
// with the earliest estimated end (GPU 1, idle) is marked, re-split in the next round as
// [3, 1, 1, 1, 1] (partition_for) and the job placed there at once (reconfig_s 0). With a
// 5-s reconfiguration it waits: not at t = 1, on GPU 1 at t = 5. first_fit re-splits the
// first idle GPU the same way.
TEST(MigSchedulers, OnlyIdleGpusAreReconfiguredForAMissingSize) {
  const MigJob small = job(0, 0), big = job(1, 0, 100, 3);
  EXPECT_EQ(partition_for({3}, 7), (std::vector<int>{3, 1, 1, 1, 1}));
  EXPECT_EQ(partition_for({4, 3, 2}, 7), (std::vector<int>{2, 3, 1, 1}));  // most jobs: smallest first
  for (const char* name : {"pcie_aware", "first_fit"}) {
    MigCluster cl(2, k7x1g, 30);
    auto s = make_mig_scheduler(name, {1.5, 60, 0});
    s->schedule(0, {&small}, cl);  // GPU 0 busy
    const std::vector<Placement> p = s->schedule(0, {&big}, cl);
    ASSERT_EQ(p.size(), 1u) << name;
    EXPECT_EQ(p[0].gpu, 1) << name;
    EXPECT_EQ(cl.gpu(1).instances.at(static_cast<std::size_t>(p[0].instance)).slices, 3) << name;
  }
  MigCluster cl(2, k7x1g, 30);
  auto s = make_mig_scheduler("pcie_aware", {1.5, 60, 5});
  s->schedule(0, {&small}, cl);
  EXPECT_TRUE(s->schedule(0, {&big}, cl).empty());
  EXPECT_TRUE(s->schedule(1, {&big}, cl).empty());
  const std::vector<Placement> p = s->schedule(5, {&big}, cl);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].gpu, 1);
}

// Principle 2: GPU 0 runs one 100-s job, GPU 1 two 10-s jobs. A 3g job finds no instance:
// GPU 1 (estimated end 10 s, the earliest) is marked. A 5-s 1g job ends before it and goes to
// GPU 1 by best fit (5 free slices against 6); a 50-s one would go there too (4 against 6)
// but would end after it, so it goes to GPU 0. At t = 10, with GPU 1 idle, it is re-split and
// the 3g job runs.
TEST(MigSchedulers, AMarkedGpuTakesOnlyJobsThatEndBeforeIt) {
  const MigJob l = job(0, 0, 100), m1 = job(1, 0, 10), m2 = job(2, 0, 10), big = job(3, 0, 100, 3);
  const MigJob lng = job(4, 0, 50), shrt = job(5, 0, 5);
  MigCluster cl(2, k7x1g, 30);
  auto s = make_mig_scheduler("pcie_aware", {1.5, 60, 0});
  cl.start(l, {0, 0, 0}, 0);
  cl.start(m1, {1, 1, 0}, 0);
  cl.start(m2, {2, 1, 1}, 0);
  EXPECT_TRUE(s->schedule(0, {&big}, cl).empty());
  EXPECT_TRUE(cl.gpu(1).marked);
  EXPECT_EQ(gpus_of(s->schedule(0, {&big, &shrt, &lng}, cl)), (std::vector<int>{1, 0}));
  cl.finish(5, 5);
  cl.finish(1, 10);
  cl.finish(2, 10);
  const std::vector<Placement> p = s->schedule(10, {&big}, cl);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].gpu, 1);
  EXPECT_FALSE(cl.gpu(1).marked);
}

// Principle 4: a 2g job on a busy GPU split [3, 1, 1, 1, 1] waits (no 2g instance, the GPU is
// not idle) until it has waited 60 s; then it takes the smallest free instance that fits: 3g.
TEST(MigSchedulers, AStarvingJobTakesTheBestFittingLargerInstance) {
  const MigJob busy = job(0, 0, 1000), want2g = job(1, 0, 100, 2);
  MigCluster cl(1, {3, 1, 1, 1, 1}, 30);
  cl.start(busy, {0, 0, 1}, 0);
  auto s = make_mig_scheduler("pcie_aware", {1.5, 60, 0});
  EXPECT_TRUE(s->schedule(0, {&want2g}, cl).empty());
  const std::vector<Placement> p = s->schedule(60, {&want2g}, cl);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].instance, 0);
}

// The scheduler's records (stage 1): two 15-GB/s jobs on one GPU (slowdown 1 each) and a
// third making it 1.5: from t = 10 on each progresses at 1/1.5 token/s.
TEST(MigSchedulers, RecordsFollowThePredictedRates) {
  MigCluster cl(1, k7x1g, 30);
  const MigJob a = job(0, 15), b = job(1, 15), c = job(2, 15);
  cl.start(a, {0, 0, 0}, 0);
  cl.start(b, {1, 0, 1}, 0);
  cl.start(c, {2, 0, 2}, 10);
  cl.update(16);
  EXPECT_DOUBLE_EQ(cl.remain_work(0), 100 - 10 - 6 / 1.5);
  EXPECT_DOUBLE_EQ(cl.remain_work(2), 100 - 6 / 1.5);
  EXPECT_THROW(make_mig_scheduler("round_robin", {}), std::invalid_argument);
}

// Principle 3: a job whose size the configurations hold but whose instances are all busy
// waits for one to free; no GPU is marked for a re-split (which would keep new jobs off it
// while it drains). One GPU of two 1g instances, both busy until t = 10: a third 1g job waits
// unmarked and takes instance 0 when its job ends at 10.
TEST(MigSchedulers, ABusySizeWaitsWithoutMarkingAGpu) {
  MigCluster cl(1, {1, 1}, 30);
  const MigJob a = job(0, 0, 10), b = job(1, 0, 20), c = job(2, 0, 5);
  auto s = make_mig_scheduler("pcie_aware", {1.5, 60, 0});
  EXPECT_EQ(s->schedule(0, {&a, &b}, cl).size(), 2u);
  EXPECT_TRUE(s->schedule(0, {&c}, cl).empty());
  EXPECT_FALSE(cl.gpu(0).marked);
  cl.finish(0, 10);
  const std::vector<Placement> p = s->schedule(10, {&c}, cl);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].instance, 0);
}

}  // namespace mig_schedulers_test
