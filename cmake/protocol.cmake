# lanaikit_protocol(): how a protocol is wired into the build, in one call from its own
# host/<p>/CMakeLists.txt (docs/protocols.md, "Adding a protocol"):
#
#   lanaikit_protocol(vmmc
#     LIBRARY vmmc.cpp map.cpp driver.cpp daemon.cpp endpoint.cpp   # host/vmmc/: lanaikit_vmmc
#     BINDING ${CMAKE_SOURCE_DIR}/lua/vmmc.cpp                      # defines open_vmmc(lua_State*)
#     TESTS ${CMAKE_SOURCE_DIR}/tests/vmmc)                         # its tests' folder
#
# LIBRARY builds lanaikit_<p> on the protocol kit (lanaikit_kit). BINDING (optional) is the
# file of its Lua binding: it defines `void open_<p>(lua_State* L)`, which adds lk.<p> to the
# lk table on top of the stack; lua/ compiles it into the binding layer and calls it at
# start-up (a generated table, lua/protocols.cpp.in: no edit of a shared file). TESTS
# (optional) is added after the test helpers exist. Nothing else of the tree names the
# protocol: host/CMakeLists.txt finds every host/<p>/ with a CMakeLists.txt.
function(lanaikit_protocol name)
  cmake_parse_arguments(P "" "BINDING;TESTS" "LIBRARY" ${ARGN})
  if(NOT P_LIBRARY)
    message(FATAL_ERROR "lanaikit_protocol(${name}): LIBRARY sources are required")
  endif()
  add_library(lanaikit_${name} STATIC ${P_LIBRARY})
  target_link_libraries(lanaikit_${name} PUBLIC lanaikit_kit)
  set_property(GLOBAL APPEND PROPERTY LANAIKIT_PROTOCOLS ${name})
  if(P_BINDING)
    set_property(GLOBAL APPEND PROPERTY LANAIKIT_PROTOCOL_BINDINGS ${name})
    set_property(GLOBAL PROPERTY LANAIKIT_PROTOCOL_BINDING_${name} ${P_BINDING})
  endif()
  if(P_TESTS)
    set_property(GLOBAL APPEND PROPERTY LANAIKIT_PROTOCOL_TESTS ${P_TESTS})
  endif()
endfunction()
