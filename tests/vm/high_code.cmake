# Builds high_code.s and runs it on the fast interpreter and on the reference model: both
# must exit with 300 & 255 = 44. cmake -DLANAIKIT=... -DSOURCE=... -DWORK=... -P
execute_process(COMMAND ${LANAIKIT} build --sram-size 4M -o ${WORK}/high_code.elf ${SOURCE}
                RESULT_VARIABLE status ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "build failed (${status}):\n${err}")
endif()
foreach(mode "" "--reference")
  execute_process(COMMAND ${LANAIKIT} exec ${WORK}/high_code.elf --sram-size 4M ${mode}
                  RESULT_VARIABLE status ERROR_VARIABLE err)
  if(NOT status EQUAL 44)
    message(FATAL_ERROR "exec ${mode}: expected exit status 44, got ${status}\n${err}")
  endif()
endforeach()
