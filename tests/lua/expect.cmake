# Runs `lanaikit run SCRIPT` and checks its exit status and (optionally) that stderr
# matches a regular expression: cmake -DLANAIKIT=... -DSCRIPT=... -DSTATUS=1 -DREGEX=... -P
execute_process(COMMAND ${LANAIKIT} run ${OPTIONS} ${SCRIPT}
                RESULT_VARIABLE status ERROR_VARIABLE err OUTPUT_VARIABLE out)
if(NOT status EQUAL STATUS)
  message(FATAL_ERROR "expected exit status ${STATUS}, got ${status}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(DEFINED REGEX AND NOT err MATCHES "${REGEX}")
  message(FATAL_ERROR "stderr does not match '${REGEX}':\n${err}")
endif()
message(STATUS "exit ${status} as expected\n${err}")
