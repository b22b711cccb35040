#include "apps/run/stats_series.h"
#include <cmath>
#include <cstdio>
#include "models/common/sim_time.h"

namespace arbsim {

namespace {

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", std::round(v * 1e6) / 1e6);
  return b;
}

// Now in ns, exact: the kernel's whole ps, with three decimals only when not whole ns.
std::string time_text() {
  const uint64_t ps = sc_core::sc_time_stamp().value();
  char b[32];
  if (ps % 1000 == 0) std::snprintf(b, sizeof b, "%llu", static_cast<unsigned long long>(ps / 1000));
  else std::snprintf(b, sizeof b, "%llu.%03llu", static_cast<unsigned long long>(ps / 1000),
                     static_cast<unsigned long long>(ps % 1000));
  return b;
}

// A name as a CSV field (config names may hold commas or quotes).
std::string field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

StatsSeries::StatsSeries(const System& sys, double period_ns)
    : sys_(sys),
      period_ns_(period_ns),
      // Queues and credits where the fabric has them (the packet fidelity's TLPs).
      packet_(!sys.scenario().walk.empty() && sys.fabric().queued_tlps(0).has_value()) {
  for (const LinkDir& l : sys.scenario().walk) link_names_.push_back(l.arrow_name());
  read(&busy_, &bytes_);
}

std::vector<std::string> StatsSeries::kinds() const {
  if (packet_) return {"link_utilization", "queued_tlps", "posted_data_credits", "app_throughput_gbps"};
  return {"link_utilization", "app_throughput_gbps"};
}

void StatsSeries::read(std::vector<double>* busy, std::vector<uint64_t>* bytes) const {
  busy->clear();
  bytes->clear();
  for (std::size_t d = 0; d < link_names_.size(); ++d) busy->push_back(sys_.fabric().busy_ps_now(static_cast<int>(d)));
  // With the bytes copies open at the warm-up's end deliver after it (AppStats::carried).
  for (const auto& a : sys_.apps()) bytes->push_back(a->stats().bytes + a->stats().carried.bytes);
}

void StatsSeries::rebase() {
  read(&busy_, &bytes_);
  last_ns_ = sim_now_ns();
}

std::string StatsSeries::why_full() const {
  if (samples_ >= static_cast<std::size_t>(kMaxSeriesSamples))
    return std::to_string(samples_) + " samples, the most a run keeps";
  if (csv_.size() >= kMaxSeriesBytes)
    return std::to_string(csv_.size() >> 20) + " MiB of CSV, the most a run keeps in memory";
  return "";
}

void StatsSeries::row(const char* kind, const std::string& name, int vc, const std::string& value) {
  csv_ += now_text_ + "," + kind + "," + field(name) + "," + (vc >= 0 ? std::to_string(vc) : "") + "," + value + "\n";
}

void StatsSeries::sample() {
  const double now = sim_now_ns(), span_ps = (now - last_ns_) * 1000.0;
  if (samples_ > 0 && span_ps <= 0) return;  // the run ended on a sample: nothing more to say
  now_text_ = time_text();
  std::vector<double> busy;
  std::vector<uint64_t> bytes;
  read(&busy, &bytes);
  const Fabric& f = sys_.fabric();
  for (std::size_t d = 0; d < link_names_.size(); ++d) {
    const int dir = static_cast<int>(d);
    row("link_utilization", link_names_[d], -1, num(span_ps > 0 ? (busy[d] - busy_[d]) / span_ps : 0.0));
    if (const auto q = f.queued_tlps(dir)) row("queued_tlps", link_names_[d], -1, std::to_string(*q));
    for (int vc = 0; vc < f.link_vcs(dir); ++vc)
      if (const auto c = f.posted_data_credits(dir, vc))
        row("posted_data_credits", link_names_[d], vc, *c < 0 ? "inf" : std::to_string(*c));
  }
  for (std::size_t k = 0; k < bytes.size(); ++k) {
    const double gbps = span_ps > 0 ? static_cast<double>(bytes[k] - bytes_[k]) * 8.0 / (span_ps / 1000.0) : 0.0;
    row("app_throughput_gbps", sys_.config().apps[k].name, -1, num(gbps));
  }
  busy_ = std::move(busy);
  bytes_ = std::move(bytes);
  last_ns_ = now;
  ++samples_;
}

}  // namespace arbsim
