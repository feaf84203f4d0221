// lk.platform and the platform argument of lk.cluster.
//
// A platform is a plain Lua table a script may edit. sim::load_platform reads and checks
// files, so a table (edited or not) is written back as a Lua chunk into a temporary file
// named after the platform and read by load_platform: the checks and their messages are
// exactly those of platform files ("vmmc.lua: link.latency_ns: expected a number, ...").
#include "lua/internal.h"
#include "lua/platform_table.h"
#include "lua/table_walk.h"

#include "sim/platform.h"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace lanaikit::sim::lua {

namespace fs = std::filesystem;

namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  static const char* const kReserved[] = {"and", "break", "do", "else", "elseif", "end", "false",
                                          "for", "function", "goto", "if", "in", "local", "nil",
                                          "not", "or", "repeat", "return", "then", "true", "until", "while"};
  for (const char* r : kReserved)
    if (s == r) return false;
  return true;
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(char(c));
    } else if (c < 32 || c >= 127) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03u", unsigned(c));
      out += buf;
    } else out.push_back(char(c));
  }
  return out + "\"";
}

// How deep a platform table may nest: platform files nest a few levels (pci.dma[1]), and
// the text serialize writes must stay within the Lua parser's nesting limit (LUAI_MAXCCALLS).
constexpr int kMaxPlatformDepth = 32;

void serialize(lua_State* L, int idx, std::string& out, const std::string& path, TableWalk& walk) {
  idx = lua_absindex(L, idx);
  switch (lua_type(L, idx)) {
  case LUA_TNUMBER: {
    char buf[64];
    if (lua_isinteger(L, idx)) std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(lua_tointeger(L, idx)));
    else {
      const double d = lua_tonumber(L, idx);
      if (!std::isfinite(d)) throw ArgError(path + ": expected a finite number");
      std::snprintf(buf, sizeof buf, "%.17g", d);
    }
    out += buf;
    return;
  }
  case LUA_TSTRING: {
    size_t n = 0;
    const char* s = lua_tolstring(L, idx, &n);
    out += quote(std::string(s, n));
    return;
  }
  case LUA_TBOOLEAN:
    out += lua_toboolean(L, idx) ? "true" : "false";
    return;
  case LUA_TTABLE: {
    const TableWalk::Level level = walk.enter(L, idx, path.empty() ? "the platform" : path);
    out += "{";
    lua_pushnil(L);
    while (lua_next(L, idx)) {
      std::string key;
      if (lua_type(L, -2) == LUA_TSTRING) {
        const std::string k = lua_tostring(L, -2);
        if (is_identifier(k)) key = k;
        else key.append(1, '[').append(quote(k)).append(1, ']');
      } else if (lua_isinteger(L, -2)) {
        key.append(1, '[').append(std::to_string(lua_tointeger(L, -2))).append(1, ']');
      } else {
        lua_pop(L, 2);
        throw ArgError(path + ": keys must be strings or integers");
      }
      out += key + "=";
      const std::string sub = path.empty() ? key : path + (key[0] == '[' ? "" : ".") + key;
      try {
        serialize(L, -1, out, sub, walk);
      } catch (...) {
        lua_pop(L, 2);
        throw;
      }
      out += ",";
      lua_pop(L, 1);
    }
    out += "}";
    return;
  }
  default:
    throw ArgError(path + ": a platform holds numbers, strings, booleans and tables, not a " +
                   std::string(lua_typename(L, lua_type(L, idx))));
  }
}

std::string platform_name(lua_State* L, int idx) {
  std::string name = "platform";
  lua_pushstring(L, "name");
  lua_rawget(L, idx);
  if (lua_type(L, -1) == LUA_TSTRING) {
    std::string n = lua_tostring(L, -1);
    bool ok = !n.empty() && n.size() < 64;
    for (char c : n)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') ok = false;
    if (ok) name = n;
  }
  lua_pop(L, 1);
  return name;
}

// lk.platform(name_or_path) -> the platform file's table (a fresh copy each call).
int lk_platform(lua_State* L) {
  Args a(L, "lk.platform");
  const std::string path = platform_path(runtime_of(L).opt.source_dir, a.string(1));
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) a.fail(1, "no platform file '" + path + "'");
  if (luaL_loadfilex(L, path.c_str(), "t") != LUA_OK) {
    const std::string msg = lua_tostring(L, -1);
    lua_pop(L, 1);
    a.fail_message(msg);
  }
  if (lua_pcall(L, 0, 1, 0) != LUA_OK) {
    const std::string msg = lua_tostring(L, -1) ? lua_tostring(L, -1) : "error";
    lua_pop(L, 1);
    a.fail_message(msg);
  }
  if (!lua_istable(L, -1)) {
    const std::string got = describe(L, -1);
    lua_pop(L, 1);
    a.fail_message(path + ": must return a table, returned " + got);
  }
  return 1;
}

} // namespace

std::string platform_path(const std::string& source_dir, const std::string& name) {
  if (name.find('/') != std::string::npos || (name.size() > 4 && name.substr(name.size() - 4) == ".lua"))
    return name;
  return source_dir + "/lua-scripts/platforms/" + name + ".lua";
}

Platform platform_from_table(lua_State* L, int idx) {
  idx = lua_absindex(L, idx);
  std::string text = "return ";
  TableWalk walk(kMaxPlatformDepth, "");
  try {
    serialize(L, idx, text, "", walk);
  } catch (const ArgError& e) {
    // Not yet an argument error: the caller names the argument, as for load_platform's.
    throw LuaError(e.what());
  }
  text += "\n";
  static std::atomic<uint64_t> counter{0};
  const fs::path dir = fs::temp_directory_path() /
                       ("lanaikit-platform-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  fs::create_directories(dir);
  const fs::path file = dir / (platform_name(L, idx) + ".lua");
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{dir};
  {
    std::ofstream out(file);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + file.string());
  }
  return load_platform(file.string());
}

void open_platform(lua_State* L) {
  lua_pushcfunction(L, wrap<lk_platform>);
  lua_setfield(L, -2, "platform");
}

} // namespace lanaikit::sim::lua
