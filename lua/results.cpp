// Results and checks: lk.assert, lk.fnv1a32 (a payload checksum), and lk.write_csv /
// write_json / plot_svg / progress on the report writers of report/. Paths are relative
// to the working directory, as io.open's are.
#include "lua/internal.h"
#include "lua/table_walk.h"

#include "report/csv.h"
#include "report/progress.h"
#include "report/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

namespace lanaikit::sim::lua {

namespace {

// lk.assert(cond, message, ...): like assert, with the simulated time in the message.
int lk_assert(lua_State* L) {
  Runtime::Impl& rt = runtime_of(L);
  if (lua_gettop(L) == 0) throw ArgError("lk.assert: argument 1: expected a value, got no value");
  if (lua_toboolean(L, 1)) return lua_gettop(L);
  std::string msg = "assertion failed!";
  if (lua_type(L, 2) == LUA_TSTRING || lua_type(L, 2) == LUA_TNUMBER) msg = lua_tostring(L, 2);
  std::string when;
  if (rt.current)
    when = " (process " + rt.current->name + " at simulated time " + us_text(rt.current->proc->local()) + ")";
  else
    for (auto it = rt.clusters.rbegin(); it != rt.clusters.rend(); ++it)
      if (auto box = it->box.lock(); box && box->cluster) {
        when = " (at simulated time " + us_text(box->cluster->kernel().now()) + ")";
        break;
      }
  throw std::runtime_error(msg + when);
}

// t[key] without metamethods (reading results never runs Lua code).
void raw_field(lua_State* L, int idx, const char* key) {
  idx = lua_absindex(L, idx);
  lua_pushstring(L, key);
  lua_rawget(L, idx);
}

void write_text(const Args& a, const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) a.fail(1, "cannot write '" + path + "'");
}

// Keys of the table at `idx`: (is it a sequence 1..n, its string keys sorted).
bool is_sequence(lua_State* L, int idx, size_t& n) {
  n = size_t(lua_rawlen(L, idx));
  size_t keys = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    ++keys;
    lua_pop(L, 1);
  }
  return keys == n;
}

