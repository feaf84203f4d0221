#include "assembler/locations.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <system_error>

// The build tree's paths, given by CMake (firmware/CMakeLists.txt: lanaikit_uses_runtime).
#ifndef LANAIKIT_SOURCE_DIR
#error "LANAIKIT_SOURCE_DIR must be defined (lanaikit_uses_runtime)"
#endif

namespace lanaikit::assembler {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ';');)
    if (!item.empty()) out.push_back(item);
  return out;
}

} // namespace

Locations locate(const std::string& exe, const char* env_cache, const char* xdg, const char* home) {
  Locations l;
  std::error_code ec;
  const fs::path prefix = fs::path(exe).parent_path().parent_path();
  const fs::path share = prefix / "share" / "lanaikit";
  if (!exe.empty() && fs::is_directory(share / "firmware" / "lib", ec)) {
    l.installed = true;
    l.data_dir = share.string();
    const fs::path runtime = prefix / "lib" / "lanaikit" / "runtime";
    // The installed objects keep the names the build gave them.
    l.crt0 = (runtime / fs::path(LANAIKIT_CRT0).filename()).string();
    for (const std::string& o : split_list(LANAIKIT_RUNTIME_OBJECTS))
      l.runtime_objects.push_back((runtime / fs::path(o).filename()).string());
    if (xdg && *xdg) l.cache_dir = (fs::path(xdg) / "lanaikit").string();
    else if (home && *home) l.cache_dir = (fs::path(home) / ".cache" / "lanaikit").string();
  } else {
    l.data_dir = LANAIKIT_SOURCE_DIR;
    l.crt0 = LANAIKIT_CRT0;
    l.runtime_objects = split_list(LANAIKIT_RUNTIME_OBJECTS);
#ifdef LANAIKIT_LK_CACHE
    l.cache_dir = LANAIKIT_LK_CACHE;
#endif
  }
  if (env_cache && *env_cache) l.cache_dir = env_cache;
  return l;
}

const Locations& locations() {
  static const Locations l = [] {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return locate(ec ? std::string() : exe.string(), std::getenv("LANAIKIT_CACHE"),
                  std::getenv("XDG_CACHE_HOME"), std::getenv("HOME"));
  }();
  return l;
}

} // namespace lanaikit::assembler
