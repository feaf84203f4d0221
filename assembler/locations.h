// Where lanaikit's own files are: the firmware library and control programs (.fw/.c/.s
// sources), the Lua libraries, platforms and scripts, the Lanai startup and runtime objects,
// and the default firmware-image cache. Two layouts, chosen once per process:
//
//   installed  the executable is <prefix>/bin/lanaikit and <prefix>/share/lanaikit/firmware
//              exists (`cmake --install`, the .deb): sources and scripts under
//              <prefix>/share/lanaikit, objects in <prefix>/lib/lanaikit/runtime, the cache
//              in $XDG_CACHE_HOME/lanaikit (else ~/.cache/lanaikit). Nothing from the build
//              or source tree is used, so an installed copy runs wherever it is put.
//   build tree otherwise: the source tree and build directory CMake configured.
//
// A non-empty $LANAIKIT_CACHE overrides the cache directory in both.
#pragma once

#include <string>
#include <vector>

namespace lanaikit::assembler {

struct Locations {
  bool installed = false;
  std::string data_dir; // holds firmware/ and lua-scripts/ (the source tree, or <prefix>/share/lanaikit)
  std::string crt0;     // the startup object
  std::vector<std::string> runtime_objects; // the runtime library's objects, crt0 aside
  std::string cache_dir; // the default firmware-image cache ("" = memory only)

  std::string firmware_lib() const { return data_dir + "/firmware/lib"; }
  std::string platforms() const { return data_dir + "/lua-scripts/platforms"; }
  // A platform option's file: a path (it has a '/' or ends in .lua) as given, else the
  // name of one of lanaikit's platforms ("vmmc" -> .../lua-scripts/platforms/vmmc.lua).
  std::string platform_file(const std::string& name_or_path) const {
    if (name_or_path.find('/') != std::string::npos ||
        (name_or_path.size() > 4 && name_or_path.compare(name_or_path.size() - 4, 4, ".lua") == 0))
      return name_or_path;
    return platforms() + "/" + name_or_path + ".lua";
  }
};

// This process's locations (computed on first use from /proc/self/exe and the build's
// configuration).
const Locations& locations();

// The rule itself, for tests: `exe` is the executable's path, `env_cache`/`xdg`/`home` the
// environment's values (null when unset).
Locations locate(const std::string& exe, const char* env_cache, const char* xdg, const char* home);

} // namespace lanaikit::assembler
