// The kit's image view and node set-up for scripts (docs/scripting.md, "Firmware places";
// host/kit/image_view.h, setup.h, sram.h): a protocol written in Lua (raw) finds every SRAM
// place by path, exactly as a C++ host library does.
//
//   fw:ref("raw.routes")           -> { addr =, size =, type =, count = (arrays) }
//   fw:addr("raw.sendq[3].len")    -> the address
//   node:peek(fw, "raw.sent")      -> an integer place, untimed
//   node:poke(fw, "raw.node", 3)
//   node:fields(fw, "raw")         -> { name = value } of a struct's integer fields
//   c:write_routes(fw, "raw.routes")   every node's route table, in the kit's convention
#include "lua/kit.h"

#include "host/kit/image_view.h"
#include "host/kit/setup.h"
#include "host/kit/sram.h"

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
  auto& fw = a.self<FirmwareUD>(kFirmware);
  if (!fw.image) a.fail_message("the firmware was collected");
  kit::ImageView v(*fw.image, "firmware");
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
  auto& fw = a.self<FirmwareUD>(kFirmware);
  if (!fw.image) a.fail_message("the firmware was collected");
  kit::ImageView v(*fw.image, "firmware");
  lua_pushinteger(L, ref_arg(a, v, 1).addr());
  return 1;
}

Node& node_self(const Args& a) {
  auto& ud = a.self<NodeUD>(kNode);
  ClusterBox& box = live_box(a, ud.box);
  return box.cluster->node(ud.index);
}

int n_peek(lua_State* L) {
  Args a(L, "Node:peek", 1);
  Node& n = node_self(a);
  kit::ImageView v(firmware_arg(a, 1), "firmware");
  const kit::Ref r = ref_arg(a, v, 2);
  lua_pushinteger(L, lua_Integer(library_call(a, [&] { return kit::peek(n, r); })));
  return 1;
}

int n_poke(lua_State* L) {
  Args a(L, "Node:poke", 1);
  Node& n = node_self(a);
  kit::ImageView v(firmware_arg(a, 1), "firmware");
  const kit::Ref r = ref_arg(a, v, 2);
  const uint64_t value = uint64_t(a.integer(3));
  library_call(a, [&] { kit::poke(n, r, value); });
  return 0;
}

int n_fields(lua_State* L) {
  Args a(L, "Node:fields", 1);
  Node& n = node_self(a);
  kit::ImageView v(firmware_arg(a, 1), "firmware");
  const kit::Ref r = ref_arg(a, v, 2);
  push_fields(L, library_call(a, [&] { return kit::read_fields(n, r); }));
  return 1;
}

int c_write_routes(lua_State* L) {
  Args a(L, "Cluster:write_routes", 1);
  auto& cud = a.self<ClusterUD>(kCluster);
  ClusterBox& box = live_box(a, cud.box);
  kit::ImageView v(firmware_arg(a, 1), "firmware");
  const kit::Ref r = ref_arg(a, v, 2);
  library_call(a, [&] {
    for (uint32_t i = 0; i < box.cluster->size(); ++i) kit::write_routes(*box.cluster, i, r);
  });
  return 0;
}

} // namespace

void open_view(lua_State* L) {
  static const luaL_Reg firmware[] = {{"ref", wrap<fw_ref>}, {"addr", wrap<fw_addr>}, {nullptr, nullptr}};
  extend(L, kFirmware, firmware);
  static const luaL_Reg node[] = {
      {"peek", wrap<n_peek>}, {"poke", wrap<n_poke>}, {"fields", wrap<n_fields>}, {nullptr, nullptr}};
  extend(L, kNode, node);
  static const luaL_Reg cluster[] = {{"write_routes", wrap<c_write_routes>}, {nullptr, nullptr}};
  extend(L, kCluster, cluster);
}

} // namespace lanaikit::sim::lua
