// Logging through spdlog with the simulation time on every line, and SystemC's sc_report
// routed into the same logger (errors and fatals also stop the run with an exception).
#pragma once
#include <string>
#include <spdlog/spdlog.h>

namespace arbsim {

// Sets up the "arbsim" logger: stderr at `level`, plus `file` (all levels >= level) when
// non-empty. Installs the sc_report handler.
void init_logging(const std::string& level, const std::string& file);
std::shared_ptr<spdlog::logger> log();
// Flushes the log; false (with the reason in `why`) when any write to the log file failed
// since init_logging (a full disk, a file-size limit): the run's outputs are then incomplete.
bool flush_logging(std::string* why);

}  // namespace arbsim