std::vector<std::string> string_keys(lua_State* L, int idx) {
  std::vector<std::string> out;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (lua_type(L, -2) == LUA_TSTRING) out.emplace_back(lua_tostring(L, -2));
    lua_pop(L, 1);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// How deep lk.write_json follows nested tables: far beyond any result table, and far below
// what the C++ recursion (and nlohmann-json's serializer) can take.
constexpr int kMaxJsonDepth = 100;

// A Lua value as a JSON document (nlohmann-json's ordered_json: object members in the order
// inserted, which is sorted key order here, so the file is deterministic).
using Json = nlohmann::ordered_json;

Json to_json_value(const Args& a, int idx, const std::string& path, TableWalk& walk) {
  lua_State* L = a.state();
  idx = lua_absindex(L, idx);
  switch (lua_type(L, idx)) {
  case LUA_TNIL: return Json(nullptr);
  case LUA_TBOOLEAN: return Json(lua_toboolean(L, idx) != 0);
  case LUA_TNUMBER:
    if (lua_isinteger(L, idx)) return Json(int64_t(lua_tointeger(L, idx)));
    if (!std::isfinite(lua_tonumber(L, idx))) a.fail(2, "at " + path + ": JSON has no NaN or infinity");
    return Json(double(lua_tonumber(L, idx)));
  case LUA_TSTRING: return Json(std::string(lua_tostring(L, idx), lua_rawlen(L, idx)));
  case LUA_TTABLE: {
    const TableWalk::Level level = walk.enter(L, idx, path);
    size_t n = 0;
    if (is_sequence(L, idx, n)) {
      Json arr = Json::array();
      for (size_t i = 1; i <= n; ++i) {
        lua_rawgeti(L, idx, lua_Integer(i));
        arr.push_back(to_json_value(a, -1, path + "[" + std::to_string(i) + "]", walk));
        lua_pop(L, 1);
      }
      return arr;
    }
    Json obj = Json::object();
    lua_pushnil(L);
    while (lua_next(L, idx)) {
      if (lua_type(L, -2) != LUA_TSTRING) a.fail(2, "at " + path + ": a JSON object needs string keys (or use a list)");
      lua_pop(L, 1);
    }
    for (const std::string& k : string_keys(L, idx)) {
      raw_field(L, idx, k.c_str());
      obj[k] = to_json_value(a, -1, path + "." + k, walk);
      lua_pop(L, 1);
    }
    return obj;
  }
  default:
    a.fail(2, "at " + path + ": a " + std::string(luaL_typename(L, idx)) + " has no JSON form");
  }
}

int lk_write_json(lua_State* L) {
  Args a(L, "lk.write_json");
  const std::string path = a.string(1);
  if (a.count() < 2) a.fail(2, "expected a value to write");
  TableWalk walk(kMaxJsonDepth, a.fn() + ": argument 2: ");
  const Json v = to_json_value(a, a.index(2), "value", walk);
  // Two-space indentation; bytes that are not UTF-8 become U+FFFD rather than an error.
  write_text(a, path, v.dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
  return 0;
}

report::CsvCell cell(lua_State* L, int idx) {
  switch (lua_type(L, idx)) {
  case LUA_TNUMBER:
    if (lua_isinteger(L, idx)) return int64_t(lua_tointeger(L, idx));
    return double(lua_tonumber(L, idx));
  case LUA_TSTRING: return std::string(lua_tostring(L, idx));
  case LUA_TBOOLEAN: return std::string(lua_toboolean(L, idx) ? "true" : "false");
  default: return std::monostate{};
  }
}

// lk.write_csv(path, rows [, columns]): rows are tables keyed by column name, or lists
// in column order; without `columns`, the first row's keys in sorted order. A row that does
// not match the header is an error (a list longer than the header; without `columns`, a
// field the first row lacks), never silently cut; with `columns`, named rows are projected
// onto them. Missing fields are empty cells.
int lk_write_csv(lua_State* L) {
  Args a(L, "lk.write_csv");
  const std::string path = a.string(1);
  const TableArg rows = a.table(2);
  std::vector<std::string> columns;
  const lua_Integer n = lua_Integer(lua_rawlen(L, rows.stack_index()));
  if (!a.none(3)) {
    const TableArg cols = a.table(3);
    for (lua_Integer i = 1; i <= lua_Integer(lua_rawlen(L, cols.stack_index())); ++i) {
      lua_rawgeti(L, cols.stack_index(), i);
      if (lua_type(L, -1) != LUA_TSTRING) {
        const std::string got = describe(L, -1);
        lua_pop(L, 1);
        a.fail(3, "element " + std::to_string(i) + ": expected a column name, got " + got);
      }
      columns.emplace_back(lua_tostring(L, -1));
      lua_pop(L, 1);
    }
  } else if (n > 0) {
    lua_rawgeti(L, rows.stack_index(), 1);
    if (lua_istable(L, -1)) columns = string_keys(L, lua_gettop(L));
    lua_pop(L, 1);
    if (columns.empty()) a.fail(3, "expected the column names (the first row has no named fields)");
  }
  if (columns.empty()) a.fail(3, "expected at least one column");
  const bool header_from_first_row = a.none(3);
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  std::vector<std::vector<report::CsvCell>> out;
  for (lua_Integer i = 1; i <= n; ++i) {
    lua_rawgeti(L, rows.stack_index(), i);
    if (!lua_istable(L, -1)) {
      const std::string got = describe(L, -1);
      lua_pop(L, 1);
      a.fail(2, "row " + std::to_string(i) + ": expected a table, got " + got);
    }
    const int row = lua_gettop(L);
    const bool positional = lua_rawlen(L, row) > 0;
    if (positional && lua_rawlen(L, row) > columns.size())
      a.fail(2, "row " + std::to_string(i) + " has " + std::to_string(lua_rawlen(L, row)) + " values for " +
                    std::to_string(columns.size()) + " columns (" + join(columns) + ")");
    if (!positional && header_from_first_row)
      for (const std::string& k : string_keys(L, row))
        if (!std::binary_search(columns.begin(), columns.end(), k))
          a.fail(2, "row " + std::to_string(i) + " has field '" + k + "', which the first row (the header: " +
                        join(columns) + ") lacks; pass the columns as argument 3");
    std::vector<report::CsvCell> r;
    for (size_t c = 0; c < columns.size(); ++c) {
      if (positional) lua_rawgeti(L, row, lua_Integer(c + 1));
      else raw_field(L, row, columns[c].c_str());
      r.push_back(cell(L, -1));
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    out.push_back(std::move(r));
  }
  std::ostringstream text;
  report::write_csv(text, columns, out);
  write_text(a, path, text.str());
  return 0;
}

// lk.plot_svg(path, { title=, x_label=, y_label=, log_x=, log_y=, width=, height=,
//                     series = { { name=, points = { {x, y}, ... } }, ... } })
int lk_plot_svg(lua_State* L) {
  Args a(L, "lk.plot_svg");
  const std::string path = a.string(1);
  const TableArg t = a.table(2);
  t.only({"title", "x_label", "y_label", "log_x", "log_y", "width", "height", "series"});
  report::PlotSpec spec;
  spec.title = t.opt_string("title").value_or("");
  spec.x_label = t.opt_string("x_label").value_or("");
  spec.y_label = t.opt_string("y_label").value_or("");
  spec.log_x = t.opt_boolean("log_x").value_or(false);
  spec.log_y = t.opt_boolean("log_y").value_or(false);
  if (auto w = t.opt_positive("width")) spec.width = int(std::min<uint64_t>(*w, 100000));
  if (auto h = t.opt_positive("height")) spec.height = int(std::min<uint64_t>(*h, 100000));
  if (t.push("series") != LUA_TTABLE) {
    const std::string got = describe(L, -1);
    lua_pop(L, 1);
    t.fail("series", "expected a list of { name =, points = { {x, y}, ... } }, got " + got);
  }
  const int series = lua_gettop(L);
  for (lua_Integer s = 1; s <= lua_Integer(lua_rawlen(L, series)); ++s) {
    const std::string where = "series[" + std::to_string(s) + "]";
    lua_rawgeti(L, series, s);
    if (!lua_istable(L, -1)) t.fail(where, "expected a table, got " + describe(L, -1));
    report::Series out;
    raw_field(L, lua_gettop(L), "name");
    if (lua_type(L, -1) == LUA_TSTRING) out.name = lua_tostring(L, -1);
    lua_pop(L, 1);
    raw_field(L, lua_gettop(L) - 0, "points");
    if (!lua_istable(L, -1)) t.fail(where + ".points", "expected a list of {x, y}, got " + describe(L, -1));
    const int pts = lua_gettop(L);
    for (lua_Integer i = 1; i <= lua_Integer(lua_rawlen(L, pts)); ++i) {
      lua_rawgeti(L, pts, i);
      lua_rawgeti(L, -1, 1);
      lua_rawgeti(L, -2, 2);
      if (lua_type(L, -2) != LUA_TNUMBER || lua_type(L, -1) != LUA_TNUMBER)
        t.fail(where + ".points[" + std::to_string(i) + "]", "expected {x, y} numbers");
      out.points.emplace_back(lua_tonumber(L, -2), lua_tonumber(L, -1));
      lua_pop(L, 3);
    }
    lua_pop(L, 2);
    spec.series.push_back(std::move(out));
  }
  lua_pop(L, 1);
  std::string svg;
  try {
    svg = report::render_svg(spec);
  } catch (const std::invalid_argument& e) {
    a.fail(2, e.what());
  }
  write_text(a, path, svg);
  return 0;
}

// lk.progress(done, total [, label]): a bar on stderr when it is a terminal.
int lk_progress(lua_State* L) {
  Args a(L, "lk.progress");
  static std::map<std::string, std::unique_ptr<report::Progress>> bars;
  const int64_t done = a.integer_in(1, 0, INT64_MAX, "a non-negative count");
  const int64_t total = a.integer_in(2, 1, INT64_MAX, "a positive total");
  const std::string label = a.opt_string(3).value_or("progress");
  auto& bar = bars[label];
  if (!bar) bar = std::make_unique<report::Progress>(label, uint64_t(total));
  bar->update(uint64_t(done));
  if (done >= total) {
    bar->finish();
    bars.erase(label);
  }
  return 0;
}

// lk.fnv1a32(s [, h]) -> the 32-bit FNV-1a hash of the bytes of s, continuing from h (by
// default the offset basis, 2166136261): fnv1a32(b, fnv1a32(a)) == fnv1a32(a .. b). A
// script's checksum of a payload, in C++: written in Lua as a loop over s:byte(n) it was a
// tenth of vmmc/stress.lua's run.
int lk_fnv1a32(lua_State* L) {
  Args a(L, "lk.fnv1a32");
  const std::string_view s = a.string_view(1);
  uint32_t h = a.none(2) ? 2166136261u : a.u32(2);
  for (const char c : s) h = (h ^ uint8_t(c)) * 16777619u;
  lua_pushinteger(L, lua_Integer(h));
  return 1;
}

} // namespace

void open_results(lua_State* L) {
  static const luaL_Reg fns[] = {
      {"assert", wrap<lk_assert>},         {"write_csv", wrap<lk_write_csv>},
      {"write_json", wrap<lk_write_json>}, {"plot_svg", wrap<lk_plot_svg>},
      {"progress", wrap<lk_progress>},     {"fnv1a32", wrap<lk_fnv1a32>},
      {nullptr, nullptr},
  };
  luaL_setfuncs(L, fns, 0);
}

} // namespace lanaikit::sim::lua
