# The VMMC LANai control program alone (firmware/vmmc/vmmc.fw), driven by a test harness
# without the host library: short and long sends, TLB misses, notifications, protection.
lanaikit_add_test(vmmc_lcp_tests SOURCES lcp_test.cpp LIBS lanaikit_sim)
string(REPLACE ";" "\\;" _vmmc_lcp_rt_list "${LANAIKIT_RUNTIME_OBJECTS}")
target_compile_definitions(vmmc_lcp_tests PRIVATE
  LANAIKIT_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
  LANAIKIT_CRT0="${LANAIKIT_CRT0}"
  "LANAIKIT_RUNTIME_OBJECTS=\"${_vmmc_lcp_rt_list}\"")
add_dependencies(vmmc_lcp_tests lanaikit_runtime)
