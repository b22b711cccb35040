#include "apps/run/logging.h"
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <systemc>
#include "models/common/model_log.h"
#include "models/common/sim_time.h"

namespace arbsim {

namespace {

// %* in the pattern: the current simulation time in ns.
class SimTimeFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg&, const std::tm&, spdlog::memory_buf_t& dest) override {
    const std::string t = std::to_string(sim_now_ns());
    dest.append(t.data(), t.data() + t.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<SimTimeFlag>(); }
};

spdlog::level::level_enum g_level = spdlog::level::info;
std::map<std::string, spdlog::level::level_enum> g_modules;

// The level a model log of sc_object `name` must reach: the most specific --log entry for it
// or an object above it, else the global level.
spdlog::level::level_enum level_of(const std::string& name) {
  spdlog::level::level_enum l = g_level;
  std::size_t best = 0;
  for (const auto& [module, level] : g_modules)
    if (module.size() > best && name.compare(0, module.size(), module) == 0 &&
        (name.size() == module.size() || name[module.size()] == '.')) {
      l = level;
      best = module.size();
    }
  return l;
}

// A model log (models/common/model_log.h): SC_HIGH is debug, SC_DEBUG trace.
void model_log(const sc_core::sc_report& r) {
  const auto level = r.get_verbosity() >= sc_core::SC_DEBUG ? spdlog::level::trace : spdlog::level::debug;
  if (level < level_of(r.get_msg_type())) return;
  if (const auto m = spdlog::get("arbsim.model")) m->log(level, "{}: {}", r.get_msg_type(), r.get_msg());
}

void report_handler(const sc_core::sc_report& r, const sc_core::sc_actions& actions) {
  if (r.get_severity() == sc_core::SC_INFO && r.get_verbosity() > sc_core::SC_MEDIUM) return model_log(r);
  if (!(actions & (sc_core::SC_DISPLAY | sc_core::SC_LOG | sc_core::SC_THROW | sc_core::SC_ABORT | sc_core::SC_STOP)))
    return;  // a report silenced (sc_report_handler::set_actions ... SC_DO_NOTHING)
  const std::string msg = std::string(r.get_msg_type()) + ": " + r.get_msg();
  switch (r.get_severity()) {
    case sc_core::SC_INFO: log()->info("{}", msg); break;
    case sc_core::SC_WARNING: log()->warn("{}", msg); break;
    default: log()->error("{}", msg); break;
  }
  if (actions & (sc_core::SC_THROW | sc_core::SC_ABORT | sc_core::SC_STOP)) throw r;
}

std::string g_log_error;  // the first failed write to the log since init_logging

void note_log_error(const std::string& msg) {
  if (g_log_error.empty()) g_log_error = msg;
}

}  // namespace

std::shared_ptr<spdlog::logger> log() {
  auto l = spdlog::get("arbsim");
  if (!l) {
    l = std::make_shared<spdlog::logger>("arbsim", std::make_shared<spdlog::sinks::stderr_sink_st>());
    spdlog::register_logger(l);
  }
  return l;
}

std::map<std::string, std::string> parse_module_levels(const std::string& text) {
  std::map<std::string, std::string> m;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const std::size_t eq = item.find('=');
    const std::string module = item.substr(0, eq), level = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (module.empty() || level.empty())
      throw std::invalid_argument("--log " + text + ": expected MODULE=LEVEL[,MODULE=LEVEL...] (e.g. sw0=trace)");
    if (spdlog::level::from_str(level) == spdlog::level::off && level != "off")
      throw std::invalid_argument("--log " + text + ": unknown level '" + level +
                                  "' (trace, debug, info, warn, error, off)");
    m[module] = level;
  }
  if (m.empty()) throw std::invalid_argument("--log " + text + ": expected MODULE=LEVEL (e.g. sw0=trace)");
  return m;
}

// Model logs are built only when some module's level lets them through.
void enable_model_logs() {
  spdlog::level::level_enum lowest = g_level;
  for (const auto& [module, level] : g_modules) lowest = std::min(lowest, level);
  model_log::g_debug = lowest <= spdlog::level::debug;
  model_log::g_trace = lowest <= spdlog::level::trace;
  sc_core::sc_report_handler::set_verbosity_level(model_log::g_trace   ? sc_core::SC_DEBUG
                                                  : model_log::g_debug ? sc_core::SC_HIGH
                                                                       : sc_core::SC_MEDIUM);
  if (const auto m = spdlog::get("arbsim.model")) m->set_level(lowest);  // the others keep their level
}

void init_logging(const std::string& level, const std::string& file, const std::map<std::string, std::string>& modules) {
  spdlog::drop("arbsim");
  spdlog::drop("arbsim.model");
  std::vector<spdlog::sink_ptr> sinks{std::make_shared<spdlog::sinks::stderr_sink_st>()};
  if (!file.empty()) sinks.push_back(std::make_shared<spdlog::sinks::basic_file_sink_st>(file, true));
  auto l = std::make_shared<spdlog::logger>("arbsim", sinks.begin(), sinks.end());
  auto f = std::make_unique<spdlog::pattern_formatter>();
  f->add_flag<SimTimeFlag>('*').set_pattern("[%* ns] [%l] %v");
  l->set_formatter(std::move(f));
  l->set_level(spdlog::level::from_str(level));
  g_level = spdlog::level::from_str(level);
  g_modules.clear();
  for (const auto& [module, lv] : modules) g_modules[module] = spdlog::level::from_str(lv);
  g_log_error.clear();
  l->set_error_handler(note_log_error);
  spdlog::register_logger(l);
  // The model logs' own logger on the same sinks (and so the same format): its level can be
  // below the run's for one module without letting the run's other messages through.
  auto model = std::make_shared<spdlog::logger>("arbsim.model", sinks.begin(), sinks.end());
  model->set_error_handler(note_log_error);
  spdlog::register_logger(model);
  sc_core::sc_report_handler::set_handler(report_handler);
  enable_model_logs();
  // Model errors and fatals stop the run: the CLI reports them and exits non-zero.
  sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR, sc_core::SC_DISPLAY | sc_core::SC_THROW);
  sc_core::sc_report_handler::set_actions(sc_core::SC_FATAL, sc_core::SC_DISPLAY | sc_core::SC_THROW);
}

void warn_unknown_log_modules() {
  std::string top;
  for (const sc_core::sc_object* o : sc_core::sc_get_top_level_objects())
    if (top.size() < 200) top += std::string(top.empty() ? "" : ", ") + o->basename();
  for (const auto& [module, level] : g_modules)
    if (!sc_core::sc_find_object(module.c_str()))
      log()->warn("--log {}={}: the model has no module '{}', so it logs nothing (modules: {})", module,
                  spdlog::level::to_string_view(level), module, top);
}

bool flush_logging(std::string* why) {
  log()->flush();
  if (const auto m = spdlog::get("arbsim.model")) m->flush();
  if (g_log_error.empty()) return true;
  *why = g_log_error;
  return false;
}

}  // namespace arbsim
