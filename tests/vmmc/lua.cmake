# VMMC from Lua (lua/vmmc.cpp, lua-scripts/vmmc/): the bindings' argument errors and
# semantics, and the experiments in quick modes, each through `lanaikit run` (exit status 0
# = every check passed). Deterministic: the scripts assert on simulated results only.
set(_vmmc_scripts ${CMAKE_SOURCE_DIR}/lua-scripts/vmmc)
set(_vmmc_out ${CMAKE_CURRENT_BINARY_DIR}/lua-out)
set(_vmmc_run $<TARGET_FILE:lanaikit> run --time-limit-ms 5000 --wall-limit-s 60)
# name | script and arguments
set(_vmmc_lua_tests
  "bindings|${CMAKE_CURRENT_SOURCE_DIR}/scripts/bindings.lua"
  "handler_error|${CMAKE_CURRENT_SOURCE_DIR}/scripts/handler_error.lua"
  "ordering|${CMAKE_CURRENT_SOURCE_DIR}/scripts/ordering.lua"
  "main_quick|${_vmmc_scripts}/main.lua --quick --csv-dir ${_vmmc_out}"
  "fig2_latency|${_vmmc_scripts}/fig2_latency.lua --sizes 4,128,256,8192 --iters 4 --csv-dir ${_vmmc_out}"
  "fig3_bandwidth|${_vmmc_scripts}/fig3_bandwidth.lua --sizes 64,4096,65536 --bytes 262144 --csv-dir ${_vmmc_out}"
  "fig4_overhead|${_vmmc_scripts}/fig4_overhead.lua --sizes 4,128,4096 --iters 4 --csv-dir ${_vmmc_out}"
  "stress_2000|${_vmmc_scripts}/stress.lua --messages 2000 --quiet")
foreach(entry ${_vmmc_lua_tests})
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 name)
  list(GET parts 1 command)
  separate_arguments(args UNIX_COMMAND "${command}")
  if(name STREQUAL "handler_error")
    # Fails on purpose: a notification handler's error stops the run (exit 1) with its message.
    add_test(NAME vmmc_lua_${name}
      COMMAND ${CMAKE_COMMAND} -DLANAIKIT=$<TARGET_FILE:lanaikit> -DSCRIPT=${args}
              -DSTATUS=1 "-DREGEX=notification handler of VMMC endpoint node 1 slot 0 failed: .*handler_error.lua:[0-9]+: boom"
              -P ${CMAKE_SOURCE_DIR}/tests/lua/expect.cmake)
  else()
    add_test(NAME vmmc_lua_${name} COMMAND ${_vmmc_run} ${args})
  endif()
  set_tests_properties(vmmc_lua_${name} PROPERTIES TIMEOUT 120 LABELS "vmmc;lua")
endforeach()

# The exactness oracle of issue 16 (lua-scripts/vmmc/observable_trace.lua): every packet
# head and tail on every link and every chip event (time, instruction count) of VMMC,
# stress, echo and raw runs, hashed and compared with the values recorded on the model as
# it was before the link and kernel were made cheaper. A changed observable time fails it.
add_test(NAME vmmc_observable_trace
  COMMAND $<TARGET_FILE:lanaikit> run --wall-limit-s 300 ${_vmmc_scripts}/observable_trace.lua
          --expect ${CMAKE_CURRENT_SOURCE_DIR}/observable_trace.expected)
set_tests_properties(vmmc_observable_trace PROPERTIES TIMEOUT 400)
