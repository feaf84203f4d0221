// Recursive walks of Lua tables from C++ (lk.write_json, platform tables).
//
// A C function is guaranteed only LUA_MINSTACK (20) free stack slots; a walk that pushes a
// key and a value per level without asking for more writes past the stack's end by ~10
// levels down (heap corruption that surfaces later). A walk also must not follow a cycle
// forever. TableWalk grows the stack per level (lua_checkstack, which reports failure
// instead of raising a Lua error through C++ frames), stops at a depth limit, and names a
// cycle by the two paths that reach the same table.
#pragma once

#include "lua/check.h"

#include <lua.hpp>

#include <string>
#include <utility>
#include <vector>

namespace lanaikit::sim::lua {

class TableWalk {
public:
  // `max_depth`: how many tables deep a value may nest (the outermost table is depth 1).
  // `prefix` starts each message ("lk.write_json: argument 2: "). `slots_per_level`: the
  // stack slots one level pushes while it descends.
  TableWalk(int max_depth, std::string prefix, int slots_per_level = 4)
      : max_depth_(max_depth), prefix_(std::move(prefix)), slots_per_level_(slots_per_level) {}

  // The table at `idx`, reached by `path`, while it is being walked: the stack has room for
  // one more level. Throws ArgError "<what>: table nested deeper than N at <path>" or
  // "<what>: cycle at <path>: the table is <ancestor path> again".
  class Level {
  public:
    ~Level() { walk_.path_.pop_back(); }
    Level(const Level&) = delete;
    Level& operator=(const Level&) = delete;

  private:
    friend class TableWalk;
    explicit Level(TableWalk& w) : walk_(w) {}
    TableWalk& walk_;
  };

  [[nodiscard]] Level enter(lua_State* L, int idx, const std::string& path) {
    const void* table = lua_topointer(L, idx);
    for (const auto& [seen, where] : path_)
      if (seen == table)
        throw ArgError(prefix_ + "cycle at " + path + ": the table is " + where + " again");
    if (int(path_.size()) >= max_depth_)
      throw ArgError(prefix_ + "table nested deeper than " + std::to_string(max_depth_) + " at " +
                     path);
    if (!lua_checkstack(L, slots_per_level_))
      throw ArgError(prefix_ + "out of Lua stack at " + path);
    path_.emplace_back(table, path);
    return Level(*this);
  }

private:
  int max_depth_;
  std::string prefix_;
  int slots_per_level_;
  std::vector<std::pair<const void*, std::string>>
      path_; // the tables being walked, outermost first
};

} // namespace lanaikit::sim::lua
