// Model logs at debug and trace level (docs/observability.md "Logs"): a module reports what
// it does through SystemC's sc_report as SC_INFO with a verbosity (SC_HIGH: debug, SC_DEBUG:
// trace) and its own sc_object name as the message type, so the log's handler
// (apps/run/logging.cpp) prints the name and the simulated time and can keep one module's
// messages (--log sw0=trace) and drop another's. The message is built only when asked for:
// with these levels off a call site costs one test of a global flag.
#pragma once
#include <string>
#include <systemc>

namespace arbsim::model_log {

// Set by the log's set-up: whether any module logs at debug (or trace) level.
inline bool g_debug = false;
inline bool g_trace = false;

}  // namespace arbsim::model_log

// `text` is an expression giving a std::string, evaluated only when the level is on.
#define ARBSIM_MODEL_LOG(on, verbosity, object, text)                                                       \
  do {                                                                                                      \
    if (on)                                                                                                 \
      ::sc_core::sc_report_handler::report(::sc_core::SC_INFO, (object).name(), std::string(text).c_str(),    \
                                           verbosity, __FILE__, __LINE__);                                  \
  } while (0)
#define ARBSIM_LOG_DEBUG(object, text) ARBSIM_MODEL_LOG(::arbsim::model_log::g_debug, ::sc_core::SC_HIGH, object, text)
#define ARBSIM_LOG_TRACE(object, text) ARBSIM_MODEL_LOG(::arbsim::model_log::g_trace, ::sc_core::SC_DEBUG, object, text)
