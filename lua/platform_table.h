// Platforms as Lua tables (lk.platform, lk.cluster{platform = ...}).
#pragma once

#include "sim/platform.h"

#include <string>

struct lua_State;

namespace lanaikit::sim::lua {

// A platform name ("vmmc": lua-scripts/platforms/vmmc.lua in the source tree) or a path.
std::string platform_path(const std::string& source_dir, const std::string& name);

// The table at `idx` as a checked Platform: load_platform's checks and messages.
// Throws ArgError (a value no platform file can hold) or sim::LuaError.
Platform platform_from_table(lua_State* L, int idx);

} // namespace lanaikit::sim::lua
