// Logging through spdlog with the simulation time on every line, and SystemC's sc_report
// routed into the same logger (errors and fatals also stop the run with an exception).
#pragma once
#include <cmath>
#include <map>
#include <string>
#include <spdlog/spdlog.h>

namespace arbsim {

// Sets up the "arbsim" logger: stderr at `level`, plus `file` (all levels >= level) when
// non-empty. Installs the sc_report handler. `modules`: a level per module (an sc_object
// name, e.g. "sw0" or "sw0.to_rc0": it and the objects below it), overriding `level` for the
// model logs of models/common/model_log.h (--log sw0=trace).
void init_logging(const std::string& level, const std::string& file,
                  const std::map<std::string, std::string>& modules = {});
// "sw0=trace,gpu1=debug" as a map; throws std::invalid_argument naming what is wrong.
std::map<std::string, std::string> parse_module_levels(const std::string& text);
std::shared_ptr<spdlog::logger> log();
// Once the model is elaborated: a warning for each --log module that names no sc_object (a
// typo would otherwise log nothing, silently), listing the top-level modules.
void warn_unknown_log_modules();
// Flushes the log; false (with the reason in `why`) when any write to the log file failed
// since init_logging (a full disk, a file-size limit): the run's outputs are then incomplete.
bool flush_logging(std::string* why);
// A time in ns for a message, to the picosecond: 80975.296, not the 80975.29600000002 a
// picosecond count / 1000 prints as.
inline double log_ns(double ns) { return std::round(ns * 1000.0) / 1000.0; }

}  // namespace arbsim
