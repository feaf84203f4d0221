// The protocol kit for scripts (docs/scripting.md, "The protocol kit from Lua";
// host/kit/image_view.h, setup.h, sram.h, costs.h): a protocol written in Lua (raw) finds
// every SRAM place by path and takes its host costs from the platform exactly as a C++ host
// library does.
//
//   fw:ref("raw.routes")           -> { addr =, size =, type =, count = (arrays) }
//   fw:addr("raw.sendq[3].len")    -> the address
//   node:peek(fw, "raw.sent")      -> an integer place, untimed
//   node:poke(fw, "raw.node", 3)
//   node:fields(fw, "raw")         -> { name = value } of a struct's integer fields
//   c:write_routes(fw, "raw.routes")   every node's route table, in the kit's convention
//   lk.host_costs(platform, { send_post = 0, recv_poll = 0 })
//                                  -> { send_post = ns, recv_poll = ns, defaulted = { names } }
#include "lua/kit.h"

#include "host/kit/costs.h"
#include "host/kit/image_view.h"
#include "host/kit/setup.h"
#include "host/kit/sram.h"
#include "lua/platform_table.h"

#include <algorithm>

namespace lanaikit::sim::lua {

namespace {

const assembler::FirmwareImage& firmware_arg(const Args& a, int arg) {
  auto& fw = a.udata<FirmwareUD>(arg, kFirmware);
  if (!fw.image) a.fail(arg, "the firmware was collected");
  return *fw.image;
}

// Resolves argument `arg` (a path) in the image; kit errors name the argument.
kit::Ref ref_arg(const Args& a, const kit::ImageView& v, int arg) {
  try {
    return v.ref(a.string(arg));
  } catch (const kit::KitError& e) {
    a.fail(arg, e.what());
  }
}

int fw_ref(lua_State* L) {
  Args a(L, "Firmware:ref", 1);
  kit::ImageView v(image_of(a), "firmware");
  const kit::Ref r = ref_arg(a, v, 1);
  lua_createtable(L, 0, 4);
  set_int(L, "addr", r.addr());
  set_int(L, "size", r.size());
  lua_pushstring(L, r.type().c_str());
  lua_setfield(L, -2, "type");
  if (r.is_array()) set_int(L, "count", r.count());
  return 1;
}

int fw_addr(lua_State* L) {
  Args a(L, "Firmware:addr", 1);
  kit::ImageView v(image_of(a), "firmware");
  lua_pushinteger(L, ref_arg(a, v, 1).addr());
  return 1;
}

// node:<method>(fw, path, ...): `f(node, place)` on the place the path names, its library
// errors as "fn: message".
template <class F> auto at_place(const Args& a, F f) {
  Node& n = node_self(a);
  kit::ImageView v(firmware_arg(a, 1), "firmware");
  const kit::Ref r = ref_arg(a, v, 2);
  return library_call(a, [&] { return f(n, r); });
}

int n_peek(lua_State* L) {
  Args a(L, "Node:peek", 1);
  lua_pushinteger(L, lua_Integer(at_place(a, [](Node& n, const kit::Ref& r) { return kit::peek(n, r); })));
  return 1;
}

int n_poke(lua_State* L) {
  Args a(L, "Node:poke", 1);
  at_place(a, [&a](Node& n, const kit::Ref& r) { kit::poke(n, r, uint64_t(a.integer(3))); });
  return 0;
}

int n_fields(lua_State* L) {
  Args a(L, "Node:fields", 1);
  push_fields(L, at_place(a, [](Node& n, const kit::Ref& r) { return kit::read_fields(n, r); }));
  return 1;
}

int c_write_routes(lua_State* L) {
  Args a(L, "Cluster:write_routes", 1);
  ClusterBox& box = cluster_self(a);
  kit::ImageView v(firmware_arg(a, 1), "firmware");
  const kit::Ref r = ref_arg(a, v, 2);
  library_call(a, [&] {
    for (uint32_t i = 0; i < box.cluster->size(); ++i)
      kit::write_routes(*box.cluster, i, r);
  });
  return 0;
}

// lk.host_costs(platform, defaults): the platform (a name or a platform table)'s
// host.costs of the names `defaults` lists, lanaikit's value from `defaults` for the others
// (listed in `defaulted`, in name order). ns in and out.
int lk_host_costs(lua_State* L) {
  Args a(L, "lk.host_costs");
  Platform platform;
  if (lua_type(L, a.index(1)) == LUA_TSTRING) {
    try {
      platform = load_platform(platform_path(runtime_of(L).opt.source_dir, a.string(1)));
    } catch (const std::exception& e) {
      a.fail(1, e.what());
    }
  } else {
    a.table(1);
    lua_pushvalue(L, a.index(1));
    PopOnExit pop{L};
    try {
      platform = platform_from_table(L, -1);
    } catch (const ArgError&) {
      throw;
    } catch (const std::exception& e) {
      a.fail(1, e.what());
    }
  }
  const TableArg defaults = a.table(2);
  std::vector<std::string> names;
  lua_pushnil(L);
  while (lua_next(L, defaults.stack_index()) != 0) {
    if (lua_type(L, -2) != LUA_TSTRING) {
      lua_pop(L, 2);
      a.fail(2, "expected a table of cost name = default ns, got a key that is not a name");
    }
    names.emplace_back(lua_tostring(L, -2));
    lua_pop(L, 1);
  }
  std::sort(names.begin(), names.end());
  kit::CostTable t(platform);
  lua_createtable(L, 0, int(names.size()) + 1);
  for (const std::string& n : names) {
    const Time fallback = *defaults.opt_time_ns(n.c_str());
    lua_pushnumber(L, double(t.take(n, fallback)) / 1000.0);
    lua_setfield(L, -2, n.c_str());
  }
  lua_createtable(L, int(t.defaulted().size()), 0);
  lua_Integer i = 0;
  for (const std::string& n : t.defaulted()) {
    lua_pushstring(L, n.c_str());
    lua_rawseti(L, -2, ++i);
  }
  lua_setfield(L, -2, "defaulted");
  return 1;
}

} // namespace

void open_view(lua_State* L) {
  static const luaL_Reg firmware[] = {
      {"ref", wrap<fw_ref>}, {"addr", wrap<fw_addr>}, {nullptr, nullptr}};
  extend(L, kFirmware, firmware);
  static const luaL_Reg node[] = {{"peek", wrap<n_peek>},
                                  {"poke", wrap<n_poke>},
                                  {"fields", wrap<n_fields>},
                                  {nullptr, nullptr}};
  extend(L, kNode, node);
  static const luaL_Reg cluster[] = {{"write_routes", wrap<c_write_routes>}, {nullptr, nullptr}};
  extend(L, kCluster, cluster);
  lua_pushcfunction(L, wrap<lk_host_costs>);
  lua_setfield(L, -2, "host_costs");
}

} // namespace lanaikit::sim::lua
