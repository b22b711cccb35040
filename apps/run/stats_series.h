// The time series of a run (sim.stats_period_ns; docs/results.md "Time series"): at every
// period, read while the kernel is paused, one row per figure in tidy CSV form
//   time_ns,kind,name,vc,value
// with kinds link_utilization (busy share of the period, per link direction),
// queued_tlps (TLPs queued for the direction's egress; packet fidelity), posted_data_credits
// (the receiver's, per VC; packet fidelity; "inf" when unlimited) and app_throughput_gbps
// (payload of the app's copies completed in the period, Gb/s). Reading changes nothing.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include "platforms/system.h"

namespace arbsim {

class StatsSeries {
 public:
  StatsSeries(const System& sys, double period_ns);
  // One row per figure at now, over the period since the last sample (or rebase()).
  void sample();
  // The statistics restarted (the warm-up ended): the next period's figures count from now.
  void rebase();
  const std::string& csv() const { return csv_; }
  std::size_t samples() const { return samples_; }
  // It holds as much as a run may keep (kMaxSeriesSamples, kMaxSeriesBytes): no more samples.
  bool full() const { return samples_ >= static_cast<std::size_t>(kMaxSeriesSamples) || csv_.size() >= kMaxSeriesBytes; }
  // Why it is full, for the log ("" while it is not).
  std::string why_full() const;
  // It became full before the run ended: the time of its last sample (results.json
  // series.stopped_at_ns), else a negative number.
  double stopped_at_ns() const { return stopped_at_ns_; }
  void stopped_early() { stopped_at_ns_ = last_ns_; }
  double period_ns() const { return period_ns_; }
  // The kinds of rows this fidelity can give.
  std::vector<std::string> kinds() const;

 private:
  void row(const char* kind, const std::string& name, int vc, const std::string& value);
  void read(std::vector<double>* busy, std::vector<uint64_t>* bytes) const;

  const System& sys_;
  double period_ns_;
  bool packet_;  // queues and credits are read
  std::vector<std::string> link_names_;
  std::vector<double> busy_;       // ps, per walk direction, at the last sample
  std::vector<uint64_t> bytes_;    // per app, at the last sample
  double last_ns_ = 0;
  std::string now_text_;
  std::string csv_ = "time_ns,kind,name,vc,value\n";
  std::size_t samples_ = 0;
  double stopped_at_ns_ = -1;
};

}  // namespace arbsim
