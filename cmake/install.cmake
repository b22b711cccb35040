# `cmake --install BUILD [--prefix P]`: the four libraries (arbsim_core, arbsim_config,
# arbsim_sim, arbsim_run), their public headers under include/pcie_arbsim/ (included as
# "models/...", "platforms/...", "apps/run/..."), the pcie-arbsim tool, and a CMake package:
#   find_package(pcie_arbsim REQUIRED)
#   target_link_libraries(my_sim PRIVATE pcie_arbsim::arbsim_run)
# (docs/api.md). The RTL co-simulation is not part of the package: installed programs have
# the C++ arbiters (impl: cpp).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ARBSIM_INSTALL_INCLUDE ${CMAKE_INSTALL_INCLUDEDIR}/pcie_arbsim)
set(ARBSIM_INSTALL_CMAKE ${CMAKE_INSTALL_LIBDIR}/cmake/pcie_arbsim)

install(TARGETS arbsim_core arbsim_config arbsim_sim arbsim_run EXPORT pcie_arbsimTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS pcie-arbsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/models ${PROJECT_SOURCE_DIR}/platforms ${PROJECT_SOURCE_DIR}/testbenches
        DESTINATION ${ARBSIM_INSTALL_INCLUDE} FILES_MATCHING PATTERN "*.h" PATTERN "rtl" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/apps/run DESTINATION ${ARBSIM_INSTALL_INCLUDE}/apps FILES_MATCHING PATTERN "*.h")
install(EXPORT pcie_arbsimTargets NAMESPACE pcie_arbsim:: DESTINATION ${ARBSIM_INSTALL_CMAKE})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/pcie_arbsimConfig.cmake.in
  ${PROJECT_BINARY_DIR}/pcie_arbsimConfig.cmake INSTALL_DESTINATION ${ARBSIM_INSTALL_CMAKE})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pcie_arbsimConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pcie_arbsimConfig.cmake ${PROJECT_BINARY_DIR}/pcie_arbsimConfigVersion.cmake
        DESTINATION ${ARBSIM_INSTALL_CMAKE})
