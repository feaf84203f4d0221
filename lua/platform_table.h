// Platforms as Lua tables (lk.platform, lk.cluster{platform = ...}).
#pragma once

#include "sim/platform.h"

#include <string>

struct lua_State;

namespace lanaikit::sim::lua {

// A platform name ("vmmc": lua-scripts/platforms/vmmc.lua in the source tree) or a path.
std::string platform_path(const std::string& source_dir, const std::string& name);

// The table at `idx` as a checked Platform: load_platform's checks and messages.
// Throws sim::LuaError naming the field (a value no platform file can hold, a cycle, tables
// nested deeper than 32, or what load_platform rejects).
Platform platform_from_table(lua_State* L, int idx);

} // namespace lanaikit::sim::lua
