// The binding kit (lua/kit.h).
#include "lua/kit.h"

#include "lua/platform_table.h"

#include <stdexcept>

namespace lanaikit::sim::lua {

uint32_t node_arg(const Args& a, int arg, const ClusterBox& box) {
  const uint32_t n = box.cluster->size();
  if (lua_type(a.state(), a.index(arg)) == LUA_TUSERDATA) {
    auto& nd = a.udata<NodeUD>(arg, kNode);
    if (nd.box.get() != &box) a.fail(arg, "the node belongs to another cluster");
    return nd.index;
  }
  return uint32_t(a.integer_in(arg, 0, int64_t(n) - 1,
                               ("a Node or a node index in 0.." + std::to_string(n - 1)).c_str()));
}

LibraryArgs library_args(const Args& a) {
  auto& cud = a.udata<ClusterUD>(1, kCluster);
  live_box(a, cud.box);
  auto& fw = a.udata<FirmwareUD>(2, kFirmware);
  if (!fw.image) a.fail(2, "the firmware was collected");
  return {cud.box, fw.image};
}

std::optional<Platform> costs_platform(lua_State* L, int idx, const Platform& cluster,
                                       const std::function<void(const std::string&)>& fail) {
  idx = lua_absindex(L, idx);
  const int ty = lua_type(L, idx);
  auto failed = [&](const std::string& why) -> std::optional<Platform> {
    fail(why);
    throw std::logic_error("costs_platform: fail returned"); // it throws the Lua error
  };
  try {
    if (ty == LUA_TNIL || ty == LUA_TNONE) return cluster;
    if (ty == LUA_TSTRING)
      return load_platform(platform_path(runtime_of(L).opt.source_dir, lua_tostring(L, idx)));
    if (ty != LUA_TTABLE)
      return failed("expected a platform name or table, or a table of costs, got " + describe(L, idx));
    for (const char* k : {"nic", "host", "name"}) {
      const bool has = lua_getfield(L, idx, k) != LUA_TNIL;
      lua_pop(L, 1);
      if (has) {
        lua_pushvalue(L, idx); // platform_from_table reads the table on top
        PopOnExit pop{L};
        return platform_from_table(L, -1);
      }
    }
    return std::nullopt;
  } catch (const ArgError&) {
    throw;
  } catch (const std::exception& e) {
    return failed(e.what());
  }
}

host::VirtAddr vaddr32_arg(const Args& a, int arg) {
  return host::VirtAddr(a.integer_in(arg, 0, 0xFFFFFFFFll, "a virtual address (0..0xFFFFFFFF)"));
}

std::vector<kit::WordWait> word_waits_arg(const Args& a, int arg) {
  lua_State* L = a.state();
  const int t = a.index(arg);
  const std::string shape = "{address, value} or {address, test, value}";
  if (lua_type(L, t) != LUA_TTABLE) a.fail(arg, "expected a list of " + shape + ", got " + describe(L, t));
  const lua_Integer n = lua_Integer(lua_rawlen(L, t));
  if (n == 0) a.fail(arg, "an empty list: nothing to wait for");
  std::vector<kit::WordWait> out;
  out.reserve(size_t(n));
  for (lua_Integer i = 1; i <= n; ++i) {
    const std::string where = "entry " + std::to_string(i) + ": ";
    lua_rawgeti(L, t, i);
    const int e = lua_gettop(L);
    const lua_Integer len = lua_type(L, e) == LUA_TTABLE ? lua_Integer(lua_rawlen(L, e)) : 0;
    if (len != 2 && len != 3) a.fail(arg, where + "expected " + shape + ", got " + describe(L, e));
    auto word = [&](lua_Integer k, const char* what) {
      lua_rawgeti(L, e, k);
      int isnum = 0;
      const lua_Integer v = lua_tointegerx(L, -1, &isnum);
      lua_pop(L, 1);
      if (!isnum || v < 0 || v > 0xFFFFFFFFll) a.fail(arg, where + what + " must be an integer 0..0xFFFFFFFF");
      return uint32_t(v);
    };
    kit::WordWait w;
    w.va = word(1, "the address");
    if (w.va % 4) a.fail(arg, where + "the word's address must be a multiple of 4");
    if (len == 3) {
      lua_rawgeti(L, e, 2);
      const char* test = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : nullptr;
      const std::string name = test ? test : "";
      lua_pop(L, 1);
      try {
        w.test = kit::word_test(name);
      } catch (const std::invalid_argument& x) {
        a.fail(arg, where + x.what());
      }
    }
    w.value = word(len, "the value");
    lua_pop(L, 1);
    out.push_back(w);
  }
  return out;
}

int space_alloc(const Args& a, int arg, host::AddressSpace& space) {
  const uint64_t bytes = a.positive(arg);
  if (bytes > 0xFFFFFFFFull) a.fail(arg, "at most 4 GB");
  lua_pushinteger(a.state(), lua_Integer(library_call(a, [&] { return space.map(bytes); })));
  return 1;
}

int space_write(const Args& a, int arg, host::AddressSpace& space) {
  lua_State* L = a.state();
  const host::VirtAddr va = vaddr32_arg(a, arg);
  if (lua_type(L, a.index(arg + 1)) != LUA_TSTRING)
    a.fail(arg + 1, "expected a string, got " + describe(L, a.index(arg + 1)));
  size_t n = 0;
  const char* s = lua_tolstring(L, a.index(arg + 1), &n);
  library_call(a, [&] { space.copy_in(va, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s), n)); });
  return 0;
}

