// The job-level config (platforms/config/jobs_config.h): defaults, the generator's `load`
// turned into an arrival rate by Little's law, traces relative to the config, and errors
// naming the file, line and key. No SystemC.
#include <gtest/gtest.h>
#include <cmath>
#include <filesystem>
#include <fstream>
#include "platforms/config/config_error.h"
#include "platforms/config/jobs_config.h"
#include "tests/config/config_text.h"

using namespace arbsim;
using namespace arbsim::test;

namespace {

const std::string kGenerated = R"(cluster: {gpus: 4, pcie_max_GBps: 30.08}
scheduler: {name: first_fit}
jobs: {count: 1000, load: 0.5, pcie_bound_ratio: 0.6, work_min: 100, work_max: 300}
)";

std::string jobs_error(const std::string& yaml) {
  try {
    load_jobs_config_text(yaml, {}, "bad.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

// The error loading the config file at `path` ("" when it loads).
std::string file_error(const std::filesystem::path& path) {
  try {
    load_jobs_config(path.string(), {});
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(JobsConfig, DefaultsAreSevenOneGInstancesAndTable2) {
  const JobsConfig c = load_jobs_config_text(kGenerated);
  EXPECT_EQ(c.sim.partition, (std::vector<int>{1, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(c.sim.scheduler, "first_fit");
  ASSERT_EQ(c.kinds.size(), 3u);
  EXPECT_EQ(c.kinds[2].name, "bloom7b1");
  EXPECT_EQ(c.jobs.size(), 1000u);
  EXPECT_EQ(c.effective["scheduler"]["delay_threshold"].as<double>(), 1.5);  // defaults written in
}

// load 0.5 of 4 x 7 instances, 200-s jobs alone: a job every 200 / 14 = 14.29 s; over 1,000
// jobs the mean gap is within 3 sigma (14.29 / sqrt(1000) = 0.45 s) of it.
TEST(JobsConfig, LoadSetsTheArrivalRateByLittlesLaw) {
  const JobsConfig c = load_jobs_config_text(kGenerated);
  EXPECT_NEAR(c.jobs.back().arrival_s / 1000, 200.0 / 14, 3 * (200.0 / 14) / std::sqrt(1000.0));
  EXPECT_NEAR(c.pcie_bound_ratio, 0.6, 0.05);
}

TEST(JobsConfig, ATraceIsReadRelativeToTheConfig) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "arbsim_jobs_config_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "t.csv") << "arrival_s,kind,slices,work\n0,bloom560m,2,10\n";
  std::ofstream(dir / "c.yaml") << "jobs: {trace: t.csv}\n";
  const JobsConfig c = load_jobs_config((dir / "c.yaml").string(), {});
  ASSERT_EQ(c.jobs.size(), 1u);
  EXPECT_EQ(c.jobs[0].slices, 2);
  EXPECT_EQ(c.source, "trace " + (dir / "t.csv").string());
  std::ofstream(dir / "t.csv") << "arrival_s,kind,slices,work\n0,bloom560m,9,10\n";
  std::string e = file_error(dir / "c.yaml");
  EXPECT_NE(e.find("job 0 asks 9 slices; a GPU has 7"), std::string::npos) << e;
  // A 5g job: no A100 instance holds it, so no scheduler could ever place it (the
  // PCIe-aware one waited for ever): refused, naming the trace.
  std::ofstream(dir / "t.csv") << "arrival_s,kind,slices,work\n0,bloom560m,5,10\n";
  e = file_error(dir / "c.yaml");
  EXPECT_NE(e.find("jobs.trace: job 0: no instance of 5 slices on a GPU of 7"), std::string::npos) << e;
  // config.effective.yaml names the trace so that it runs again from another directory.
  std::ofstream(dir / "t.csv") << "arrival_s,kind,slices,work\n0,bloom560m,4,10\n";
  const JobsConfig again = load_jobs_config((dir / "c.yaml").string(), {});
  EXPECT_EQ(again.effective["jobs"]["trace"].as<std::string>(), std::filesystem::absolute(dir / "t.csv").string());
  // A trace that cannot be read is named as the key that names it.
  std::filesystem::remove(dir / "t.csv");
  e = file_error(dir / "c.yaml");
  EXPECT_NE(e.find("jobs.trace: "), std::string::npos) << e;
  EXPECT_NE(e.find("cannot open file"), std::string::npos) << e;
  std::filesystem::remove_all(dir);
}

TEST(JobsConfig, ErrorsNameFileLineAndKey) {
  EXPECT_NE(jobs_error(replace(kGenerated, "gpus: 4", "gpus: -4")).find("bad.yaml:1: cluster.gpus"), std::string::npos);
  EXPECT_NE(jobs_error(replace(kGenerated, "first_fit", "best")).find("bad.yaml:2: scheduler.name"), std::string::npos);
  EXPECT_NE(jobs_error(replace(kGenerated, "count", "cnt")).find("bad.yaml:3: jobs.cnt: unknown key"), std::string::npos);
  // At most 100,000 jobs: the cost grows with their square (10^7 were taken: hours).
  EXPECT_NE(jobs_error(replace(kGenerated, "count: 1000", "count: 100001")).find("bad.yaml:3: jobs.count"),
            std::string::npos);
  EXPECT_EQ(jobs_error(replace(kGenerated, "count: 1000", "count: 100000")), "");
  EXPECT_NE(jobs_error(replace(kGenerated, "load: 0.5", "load: 0.5, mean_gap_s: 3")).find("jobs.mean_gap_s: give `load`"),
            std::string::npos);
  EXPECT_NE(jobs_error(replace(kGenerated, "gpus: 4", "gpus: 4, partition: [4, 4]")).find("cluster.partition: the "
                                                                                         "instances take 8 slices"),
            std::string::npos);
  EXPECT_NE(jobs_error(replace(kGenerated, "gpus: 4", "gpus: 4, partition: [5, 2]")).find("cluster.partition[0]: no "
                                                                                         "instance of 5 slices"),
            std::string::npos);
  EXPECT_NE(jobs_error(replace(kGenerated, "work_max: 300", "work_max: 300, slices: 6")).find("jobs.slices: no instance "
                                                                                             "of 6 slices"),
            std::string::npos);
  EXPECT_NE(jobs_error("cluster: {gpus: 1}\n").find("bad.yaml:1: jobs: required key is missing"), std::string::npos)
      << jobs_error("cluster: {gpus: 1}\n");
  EXPECT_NE(jobs_error(replace(kGenerated, "pcie_max_GBps: 30.08", "pcie_max_GBps: 10")).find("demands 17.65"),
            std::string::npos);
  EXPECT_NE(jobs_error(kGenerated + "kinds: [{name: a, alpha: 1}]\n").find("jobs.pcie_bound_ratio: a PCIe-bound ratio "
                                                                           "above 0 needs a kind"),
            std::string::npos);
}

}  // namespace
