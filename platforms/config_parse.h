// Section parsers used by load_config (internal to platforms/).
#pragma once
#include "platforms/config.h"
#include "platforms/config_reader.h"

namespace arbsim {

PlatformCfg parse_platform(const Reader& r);
SimCfg parse_sim(const Reader& r);
DriverCfg parse_driver(const Reader& r);
std::vector<AppCfg> parse_apps(const Reader& top, const PlatformCfg& platform);

}  // namespace arbsim
