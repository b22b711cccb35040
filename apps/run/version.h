// Provenance of a build: the simulator's version (git describe, generated at build time by
// cmake/version.cmake) and its build type. run.json records both; results.json does not,
// so results stay byte-identical across builds of the same model.
#pragma once

namespace arbsim {

const char* version();     // e.g. "d601125-dirty"
const char* build_type();  // CMAKE_BUILD_TYPE: Release, Debug, RelWithDebInfo, ...

}  // namespace arbsim
