#include "lua/check.h"

#include <lua.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace lanaikit::sim::lua {

PopOnExit::~PopOnExit() { lua_pop(L, 1); }


namespace {

std::string number_text(lua_State* L, int index) {
  char buf[64];
  if (lua_isinteger(L, index))
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(lua_tointeger(L, index)));
  else std::snprintf(buf, sizeof buf, "%.17g", lua_tonumber(L, index));
  return buf;
}

// The number at `index` as an exact integer, if it is one.
std::optional<int64_t> as_integer(lua_State* L, int index) {
  if (lua_isinteger(L, index)) return int64_t(lua_tointeger(L, index));
  const double d = lua_tonumber(L, index);
  if (std::floor(d) != d || std::fabs(d) > 9.007199254740992e15) return std::nullopt;
  return int64_t(d);
}

} // namespace

std::string describe(lua_State* L, int index) {
  const int t = lua_type(L, index);
  if (t == LUA_TNUMBER) return "number " + number_text(L, index);
  if (t == LUA_TUSERDATA && lua_getmetatable(L, index)) {
    lua_getfield(L, -1, "__name");
    std::string name = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "userdata";
    lua_pop(L, 2);
    return name;
  }
  return lua_typename(L, t);
}

Time ns_to_ps(double ns) { return Time(std::llround(ns * 1000.0)); }

namespace {

// The longest time an argument may name (sim::kMaxTime, 2^62 ps).
constexpr double kMaxTimeNs = double(kMaxTime) / 1000.0;

// Whether a Lua number is a time in ns this API takes (non-negative, finite, in range).
bool valid_time_ns(lua_State* L, int i) {
  if (lua_type(L, i) != LUA_TNUMBER) return false;
  const double ns = lua_tonumber(L, i);
  return ns >= 0 && std::isfinite(ns) && ns <= kMaxTimeNs;
}

const char* const kTimeExpected = "expected a non-negative time in ns up to 2^62 ps (about 53 days), got ";

} // namespace
double ps_to_ns(Time ps) { return double(ps) / 1000.0; }

// ---- Args ---------------------------------------------------------------------------------

int Args::count() const { return std::max(0, lua_gettop(L_) - self_); }

void Args::fail(int arg, const std::string& what) const {
  throw ArgError(fn_ + ": argument " + std::to_string(arg) + ": " + what);
}

void Args::fail_message(const std::string& message) const { throw ArgError(fn_ + ": " + message); }

bool Args::none(int arg) const { return lua_isnoneornil(L_, index(arg)); }

double Args::number(int arg) const {
  const int i = index(arg);
  if (lua_type(L_, i) != LUA_TNUMBER) fail(arg, "expected a number, got " + describe(L_, i));
  return lua_tonumber(L_, i);
}

int64_t Args::integer(int arg) const {
  const int i = index(arg);
  if (lua_type(L_, i) != LUA_TNUMBER) fail(arg, "expected an integer, got " + describe(L_, i));
  const auto v = as_integer(L_, i);
  if (!v) fail(arg, "expected an integer, got " + describe(L_, i));
  return *v;
}

int64_t Args::integer_in(int arg, int64_t lo, int64_t hi, const char* expected) const {
  const int i = index(arg);
  if (lua_type(L_, i) != LUA_TNUMBER) fail(arg, std::string("expected ") + expected + ", got " + describe(L_, i));
  const auto v = as_integer(L_, i);
  if (!v || *v < lo || *v > hi) fail(arg, std::string("expected ") + expected + ", got " + describe(L_, i));
  return *v;
}

uint32_t Args::u32(int arg) const {
  return uint32_t(integer_in(arg, 0, 0xFFFFFFFFll, "a 32-bit unsigned integer"));
}

uint64_t Args::positive(int arg) const {
  return uint64_t(integer_in(arg, 1, INT64_MAX, "a positive integer"));
}

std::string Args::string(int arg) const { return std::string(string_view(arg)); }

std::string_view Args::string_view(int arg) const {
  const int i = index(arg);
  if (lua_type(L_, i) != LUA_TSTRING) fail(arg, "expected a string, got " + describe(L_, i));
  size_t n = 0;
  const char* s = lua_tolstring(L_, i, &n);
  return std::string_view(s, n);
}

bool Args::boolean(int arg) const {
  const int i = index(arg);
  if (lua_type(L_, i) != LUA_TBOOLEAN) fail(arg, "expected a boolean, got " + describe(L_, i));
  return lua_toboolean(L_, i) != 0;
}

Time Args::time_ns(int arg) const {
  const int i = index(arg);
  if (!valid_time_ns(L_, i)) fail(arg, kTimeExpected + describe(L_, i));
  return ns_to_ps(lua_tonumber(L_, i));
}