int space_read(const Args& a, int arg, host::AddressSpace& space) {
  const host::VirtAddr va = vaddr32_arg(a, arg);
  const uint64_t n = uint64_t(a.integer_in(arg + 1, 0, 64ll << 20, "a length in 0..64 MB"));
  std::vector<uint8_t> got(n);
  library_call(a, [&] { space.copy_out(va, got); });
  lua_pushlstring(a.state(), reinterpret_cast<const char*>(got.data()), got.size());
  return 1;
}

LuaProc& caller_on(const Args& a, int arg, const ClusterBox& box, uint32_t node) {
  LuaProc& lp = own_process(a, arg);
  if (lp.box != &box) a.fail(arg, "the process belongs to another cluster");
  if (lp.node != node)
    a.fail(arg, "the process runs on node " + std::to_string(lp.node) +
                    ", the endpoint is on node " + std::to_string(node));
  return lp;
}

void push_fields(lua_State* L, const std::vector<std::pair<std::string, uint64_t>>& fields) {
  lua_createtable(L, 0, int(fields.size()));
  for (const auto& [name, value] : fields)
    set_int(L, name.c_str(), int64_t(value));
}

namespace {

int callback_traceback(lua_State* L) {
  const char* msg = lua_tostring(L, 1);
  luaL_traceback(L, L, msg ? msg : "(error object is not a string)", 1);
  return 1;
}

} // namespace

void call_callback(ClusterBox& box, int ref, const std::function<int(lua_State*)>& push_args,
                   const std::string& what) {
  Runtime::Impl& rt = *box.rt;
  if (rt.failed() || rt.closing) return;
  lua_State* A = rt.aux;
  if (!lua_checkstack(A, 16)) {
    rt.fail(Outcome::ScriptError, what + " failed: the Lua stack is full");
    box.cluster->kernel().stop();
    return;
  }
  const int base = lua_gettop(A);
  lua_pushcfunction(A, callback_traceback);
  lua_rawgeti(A, LUA_REGISTRYINDEX, ref);
  const int nargs = push_args(A);
  const int status = lua_pcall(A, nargs, 0, base + 1);
  if (status != LUA_OK) {
    std::string error =
        lua_tostring(A, -1) ? lua_tostring(A, -1) : "(error object is not a string)";
    lua_settop(A, base);
    rt.fail(Outcome::ScriptError, what + " failed: " + error);
    box.cluster->kernel().stop();
    return;
  }
  lua_settop(A, base);
}

void ClusterAnchor::open(lua_State* L) const {
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, key_);
}

void ClusterAnchor::claim(const Args& a, int arg, const ClusterBox& box,
                          const std::string& what) const {
  lua_State* L = a.state();
  lua_getfield(L, LUA_REGISTRYINDEX, key_);
  lua_rawgetp(L, -1, &box);
  const bool taken = !lua_isnil(L, -1);
  lua_pop(L, 2);
  if (taken)
    a.fail(arg, "the cluster already has a " + what +
                    " (one per cluster: it owns every node's firmware)");
  if (box.running)
    a.fail_message("the cluster is running (create the " + what + " from the main script)");
}

void ClusterAnchor::set(lua_State* L, const ClusterBox& box) const {
  lua_getfield(L, LUA_REGISTRYINDEX, key_);
  lua_pushvalue(L, -2);
  lua_rawsetp(L, -2, &box);
  lua_pop(L, 1);
}

} // namespace lanaikit::sim::lua
