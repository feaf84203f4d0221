# The VMMC host library (host/vmmc/, docs/vmmc.md "Host library") against the real LCP
# (firmware/vmmc/vmmc.fw, built with the real toolchain by the test).
lanaikit_add_test(vmmc_library_tests SOURCES library_test.cpp LIBS lanaikit_vmmc)
lanaikit_uses_runtime(vmmc_library_tests)