void Args::function(int arg) const {
  const int i = index(arg);
  if (lua_type(L_, i) != LUA_TFUNCTION) fail(arg, "expected a function, got " + describe(L_, i));
}

TableArg Args::table(int arg) const {
  const int i = index(arg);
  if (lua_type(L_, i) != LUA_TTABLE) fail(arg, "expected a table, got " + describe(L_, i));
  return TableArg(*this, arg, lua_absindex(L_, i), "");
}

std::optional<int64_t> Args::opt_integer(int arg) const {
  if (none(arg)) return std::nullopt;
  return integer(arg);
}

std::optional<std::string> Args::opt_string(int arg) const {
  if (none(arg)) return std::nullopt;
  return string(arg);
}

std::optional<Time> Args::opt_time_ns(int arg) const {
  if (none(arg)) return std::nullopt;
  return time_ns(arg);
}

void* Args::udata_ptr(int arg, const char* tname) const {
  const int i = index(arg);
  void* p = luaL_testudata(L_, i, tname);
  if (!p) fail(arg, std::string("expected a ") + tname + ", got " + describe(L_, i));
  return p;
}

void* Args::self_ptr(const char* tname) const {
  void* p = luaL_testudata(L_, 1, tname);
  if (!p)
    throw ArgError(fn_ + ": expected a " + tname + " as self (call it with ':'), got " + describe(L_, 1));
  return p;
}

// ---- TableArg -----------------------------------------------------------------------------

std::string TableArg::where(const std::string& key) const {
  std::string field = path_;
  if (!key.empty()) {
    if (!field.empty() && key[0] != '[') field.push_back('.');
    field.append(key);
  }
  std::string out = a_.fn_ + ": argument " + std::to_string(arg_);
  if (!field.empty()) out.append(" field '").append(field).append("'");
  return out;
}

void TableArg::fail(const std::string& key, const std::string& what) const {
  throw ArgError(where(key) + ": " + what);
}

int TableArg::push(const char* key) const {
  lua_State* L = a_.L_;
  lua_pushstring(L, key);
  return lua_rawget(L, idx_);
}

bool TableArg::has(const char* key) const {
  const bool present = push(key) != LUA_TNIL;
  lua_pop(a_.L_, 1);
  return present;
}

namespace {
// Runs `get` on t[key] (on top of the stack) and pops it, also when `get` throws.
template <class Get> auto with_field(lua_State* L, Get get) {
  PopOnExit pop{L};
  return get();
}
} // namespace

double TableArg::number(const char* key) const {
  lua_State* L = a_.L_;
  push(key);
  return with_field(L, [&] {
    if (lua_type(L, -1) != LUA_TNUMBER) fail(key, "expected a number, got " + describe(L, -1));
    return double(lua_tonumber(L, -1));
  });
}

int64_t TableArg::integer(const char* key) const {
  lua_State* L = a_.L_;
  push(key);
  return with_field(L, [&] {
    std::optional<int64_t> v;
    if (lua_type(L, -1) == LUA_TNUMBER) v = as_integer(L, -1);
    if (!v) fail(key, "expected an integer, got " + describe(L, -1));
    return *v;
  });
}

uint64_t TableArg::positive(const char* key) const {
  lua_State* L = a_.L_;
  push(key);
  return with_field(L, [&] {
    std::optional<int64_t> v;
    if (lua_type(L, -1) == LUA_TNUMBER) v = as_integer(L, -1);
    if (!v || *v <= 0) fail(key, "expected a positive integer, got " + describe(L, -1));
    return uint64_t(*v);
  });
}

uint32_t TableArg::u32(const char* key) const {
  lua_State* L = a_.L_;
  push(key);
  return with_field(L, [&] {
    std::optional<int64_t> v;
    if (lua_type(L, -1) == LUA_TNUMBER) v = as_integer(L, -1);
    if (!v || *v < 0 || *v > 0xFFFFFFFFll)
      fail(key, "expected a 32-bit unsigned integer, got " + describe(L, -1));
    return uint32_t(*v);
  });
}

std::string TableArg::string(const char* key) const {
  lua_State* L = a_.L_;
  push(key);
  return with_field(L, [&] {
    if (lua_type(L, -1) != LUA_TSTRING) fail(key, "expected a string, got " + describe(L, -1));
    size_t n = 0;
    const char* s = lua_tolstring(L, -1, &n);
    return std::string(s, n);
  });
}

