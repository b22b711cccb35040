// Where the job level's jobs come from (models/jobs/job_workload.h): Table 2's kinds, the CSV
// trace reader on hand-written traces and its refusals, and the seeded generator's ratio,
// arrival rate and reproducibility against their definitions.
#include <gtest/gtest.h>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include "models/jobs/job_workload.h"

using namespace arbsim::jobs;

namespace {

std::vector<MigJob> trace(const std::string& text) {
  std::istringstream in(text);
  return read_job_trace(in, table2_kinds());
}

std::string trace_error(const std::string& text) {
  try {
    trace(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(JobTrace, RowsBecomeJobsWithTheirKindsProfile) {
  const std::vector<MigJob> j = trace("# comment\narrival_s,kind,slices,work\n0,bloom7b1,1,100\n\n2.5, resnet50 ,2,50\n");
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0].id, 0);
  EXPECT_DOUBLE_EQ(j[0].pcie_demand_GBps, 17.65);
  EXPECT_DOUBLE_EQ(j[0].alpha, 1.07);
  EXPECT_DOUBLE_EQ(j[0].work, 100);
  EXPECT_EQ(j[1].id, 1);
  EXPECT_DOUBLE_EQ(j[1].arrival_s, 2.5);
  EXPECT_EQ(j[1].slices, 2);
  EXPECT_FALSE(j[1].pcie_bound());
}

// A spreadsheet's "CSV UTF-8" export: a byte order mark before the header (it was refused as
// "the header must be ...", naming a header that looked right).
TEST(JobTrace, AByteOrderMarkBeforeTheHeaderIsRead) {
  const std::vector<MigJob> j = trace("\xEF\xBB\xBF" "arrival_s,kind,slices,work\r\n0,bloom7b1,1,100\r\n");
  ASSERT_EQ(j.size(), 1u);
  EXPECT_DOUBLE_EQ(j[0].work, 100);
  EXPECT_EQ(trace_error("x\xEF\xBB\xBF" "arrival_s,kind,slices,work\n"), "line 1: the header must be arrival_s,kind,slices,work");
}

TEST(JobTrace, BadRowsAreRefusedWithTheirLine) {
  EXPECT_EQ(trace_error(""), "the trace is empty: no header arrival_s,kind,slices,work");
  EXPECT_EQ(trace_error("arrival,kind,slices,work\n"), "line 1: the header must be arrival_s,kind,slices,work");
  const std::string h = "arrival_s,kind,slices,work\n";
  EXPECT_EQ(trace_error(h + "# none yet\n"), "the trace has no jobs: nothing after the header");
  std::string many = h;
  for (int i = 0; i <= kMaxJobs; ++i) many += "0,bloom7b1,1,5\n";
  EXPECT_EQ(trace_error(many), "line 100002: more than 100000 jobs, the most a simulation takes");
  EXPECT_EQ(trace_error(h + "0,bloom7b1,1\n"), "line 2: 3 fields, expected 4");
  EXPECT_EQ(trace_error(h + "-1,bloom7b1,1,5\n"), "line 2: arrival_s '-1' is outside [0, 1e+12]");
  EXPECT_EQ(trace_error(h + "x,bloom7b1,1,5\n"), "line 2: arrival_s 'x' is not a decimal number");
  EXPECT_EQ(trace_error(h + "1e400,bloom7b1,1,5\n"), "line 2: arrival_s '1e400' is not a finite number");
  // std::stod alone reads hexadecimal: a typo would have arrived at 16 s.
  EXPECT_EQ(trace_error(h + "0x10,bloom7b1,1,5\n"), "line 2: arrival_s '0x10' is not a decimal number");
  // Past the bound a generated workload has (1e12 s): a job that never arrives in a run.
  EXPECT_EQ(trace_error(h + "1e300,bloom7b1,1,5\n"), "line 2: arrival_s '1e300' is outside [0, 1e+12]");
  EXPECT_EQ(trace_error(h + "0,bloom7b1,1,1e13\n"), "line 2: work '1e13' is outside [1e-09, 1e+12]");
  EXPECT_EQ(trace_error(h + "nan,bloom7b1,1,5\n"), "line 2: arrival_s 'nan' is not a decimal number");
  EXPECT_EQ(trace_error(h + "0,bloom7b1,1.5,5\n"), "line 2: slices 1.5 must be an integer in 1..64");
  EXPECT_EQ(trace_error(h + "0,bloom7b1,1,0\n"), "line 2: work '0' is outside [1e-09, 1e+12]");
  EXPECT_EQ(trace_error(h + "0,gpt5,1,5\n"), "line 2: unknown kind 'gpt5'");
}

// 20,000 jobs: the PCIe-bound share within 3 sigma of 0.6 (sigma = sqrt(0.6 x 0.4 / n) =
// 0.35 %), the two bound kinds about equal, the mean gap within 3 sigma of 10 s (an
// exponential's sigma is its mean: 10 / sqrt(n) = 0.07 s), work inside [100, 400].
TEST(JobGenerator, RatioAndArrivalRateFollowTheirDefinitions) {
  JobGenerator g;
  g.count = 20000;
  const std::vector<MigJob> j = generate_jobs(g, table2_kinds());
  int bound = 0, big = 0;
  for (const MigJob& x : j) {
    bound += x.pcie_bound();
    big += x.pcie_demand_GBps == 17.65;
    EXPECT_GE(x.work, 100);
    EXPECT_LE(x.work, 400);
  }
  EXPECT_NEAR(bound / 20000.0, 0.6, 3 * std::sqrt(0.24 / 20000));
  EXPECT_NEAR(static_cast<double>(big) / bound, 0.5, 3 * std::sqrt(0.25 / bound));
  EXPECT_NEAR(j.back().arrival_s / 20000, 10, 3 * 10 / std::sqrt(20000.0));
}

TEST(JobGenerator, TheSameSeedGivesTheSameJobs) {
  JobGenerator g;
  const std::vector<MigJob> a = generate_jobs(g, table2_kinds()), b = generate_jobs(g, table2_kinds());
  g.seed = 2;
  const std::vector<MigJob> c = generate_jobs(g, table2_kinds());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].arrival_s, b[i].arrival_s);
    EXPECT_EQ(a[i].work, b[i].work);
  }
  EXPECT_NE(a[0].arrival_s, c[0].arrival_s);
}

TEST(JobGenerator, ARatioWithoutKindsOfThatClassIsRefused) {
  JobGenerator g;
  EXPECT_THROW(generate_jobs(g, {{"resnet50", 0, 1, 1}}), std::invalid_argument);
  g.pcie_bound_ratio = 0;
  EXPECT_EQ(generate_jobs(g, {{"resnet50", 0, 1, 1}}).size(), 100u);
}

}  // namespace
