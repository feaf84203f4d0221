#include "sim/lua_table.h"

#include <lua.hpp>

#include <algorithm>
#include <cmath>

namespace lanaikit::sim {

namespace {

// Pops the value on top of the stack, for messages.
std::string describe_top(lua_State* L) {
  const int t = lua_type(L, -1);
  std::string what = t == LUA_TSTRING ? "a string" : t == LUA_TNUMBER ? "a number"
                     : t == LUA_TBOOLEAN ? "a boolean" : t == LUA_TTABLE ? "a table"
                     : t == LUA_TNIL ? "nothing" : std::string("a ") + lua_typename(L, t);
  lua_pop(L, 1);
  return what;
}

int traceback(lua_State* L) {
  const char* msg = lua_tostring(L, 1);
  luaL_traceback(L, L, msg ? msg : "(error object is not a string)", 1);
  return 1;
}

// "[3]": the path element of an array index (built by appending: GCC 12 warns falsely on
// "[" + std::to_string(i)).
std::string index_key(size_t index) {
  std::string key("[");
  key.append(std::to_string(index)).push_back(']');
  return key;
}

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

LuaFile::LuaFile(const std::string& path) : name_(base_name(path)) {
  L_ = luaL_newstate();
  if (!L_) throw LuaError(name_ + ": cannot create a Lua state");
  luaL_openlibs(L_);
  lua_pushcfunction(L_, traceback);
  if (luaL_loadfilex(L_, path.c_str(), "t") != LUA_OK) {
    std::string msg = lua_tostring(L_, -1);
    lua_close(L_);
    L_ = nullptr;
    throw LuaError(msg);
  }
  if (lua_pcall(L_, 0, 1, -2) != LUA_OK) {
    std::string msg = lua_tostring(L_, -1);
    lua_close(L_);
    L_ = nullptr;
    throw LuaError(msg);
  }
  if (!lua_istable(L_, -1)) {
    const std::string got = describe_top(L_);
    lua_close(L_);
    L_ = nullptr;
    throw LuaError(name_ + ": must return a table, returned " + got);
  }
  const int ref = luaL_ref(L_, LUA_REGISTRYINDEX);
  lua_pop(L_, 1); // the traceback handler
  root_.reset(new LuaTable(this, ref, ""));
}

LuaFile::~LuaFile() {
  if (L_) lua_close(L_);
}

void LuaTable::fail(const std::string& key, const std::string& what) const {
  std::string field = path_;
  if (!key.empty()) {
    if (!field.empty() && key[0] != '[') field.push_back('.');
    field.append(key);
  }
  if (field.empty()) field = "(top level)";
  std::string message = file_->name();
  message.append(": ").append(field).append(": ").append(what);
  throw LuaError(message);
}

void LuaTable::push_field(const std::string& key) const {
  lua_State* L = file_->L_;
  lua_rawgeti(L, LUA_REGISTRYINDEX, ref_);
  lua_getfield(L, -1, key.c_str());
  lua_remove(L, -2);
}

void LuaTable::push_index(size_t index) const {
  lua_State* L = file_->L_;
  lua_rawgeti(L, LUA_REGISTRYINDEX, ref_);
  lua_rawgeti(L, -1, lua_Integer(index));
  lua_remove(L, -2);
}

bool LuaTable::has(const std::string& key) const {
  push_field(key);
  const bool present = !lua_isnil(file_->L_, -1);
  lua_pop(file_->L_, 1);
  return present;
}

bool LuaTable::is_number(const std::string& key) const {
  push_field(key);
  const bool yes = lua_type(file_->L_, -1) == LUA_TNUMBER;
  lua_pop(file_->L_, 1);
  return yes;
}

bool LuaTable::is_table(const std::string& key) const {
  push_field(key);
  const bool yes = lua_istable(file_->L_, -1);
  lua_pop(file_->L_, 1);
  return yes;
}

std::vector<std::string> LuaTable::keys() const {
  lua_State* L = file_->L_;
  std::vector<std::string> out;
  lua_rawgeti(L, LUA_REGISTRYINDEX, ref_);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    if (lua_type(L, -2) == LUA_TSTRING) out.emplace_back(lua_tostring(L, -2));
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  std::sort(out.begin(), out.end());
  return out;
}

template <class Get>
auto LuaTable::read(const std::string& key, int type, const char* expected, Get get) const {
  lua_State* L = file_->L_;
  push_field(key);
  if (lua_type(L, -1) != type) fail(key, std::string("expected ") + expected + ", got " + describe_top(L));
  auto v = get(L);
  lua_pop(L, 1);
  return v;
}

double LuaTable::number(const std::string& key) const {
  return read(key, LUA_TNUMBER, "a number", [](lua_State* L) { return lua_tonumber(L, -1); });
}

int64_t LuaTable::integer(const std::string& key) const {
  const double v = number(key);
  if (std::floor(v) != v || std::fabs(v) > 9.007199254740992e15)
    fail(key, "expected an integer, got " + std::to_string(v));
  return int64_t(v);
}

uint64_t LuaTable::positive(const std::string& key) const {
  const int64_t v = integer(key);
  if (v <= 0) fail(key, "expected a positive integer, got " + std::to_string(v));
  return uint64_t(v);
}

std::string LuaTable::string(const std::string& key) const {
  return read(key, LUA_TSTRING, "a string",
              [](lua_State* L) { return std::string(lua_tostring(L, -1)); });
}

bool LuaTable::boolean(const std::string& key) const {
  return read(key, LUA_TBOOLEAN, "a boolean",
              [](lua_State* L) { return lua_toboolean(L, -1) != 0; });
}

LuaTable LuaTable::table(const std::string& key) const {
  lua_State* L = file_->L_;
  push_field(key);
  if (!lua_istable(L, -1)) fail(key, "expected a table, got " + describe_top(L));
  const int ref = luaL_ref(L, LUA_REGISTRYINDEX);
  return LuaTable(file_, ref, path_.empty() ? key : path_ + "." + key);
}

double LuaTable::number_or(const std::string& key, double fallback) const {
  return has(key) ? number(key) : fallback;
}

int64_t LuaTable::integer_or(const std::string& key, int64_t fallback) const {
  return has(key) ? integer(key) : fallback;
}

std::optional<LuaTable> LuaTable::table_if(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return table(key);
}

size_t LuaTable::length() const {
  lua_State* L = file_->L_;
  lua_rawgeti(L, LUA_REGISTRYINDEX, ref_);
  const size_t n = size_t(lua_rawlen(L, -1));
  lua_pop(L, 1);
  return n;
}

LuaTable LuaTable::table_at(size_t index) const {
  lua_State* L = file_->L_;
  push_index(index);
  const std::string key = index_key(index);
  if (!lua_istable(L, -1)) fail(key, "expected a table, got " + describe_top(L));
  const int ref = luaL_ref(L, LUA_REGISTRYINDEX);
  return LuaTable(file_, ref, path_ + key);
}

double LuaTable::number_at(size_t index) const {
  lua_State* L = file_->L_;
  push_index(index);
  if (lua_type(L, -1) != LUA_TNUMBER)
    fail(index_key(index), "expected a number, got " + describe_top(L));
  const double v = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return v;
}

void LuaTable::only(const std::vector<std::string>& allowed) const {
  for (const std::string& k : keys())
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) {
      std::string list;
      for (const auto& a : allowed) {
        if (!list.empty()) list.append(", ");
        list.append(a);
      }
      fail(k, "unknown field (expected one of: " + list + ")");
    }
}

} // namespace lanaikit::sim
