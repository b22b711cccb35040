#include "apps/run/version.h"

#ifndef ARBSIM_BUILD_TYPE
#define ARBSIM_BUILD_TYPE "unknown"
#endif

const char* arbsim::build_type() { return ARBSIM_BUILD_TYPE; }
