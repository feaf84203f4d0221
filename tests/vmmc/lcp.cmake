# The VMMC LANai control program alone (firmware/vmmc/vmmc.fw), driven by a test harness
# without the host library: short and long sends, TLB misses, notifications, protection.
lanaikit_add_test(vmmc_lcp_tests SOURCES lcp_test.cpp LIBS lanaikit_kit)
lanaikit_uses_runtime(vmmc_lcp_tests)
