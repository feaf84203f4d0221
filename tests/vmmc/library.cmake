# The VMMC host library (host/vmmc/, docs/vmmc.md "Host library") against the real LCP
# (firmware/vmmc/vmmc.fw, built with the real toolchain by the test).
if(TARGET lanaikit_vmmc)
  lanaikit_add_test(vmmc_library_tests SOURCES library_test.cpp LIBS lanaikit_vmmc)
  string(REPLACE ";" "\\;" _vmmc_lib_rt_list "${LANAIKIT_RUNTIME_OBJECTS}")
  target_compile_definitions(vmmc_library_tests PRIVATE
    LANAIKIT_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
    LANAIKIT_CRT0="${LANAIKIT_CRT0}"
    "LANAIKIT_RUNTIME_OBJECTS=\"${_vmmc_lib_rt_list}\"")
  add_dependencies(vmmc_library_tests lanaikit_runtime)
endif()
