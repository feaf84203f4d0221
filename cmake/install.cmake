# `cmake --install build --prefix P` and `cpack` (a Debian package): the lanaikit command,
# the firmware library and control programs as sources (lanaikit builds images at run time),
# the Lanai startup and runtime objects, the Lua libraries, platforms and scripts, and the
# docs. assembler/locations.h finds them relative to the installed executable:
#   P/bin/lanaikit
#   P/share/lanaikit/firmware/...      (.fw, .c, .h, .s; no build files)
#   P/share/lanaikit/lua-scripts/...
#   P/lib/lanaikit/runtime/*.o
#   P/share/doc/lanaikit/...
include(GNUInstallDirs)

install(TARGETS lanaikit RUNTIME DESTINATION bin)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/firmware/ DESTINATION share/lanaikit/firmware
        FILES_MATCHING PATTERN "*.fw" PATTERN "*.c" PATTERN "*.h" PATTERN "*.s")
install(DIRECTORY ${CMAKE_SOURCE_DIR}/lua-scripts/ DESTINATION share/lanaikit/lua-scripts)
install(FILES ${LANAIKIT_CRT0} ${LANAIKIT_RUNTIME_OBJECTS} DESTINATION lib/lanaikit/runtime)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION share/doc/lanaikit)
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION share/doc/lanaikit)

# The Debian package (`cpack -G DEB` in the build directory). Library dependencies come from
# dpkg-shlibdeps (libLLVM-14, Lua 5.4, libxxhash, libstdc++); clang-14 is needed at run
# time to compile C firmware, so it is named by hand.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME lanaikit)
set(CPACK_PACKAGE_VERSION "${LANAIKIT_VERSION}")
set(CPACK_PACKAGE_CONTACT "lanaikit developers <lanaikit@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "firmware toolkit for LANai-style programmable NICs: ISA emulator, firmware language, simulated clusters")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "clang-14")
include(CPack)
