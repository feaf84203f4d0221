# lk.vmmc (sim/lua/vmmc.cpp): Lua bindings for VMMC's host library (host/vmmc, lanaikit_vmmc).
# Included by sim/lua/CMakeLists.txt; built only once the library exists.
if(EXISTS ${CMAKE_SOURCE_DIR}/host/vmmc/CMakeLists.txt)
  target_sources(lanaikit_lua PRIVATE ${CMAKE_CURRENT_LIST_DIR}/vmmc.cpp)
  target_link_libraries(lanaikit_lua PUBLIC lanaikit_vmmc)
  target_compile_definitions(lanaikit_lua PRIVATE LANAIKIT_HAVE_VMMC)
endif()
