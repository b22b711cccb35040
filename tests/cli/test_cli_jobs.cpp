// `pcie-arbsim jobs` (seed 001's job level): the shipped trace example against its
// hand-worked timeline, byte-identical outputs for the same config, and bad input refused
// with one error line and no output directory.
#include <gtest/gtest.h>
#include <fstream>
#include "tests/cli/cli_fixture.h"

using namespace arbsim::test;

namespace {

std::vector<std::vector<double>> csv_rows(const std::string& text) {
  std::vector<std::vector<double>> rows;
  const std::vector<std::string> ls = lines(text);
  for (std::size_t i = 1; i < ls.size(); ++i) {
    std::vector<double> r;
    std::stringstream s(ls[i]);
    for (std::string f; std::getline(s, f, ',');) r.push_back(std::stod(f));
    rows.push_back(r);
  }
  return rows;
}

// configs/jobs/trace_example: two GPUs of seven 1g instances, 30.08 GB/s each. Bloom7b1
// (17.65 GB/s, alpha 1.07) jobs of 100 s arrive at 0, 0.5 and 1; a 2g ResNet50 job of 50 s
// at 2. pcie_aware: job 0 -> GPU 0; job 1 -> GPU 1 (Eq. 2 slowdown 1 there, 1.256 on GPU 0);
// job 2 -> GPU 0 (1.256 on both, <= 1.5; equal free slices: lowest id). On GPU 0 the two
// share the link: 15.04 GB/s each, rate r = 15.04 / 17.65 = 0.85212: job 0 ends at
// 1 + 99 / r = 117.18, job 2 has 1 unit left then and ends at 118.18. Job 1 runs alone:
// 100.5. No GPU has a 2g instance: GPU 1 (estimated end 100.5, the earliest) is marked,
// re-split when idle, and job 3 runs 100.5 -> 150.5.
TEST_F(Cli, JobsTraceExampleFollowsTheHandWorkedTimeline) {
  const Result r = run({"jobs", config("jobs/trace_example.yaml"), "--out", "o"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = csv_rows(slurp(dir_ / "o" / "jobs.csv"));
  ASSERT_EQ(rows.size(), 4u);
  const double rate = 30.08 / 2 / 17.65;
  const double expect_gpu[] = {0, 1, 0, 1}, expect_end[] = {1 + 99 / rate, 100.5, 1 + 99 / rate + 1, 150.5};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(rows[i][4], expect_gpu[i]) << "job " << i;
    EXPECT_NEAR(rows[i][7], expect_end[i], 1e-9) << "job " << i;
  }
  EXPECT_EQ(rows[3][5], 2);       // on a 2g instance
  EXPECT_EQ(rows[3][6], 100.5);   // started when GPU 1 was re-split
  EXPECT_TRUE(fs::exists(dir_ / "o" / "config.effective.yaml"));
}

TEST_F(Cli, JobsOutputsAreByteIdenticalForTheSameConfig) {
  ASSERT_EQ(run({"jobs", config("jobs/seed001_testbed.yaml"), "--out", "a"}).code, 0);
  ASSERT_EQ(run({"jobs", config("jobs/seed001_testbed.yaml"), "--out", "b"}).code, 0);
  for (const char* f : {"results.json", "jobs.csv", "config.effective.yaml"})
    EXPECT_EQ(slurp(dir_ / "a" / f), slurp(dir_ / "b" / f)) << f;
}

TEST_F(Cli, JobsBadInputWritesNothing) {
  std::ofstream(dir_ / "j.yaml") << "cluster: {gpus: 2}\njobs: {trace: missing.csv}\n";
  expect_one_error(run({"jobs", "j.yaml", "--out", "o"}), {"missing.csv"});
  EXPECT_FALSE(fs::exists(dir_ / "o"));
  std::ofstream(dir_ / "j.yaml") << "cluster: {gpus: 2, slices: 0}\njobs: {count: 3}\n";
  expect_one_error(run({"jobs", "j.yaml", "--out", "o"}), {"j.yaml:1:", "cluster.slices"});
  EXPECT_FALSE(fs::exists(dir_ / "o"));
  expect_one_error(run({"jobs", config("jobs/seed001_testbed.yaml"), "-s", "jobs.count=-5", "--out", "o"}),
                   {"jobs.count"});
  EXPECT_FALSE(fs::exists(dir_ / "o"));
}

}  // namespace
