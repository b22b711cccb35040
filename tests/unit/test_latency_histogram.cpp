// LatencyHistogram (models/common/latency_histogram.h): ten log-scaled bins per decade.
#include <gtest/gtest.h>
#include <cmath>
#include "models/common/latency_histogram.h"

using arbsim::LatencyHistogram;

TEST(LatencyHistogram, BinsAreTenPerDecadeFromOneNanosecond) {
  EXPECT_EQ(LatencyHistogram::bin_of(0.0), -1);
  EXPECT_EQ(LatencyHistogram::bin_of(0.999), -1);
  EXPECT_EQ(LatencyHistogram::bin_of(1.0), 0);
  EXPECT_EQ(LatencyHistogram::bin_of(1.25), 0);   // 10^0.1 = 1.2589
  EXPECT_EQ(LatencyHistogram::bin_of(1.26), 1);
  EXPECT_EQ(LatencyHistogram::bin_of(10.0), 10);
  EXPECT_EQ(LatencyHistogram::bin_of(20000.0), 43);  // log10(2e4) = 4.301
  EXPECT_EQ(LatencyHistogram::lower(-1), 0.0);
  EXPECT_DOUBLE_EQ(LatencyHistogram::lower(10), 10.0);
  EXPECT_NEAR(LatencyHistogram::lower(43), 19952.623, 0.001);
  EXPECT_NEAR(LatencyHistogram::lower(44), 25118.864, 0.001);
  // Every bin is 10^0.1 times as wide as the one before.
  for (int k = 0; k < 60; ++k) {
    const double w0 = LatencyHistogram::lower(k + 1) - LatencyHistogram::lower(k);
    const double w1 = LatencyHistogram::lower(k + 2) - LatencyHistogram::lower(k + 1);
    EXPECT_NEAR(w1 / w0, std::pow(10.0, 0.1), 1e-9) << k;
  }
}

TEST(LatencyHistogram, CountsAndMergesOnlyTheBinsUsed) {
  LatencyHistogram a, b;
  for (double v : {0.5, 5.0, 5.1, 5000.0}) a.add(v);
  for (double v : {5.05, 1e9}) b.add(v);
  a.add(b);
  EXPECT_EQ(a.count(), 6u);
  // 10^0.7 = 5.0119: 5.0 is in bin 6, 5.05 and 5.1 in bin 7; log10(5000) = 3.699: bin 36.
  const std::map<int, uint64_t> expected = {{-1, 1}, {6, 1}, {7, 2}, {36, 1}, {90, 1}};
  EXPECT_EQ(a.bins(), expected);
}