bool TableArg::boolean(const char* key) const {
  lua_State* L = a_.L_;
  push(key);
  return with_field(L, [&] {
    if (lua_type(L, -1) != LUA_TBOOLEAN) fail(key, "expected a boolean, got " + describe(L, -1));
    return lua_toboolean(L, -1) != 0;
  });
}

Time TableArg::time_ns(const char* key) const {
  lua_State* L = a_.L_;
  push(key);
  return with_field(L, [&] {
    if (!valid_time_ns(L, -1)) fail(key, kTimeExpected + describe(L, -1));
    return ns_to_ps(lua_tonumber(L, -1));
  });
}

double TableArg::probability(const char* key) const {
  lua_State* L = a_.L_;
  push(key);
  return with_field(L, [&] {
    if (lua_type(L, -1) != LUA_TNUMBER || !(lua_tonumber(L, -1) >= 0) || !(lua_tonumber(L, -1) <= 1))
      fail(key, "expected a probability in [0, 1], got " + describe(L, -1));
    return double(lua_tonumber(L, -1));
  });
}

std::optional<double> TableArg::opt_number(const char* key) const {
  if (!has(key)) return std::nullopt;
  return number(key);
}
std::optional<int64_t> TableArg::opt_integer(const char* key) const {
  if (!has(key)) return std::nullopt;
  return integer(key);
}
std::optional<uint64_t> TableArg::opt_positive(const char* key) const {
  if (!has(key)) return std::nullopt;
  return positive(key);
}
std::optional<std::string> TableArg::opt_string(const char* key) const {
  if (!has(key)) return std::nullopt;
  return string(key);
}
std::optional<bool> TableArg::opt_boolean(const char* key) const {
  if (!has(key)) return std::nullopt;
  return boolean(key);
}
std::optional<Time> TableArg::opt_time_ns(const char* key) const {
  if (!has(key)) return std::nullopt;
  return time_ns(key);
}

std::optional<std::vector<std::string>> TableArg::opt_strings(const char* key) const {
  lua_State* L = a_.L_;
  const int t = push(key);
  return with_field(L, [&]() -> std::optional<std::vector<std::string>> {
    if (t == LUA_TNIL) return std::nullopt;
    if (t == LUA_TSTRING) return std::vector<std::string>{lua_tostring(L, -1)};
    if (t != LUA_TTABLE) fail(key, "expected a string or a list of strings, got " + describe(L, -1));
    std::vector<std::string> out;
    const lua_Integer n = lua_Integer(lua_rawlen(L, -1));
    for (lua_Integer i = 1; i <= n; ++i) {
      lua_rawgeti(L, -1, i);
      if (lua_type(L, -1) != LUA_TSTRING) {
        const std::string got = describe(L, -1);
        lua_pop(L, 1);
        fail(std::string(key) + "[" + std::to_string(i) + "]", "expected a string, got " + got);
      }
      out.emplace_back(lua_tostring(L, -1));
      lua_pop(L, 1);
    }
    return out;
  });
}

std::optional<std::vector<int64_t>> TableArg::opt_integers(const char* key) const {
  lua_State* L = a_.L_;
  const int t = push(key);
  return with_field(L, [&]() -> std::optional<std::vector<int64_t>> {
    if (t == LUA_TNIL) return std::nullopt;
    if (t != LUA_TTABLE) fail(key, "expected a list of integers, got " + describe(L, -1));
    std::vector<int64_t> out;
    const lua_Integer n = lua_Integer(lua_rawlen(L, -1));
    for (lua_Integer i = 1; i <= n; ++i) {
      lua_rawgeti(L, -1, i);
      std::optional<int64_t> v;
      if (lua_type(L, -1) == LUA_TNUMBER) v = as_integer(L, -1);
      if (!v || *v < 0) {
        const std::string got = describe(L, -1);
        lua_pop(L, 1);
        fail(std::string(key) + "[" + std::to_string(i) + "]", "expected a non-negative integer, got " + got);
      }
      out.push_back(*v);
      lua_pop(L, 1);
    }
    return out;
  });
}

void TableArg::only(const std::vector<std::string>& allowed) const {
  lua_State* L = a_.L_;
  std::vector<std::string> bad;
  lua_pushnil(L);
  while (lua_next(L, idx_)) {
    if (lua_type(L, -2) == LUA_TSTRING) {
      const std::string k = lua_tostring(L, -2);
      if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) bad.push_back(k);
    }
    lua_pop(L, 1);
  }
  if (bad.empty()) return;
  std::sort(bad.begin(), bad.end());
  std::string list;
  for (const auto& a : allowed) {
    if (!list.empty()) list.append(", ");
    list.append(a);
  }
  fail(bad.front(), "unknown field (expected one of: " + list + ")");
}

} // namespace lanaikit::sim::lua
