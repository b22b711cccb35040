#include "apps/run/logging.h"
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <systemc>

namespace arbsim {

namespace {

// %* in the pattern: the current simulation time in ns.
class SimTimeFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg&, const std::tm&, spdlog::memory_buf_t& dest) override {
    const std::string t = std::to_string(sc_core::sc_time_stamp().to_seconds() * 1e9);
    dest.append(t.data(), t.data() + t.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<SimTimeFlag>(); }
};

void report_handler(const sc_core::sc_report& r, const sc_core::sc_actions& actions) {
  const std::string msg = std::string(r.get_msg_type()) + ": " + r.get_msg();
  switch (r.get_severity()) {
    case sc_core::SC_INFO: log()->info("{}", msg); break;
    case sc_core::SC_WARNING: log()->warn("{}", msg); break;
    default: log()->error("{}", msg); break;
  }
  if (actions & (sc_core::SC_THROW | sc_core::SC_ABORT | sc_core::SC_STOP)) throw r;
}

std::string g_log_error;  // the first failed write to the log since init_logging

}  // namespace

std::shared_ptr<spdlog::logger> log() {
  auto l = spdlog::get("arbsim");
  if (!l) {
    l = std::make_shared<spdlog::logger>("arbsim", std::make_shared<spdlog::sinks::stderr_sink_st>());
    spdlog::register_logger(l);
  }
  return l;
}

void init_logging(const std::string& level, const std::string& file) {
  spdlog::drop("arbsim");
  std::vector<spdlog::sink_ptr> sinks{std::make_shared<spdlog::sinks::stderr_sink_st>()};
  if (!file.empty()) sinks.push_back(std::make_shared<spdlog::sinks::basic_file_sink_st>(file, true));
  auto l = std::make_shared<spdlog::logger>("arbsim", sinks.begin(), sinks.end());
  auto f = std::make_unique<spdlog::pattern_formatter>();
  f->add_flag<SimTimeFlag>('*').set_pattern("[%* ns] [%l] %v");
  l->set_formatter(std::move(f));
  l->set_level(spdlog::level::from_str(level));
  g_log_error.clear();
  l->set_error_handler([](const std::string& msg) {
    if (g_log_error.empty()) g_log_error = msg;
  });
  spdlog::register_logger(l);
  sc_core::sc_report_handler::set_handler(report_handler);
  // Model errors and fatals stop the run: the CLI reports them and exits non-zero.
  sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR, sc_core::SC_DISPLAY | sc_core::SC_THROW);
  sc_core::sc_report_handler::set_actions(sc_core::SC_FATAL, sc_core::SC_DISPLAY | sc_core::SC_THROW);
}

bool flush_logging(std::string* why) {
  log()->flush();
  if (g_log_error.empty()) return true;
  *why = g_log_error;
  return false;
}

}  // namespace arbsim
