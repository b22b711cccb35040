# The sources of the SystemC-free floors, by library (CMakeLists.txt), for every build that
# compiles them: the project itself and the config fuzzer (tests/fuzz/CMakeLists.txt).
# ARBSIM_ROOT: the project's source directory.

# arbsim_core: the models' kernel-free logic and the apps' parameters.
file(GLOB ARBSIM_ARBITER_SRC CONFIGURE_DEPENDS ${ARBSIM_ROOT}/models/pcie/arbiters/*.cpp)
set(ARBSIM_CORE_SRC ${ARBSIM_ARBITER_SRC})
foreach(_f models/pcie/link_timing models/pcie/dllp_tables models/pcie/tlp_types models/pcie/credits
           models/pcie/tc_vc_map models/common/copy_command models/common/transfer_tracker
           models/host/priority_ranking models/host/priority_policy models/host/engine_choice
           models/host/aimd_controller models/gpu/sm_scheduler
           models/gpu/sharing_model models/gpu/work_queue
           models/batch/batch_predictor models/batch/edf_test models/batch/batch_model
           models/flow/max_min models/flow/edge_share models/flow/arbitrated_rates models/flow/division_tree models/flow/flow_network models/flow/flow_scheduler models/flow/rate_memo models/flow/fidelity_watch models/flow/lockstep_watch testbenches/app_params
           models/jobs/mig_perf_model models/jobs/mig_cluster models/jobs/mig_scheduler
           models/jobs/first_fit_scheduler models/jobs/pcie_aware_scheduler models/jobs/job_simulation
           models/jobs/job_workload)
  list(APPEND ARBSIM_CORE_SRC ${ARBSIM_ROOT}/${_f}.cpp)
endforeach()

# arbsim_config: YAML -> typed Config -> Scenario.
file(GLOB ARBSIM_CONFIG_SRC CONFIGURE_DEPENDS ${ARBSIM_ROOT}/platforms/config/*.cpp
     ${ARBSIM_ROOT}/platforms/topology/*.cpp)
