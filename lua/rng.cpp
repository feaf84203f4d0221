// lk.rng(seed): std::mt19937_64 with our own distributions, so a seed gives the same
// sequence on every machine (the standard library's distributions are
// implementation-defined).
#include "lua/internal.h"

#include <cmath>
#include <random>

namespace lanaikit::sim::lua {

namespace {

struct RngUD {
  std::mt19937_64 gen;
  bool alive = false;
};

RngUD& rng_self(const Args& a) {
  auto& r = a.self<RngUD>(kRng);
  if (!r.alive) a.fail_message("the generator was collected");
  return r;
}

// Uniform in [0, n) without modulo bias.
uint64_t below(std::mt19937_64& g, uint64_t n) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x;
  do x = g();
  while (x >= limit);
  return x % n;
}

double real(std::mt19937_64& g) { return double(g() >> 11) * 0x1.0p-53; }

int lk_rng(lua_State* L) {
  Args a(L, "lk.rng");
  const int64_t seed = a.none(1) ? 1 : a.integer(1);
  RngUD& r = push_udata<RngUD>(L, kRng);
  r.gen.seed(uint64_t(seed));
  r.alive = true;
  return 1;
}

int g_uniform(lua_State* L) {
  Args a(L, "Rng:uniform", 1);
  RngUD& r = rng_self(a);
  const int64_t lo = a.integer(1), hi = a.integer(2);
  if (hi < lo) a.fail(2, "expected an integer >= argument 1 (" + std::to_string(lo) + "), got " + std::to_string(hi));
  const uint64_t span = uint64_t(hi) - uint64_t(lo);
  const uint64_t v = span == UINT64_MAX ? r.gen() : below(r.gen, span + 1);
  lua_pushinteger(L, lua_Integer(uint64_t(lo) + v));
  return 1;
}

int g_real(lua_State* L) {
  Args a(L, "Rng:real", 1);
  lua_pushnumber(L, real(rng_self(a).gen));
  return 1;
}

int g_choice(lua_State* L) {
  Args a(L, "Rng:choice", 1);
  RngUD& r = rng_self(a);
  const TableArg t = a.table(1);
  const lua_Integer n = lua_Integer(lua_rawlen(L, t.stack_index()));
  if (n == 0) a.fail(1, "expected a non-empty list, got an empty table");
  lua_rawgeti(L, t.stack_index(), lua_Integer(below(r.gen, uint64_t(n))) + 1);
  return 1;
}

int g_exponential(lua_State* L) {
  Args a(L, "Rng:exponential", 1);
  RngUD& r = rng_self(a);
  const double mean = a.number(1);
  if (!(mean > 0) || !std::isfinite(mean)) a.fail(1, "expected a positive mean, got " + describe(L, a.index(1)));
  lua_pushnumber(L, -mean * std::log1p(-real(r.gen)));
  return 1;
}

int g_tostring(lua_State* L) {
  lua_pushstring(L, "Rng");
  return 1;
}

} // namespace

void open_rng(lua_State* L) {
  static const luaL_Reg methods[] = {
      {"uniform", wrap<g_uniform>},
      {"real", wrap<g_real>},
      {"choice", wrap<g_choice>},
      {"exponential", wrap<g_exponential>},
      {nullptr, nullptr},
  };
  new_type(L, kRng, methods, gc_udata<RngUD>, g_tostring);
  lua_pushcfunction(L, wrap<lk_rng>);
  lua_setfield(L, -2, "rng");
}

} // namespace lanaikit::sim::lua
