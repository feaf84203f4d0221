// lk.vmmc: Lua bindings for VMMC's basic library (host/vmmc/vmmc.h, docs/vmmc.md).
//
//   local V = lk.vmmc(cluster, fw [, costs])       -- loads the LCP, starts the chips
//   local a, b = V:open(0), V:open(1)              -- endpoints (process slots)
//   local buf = b:alloc(4096)                      -- untimed set-up
//   c:spawn(1, "rx", function(p) local id = b:export(p, buf, 4096) ... end)
//   c:spawn(0, "tx", function(p) local proxy = a:import(p, 1, id)
//                                 local r = a:send(p, src, proxy, 4) end)
//
// The blocking calls (export, import, send, wait, wait_word, next_notification) are the
// library's host::Op coroutines, awaited by the calling process through the Await request
// of lua/process.cpp; they take the calling process as their first argument.
//
// Lifetimes: a Vmmc and its endpoints share one VmmcState, which holds the cluster (so the
// cluster outlives the library's driver processes and hooks) and the LCP image. The state
// is also anchored in the registry by the cluster, for as long as the Lua state lives: the
// drivers run whenever the cluster runs, whether or not the script kept the Vmmc value.
#include "lua/kit.h"
#include "lua/platform_table.h"

#include "host/vmmc/vmmc.h"

#include <utility>

namespace lanaikit::sim::lua {

namespace {

inline constexpr const char* kVmmc = "Vmmc";
inline constexpr const char* kEndpoint = "VmmcEndpoint";
const ClusterAnchor kAnchor("lanaikit.vmmc"); // registry: box -> Vmmc userdata

struct VmmcState {
  Runtime::Impl* rt = nullptr;
  std::shared_ptr<ClusterBox> box; // destroyed last: the cluster outlives the library
  std::shared_ptr<const assembler::FirmwareImage> image;
  std::unique_ptr<vmmc::Vmmc> v;
  vmmc::Costs costs; // what the library was given (V:costs())
  std::vector<int> handler_refs; // notification handlers (registry references)
  ~VmmcState() {
    v.reset();
    if (rt && !rt->closing && rt->L)
      for (int r : handler_refs) luaL_unref(rt->L, LUA_REGISTRYINDEX, r);
  }
};

struct VmmcUD {
  std::shared_ptr<VmmcState> st;
};
struct EndpointUD {
  std::shared_ptr<VmmcState> st;
  vmmc::Endpoint* ep = nullptr;
};

VmmcState& vmmc_self(const Args& a) {
  auto& ud = a.self<VmmcUD>(kVmmc);
  if (!ud.st || !ud.st->v) a.fail_message("the Vmmc was collected");
  live_box(a, ud.st->box);
  return *ud.st;
}

EndpointUD& endpoint_self(const Args& a) {
  auto& ud = a.self<EndpointUD>(kEndpoint);
  if (!ud.st || !ud.st->v || !ud.ep) a.fail_message("the endpoint was collected");
  live_box(a, ud.st->box);
  return ud;
}

// The calling process, which must run on the endpoint's node.
LuaProc& caller(const Args& a, EndpointUD& ud) { return caller_on(a, 1, *ud.st->box, ud.ep->id().node); }

void push_send_result(lua_State* L, const vmmc::SendResult& r) {
  lua_createtable(L, 0, 4);
  lua_pushboolean(L, r.ok);
  lua_setfield(L, -2, "ok");
  set_int(L, "seq", r.seq);
  lua_pushboolean(L, r.is_short);
  lua_setfield(L, -2, "short");
  if (!r.ok) {
    lua_pushlstring(L, r.error.data(), r.error.size());
    lua_setfield(L, -2, "error");
  }
}

void push_notification(lua_State* L, const vmmc::Notification& n) {
  lua_createtable(L, 0, 4);
  set_int(L, "export", n.export_id);
  set_int(L, "offset", n.offset);
  set_int(L, "len", n.len);
  set_int(L, "src", n.src_node);
}

// ---- costs --------------------------------------------------------------------------------

const std::vector<std::string> kCostFields = {"send_post", "daemon_call", "control_message", "signal",
                                              "pin_call", "pin_page"};

// The costs (argument `arg`, costs_platform): a platform's, or a table of costs in ns
// named as the platform file's host.costs, each overriding the vmmc platform's.
vmmc::Costs costs_arg(const Args& a, int arg, const Platform& cluster_platform) {
  lua_State* L = a.state();
  auto fail = [&](const std::string& why) { a.fail(arg, why); };
  if (auto c = platform_costs(L, a.index(arg), cluster_platform, fail, &vmmc::costs_from_platform))
    return *c;
  const TableArg t = a.table(arg);
  t.only(kCostFields);
  lua_pushliteral(L, "vmmc"); // the fields override the vmmc platform's costs
  vmmc::Costs c = *platform_costs(L, -1, cluster_platform, fail, &vmmc::costs_from_platform);
  lua_pop(L, 1);
  if (auto v = t.opt_time_ns("send_post")) c.send_post = *v;
  if (auto v = t.opt_time_ns("daemon_call")) c.daemon_call = *v;
  if (auto v = t.opt_time_ns("control_message")) c.control_message = *v;
  if (auto v = t.opt_time_ns("signal")) c.signal = *v;
  if (auto v = t.opt_time_ns("pin_call")) c.pin.per_call = *v;
  if (auto v = t.opt_time_ns("pin_page")) c.pin.per_page = *v;
  return c;
}

// ---- lk.vmmc ------------------------------------------------------------------------------

// lk.vmmc(cluster, fw [, costs]) -> Vmmc
int lk_vmmc(lua_State* L) {
  Args a(L, "lk.vmmc");
  const LibraryArgs lib = library_args(a);
  const vmmc::Costs costs = costs_arg(a, 3, lib.box->platform);
  return push_library<VmmcUD, VmmcState>(a, kAnchor, kVmmc, "Vmmc", lib, [&](VmmcState& st) {
    st.rt = &runtime_of(L);
    st.costs = costs;
    st.v = std::make_unique<vmmc::Vmmc>(*st.box->cluster, *st.image, costs);
  });
}

// ---- Vmmc ---------------------------------------------------------------------------------

int v_open(lua_State* L) {
  Args a(L, "Vmmc:open", 1);
  auto& ud = a.self<VmmcUD>(kVmmc);
  VmmcState& st = vmmc_self(a);
  const uint32_t node = node_arg(a, 1, *st.box);
  vmmc::Endpoint* ep = library_call(a, [&] { return &st.v->open(node); });
  push_udata<EndpointUD>(L, kEndpoint, ud.st, ep);
  return 1;
}

int v_counters(lua_State* L) {
  Args a(L, "Vmmc:counters", 1);
  VmmcState& st = vmmc_self(a);
  const uint32_t node = node_arg(a, 1, *st.box);
  const auto c = library_call(a, [&] { return st.v->counters(node); });
  lua_createtable(L, 0, 8);
  set_int(L, "sent", c.sent);
  set_int(L, "received", c.received);
  set_int(L, "bad_crc", c.bad_crc);
  set_int(L, "bad_magic", c.bad_magic);
  set_int(L, "bad_len", c.bad_len);
  set_int(L, "bad_dest", c.bad_dest);
  set_int(L, "tlb_misses", c.tlb_misses);
  set_int(L, "tlb_fills", c.tlb_fills);
  return 1;
}

int v_limits(lua_State* L) {
  Args a(L, "Vmmc:limits", 1);
  VmmcState& st = vmmc_self(a);
  const vmmc::Vmmc::Limits& l = st.v->limits();
  lua_createtable(L, 0, 9);
  set_int(L, "max_procs", l.max_procs);
  set_int(L, "sq_slots", l.sq_slots);
  set_int(L, "short_max", l.short_max);
  set_int(L, "max_send", l.max_send);
  set_int(L, "opt_pages", l.opt_pages);
  set_int(L, "ipt_pages", l.ipt_pages);
  set_int(L, "fill_max", l.fill_max);
  set_int(L, "max_nodes", l.max_nodes);
  set_int(L, "notify_slots", l.notify_slots);
  return 1;
}

// V:costs() -> { send_post_ns=, daemon_call_ns=, control_message_ns=, signal_ns=,
//                pin_call_ns=, pin_page_ns=, defaulted = { names the platform lacked } }
int v_costs(lua_State* L) {
  Args a(L, "Vmmc:costs", 1);
  VmmcState& st = vmmc_self(a);
  const vmmc::Costs& c = st.costs;
  lua_createtable(L, 0, 7);
  auto put = [&](const char* k, sim::Time t) { set_number(L, k, double(t) / 1000.0); };
  put("send_post_ns", c.send_post);
  put("daemon_call_ns", c.daemon_call);
  put("control_message_ns", c.control_message);
  put("signal_ns", c.signal);
  put("pin_call_ns", c.pin.per_call);
  put("pin_page_ns", c.pin.per_page);
  lua_createtable(L, int(c.defaulted.size()), 0);
  for (size_t i = 0; i < c.defaulted.size(); ++i) {
    lua_pushstring(L, c.defaulted[i].c_str());
    lua_rawseti(L, -2, lua_Integer(i + 1));
  }
  lua_setfield(L, -2, "defaulted");
  return 1;
}

int v_cluster(lua_State* L) {
  Args a(L, "Vmmc:cluster", 1);
  auto& ud = a.self<VmmcUD>(kVmmc);
  vmmc_self(a);
  push_udata<ClusterUD>(L, kCluster, ud.st->box);
  return 1;
}

int v_tostring(lua_State* L) {
  auto* v = static_cast<VmmcUD*>(luaL_testudata(L, 1, kVmmc));
  if (!v || !v->st || !v->st->box || !v->st->box->cluster) lua_pushstring(L, "Vmmc(collected)");
  else lua_pushfstring(L, "Vmmc(%d nodes)", int(v->st->box->cluster->size()));
  return 1;
}

// ---- Endpoint: untimed --------------------------------------------------------------------

int e_id(lua_State* L) {
  Args a(L, "VmmcEndpoint:id", 1);
  const vmmc::EndpointId id = endpoint_self(a).ep->id();
  lua_createtable(L, 0, 2);
  set_int(L, "node", id.node);
  set_int(L, "slot", id.slot);
  return 1;
}

int e_node(lua_State* L) {
  Args a(L, "VmmcEndpoint:node", 1);
  lua_pushinteger(L, endpoint_self(a).ep->id().node);
  return 1;
}

int e_alloc(lua_State* L) {
  Args a(L, "VmmcEndpoint:alloc", 1);
  EndpointUD& ud = endpoint_self(a);
  return space_alloc(a, 1, ud.ep->space());
}

int e_write(lua_State* L) {
  Args a(L, "VmmcEndpoint:write", 1);
  EndpointUD& ud = endpoint_self(a);
  return space_write(a, 1, ud.ep->space());
}

int e_read(lua_State* L) {
  Args a(L, "VmmcEndpoint:read", 1);
  EndpointUD& ud = endpoint_self(a);
  return space_read(a, 1, ud.ep->space());
}

int e_test(lua_State* L) {
  Args a(L, "VmmcEndpoint:test", 1);
  EndpointUD& ud = endpoint_self(a);
  const uint32_t seq = a.u32(1);
  lua_pushboolean(L, library_call(a, [&] { return ud.ep->test(seq); }));
  return 1;
}

int e_counters(lua_State* L) {
  Args a(L, "VmmcEndpoint:counters", 1);
  EndpointUD& ud = endpoint_self(a);
  const auto c = library_call(a, [&] { return ud.ep->counters(); });
  lua_createtable(L, 0, 4);
  set_int(L, "bad_proxy", c.bad_proxy);
  set_int(L, "bad_len", c.bad_len);
  set_int(L, "bad_vaddr", c.bad_vaddr);
  set_int(L, "notify_overflow", c.notify_overflow);
  set_int(L, "consumed", c.consumed);
  set_int(L, "done", c.done);
  set_int(L, "notified", c.notified);
  lua_pushinteger(L, lua_Integer(library_call(a, [&] { return ud.ep->posted(); })));
  lua_setfield(L, -2, "posted");
  return 1;
}

// ---- Endpoint: notification handlers ------------------------------------------------------

// A notification handler runs inside the simulation (the driver's context), with the
// notification as a table {export, offset, len, src}; an error in it is the run's failure.
void call_handler(VmmcState& st, int ref, vmmc::EndpointId id, const vmmc::Notification& n) {
  call_callback(*st.box, ref, [&n](lua_State* A) {
    lua_createtable(A, 0, 4);
    set_int(A, "export", n.export_id);
    set_int(A, "offset", n.offset);
    set_int(A, "len", n.len);
    set_int(A, "src", n.src_node);
    return 1;
  }, "the notification handler of VMMC endpoint node " + std::to_string(id.node) + " slot " + std::to_string(id.slot));
}

int e_on_notification(lua_State* L) {
  Args a(L, "VmmcEndpoint:on_notification", 1);
  EndpointUD& ud = endpoint_self(a);
  a.function(1);
  lua_pushvalue(L, a.index(1));
  const int ref = luaL_ref(L, LUA_REGISTRYINDEX);
  VmmcState* st = ud.st.get();
  st->handler_refs.push_back(ref);
  const vmmc::EndpointId id = ud.ep->id();
  library_call(a, [&] {
    ud.ep->on_notification([st, ref, id](const vmmc::Notification& n) { call_handler(*st, ref, id, n); });
  });
  return 0;
}

// ---- Endpoint: blocking calls (host::Op, awaited by the calling process) --------------------
// The ops hold plain pointers: the registry anchors the VmmcState until the Lua state
// closes, and a shared_ptr in a suspended op (owned by the cluster's process) would make a
// cycle with the cluster the state holds.
host::Op<int> op_export(host::Process& p, lua_State* co, vmmc::Endpoint* ep,
                        host::VirtAddr va, uint32_t len, std::vector<vmmc::EndpointId> allowed, bool notify) {
  const vmmc::ExportId id = co_await ep->export_buffer(p, va, len, std::move(allowed), notify);
  lua_pushinteger(co, id);
  co_return 1;
}

host::Op<int> op_import(host::Process& p, lua_State* co, vmmc::Endpoint* ep, uint32_t node,
                        vmmc::ExportId id) {
  const vmmc::ImportResult r = co_await ep->import(p, node, id);
  if (r.ok) {
    lua_pushinteger(co, r.proxy);
    lua_pushinteger(co, r.len);
  } else {
    lua_pushnil(co);
    lua_pushlstring(co, r.error.data(), r.error.size());
  }
  co_return 2;
}

host::Op<int> op_send(host::Process& p, lua_State* co, vmmc::Endpoint* ep,
                      host::VirtAddr src, vmmc::ProxyAddr dst, uint32_t len, vmmc::SendOptions opt) {
  const vmmc::SendResult r = co_await ep->send(p, src, dst, len, opt);
  push_send_result(co, r);
  co_return 1;
}

host::Op<int> op_wait(host::Process& p, lua_State* co, vmmc::Endpoint* ep, uint32_t seq) {
  const vmmc::SendResult r = co_await ep->wait(p, seq);
  push_send_result(co, r);
  co_return 1;
}

host::Op<int> op_wait_word(host::Process& p, vmmc::Endpoint* ep, host::VirtAddr va, uint32_t value) {
  co_await ep->wait_word(p, va, value);
  co_return 0;
}

host::Op<int> op_wait_words(host::Process& p, lua_State* co, vmmc::Endpoint* ep,
                            std::vector<kit::WordWait> conditions) {
  const size_t first = co_await ep->wait_words(p, std::move(conditions));
  lua_pushinteger(co, lua_Integer(first + 1));
  co_return 1;
}

host::Op<int> op_next_notification(host::Process& p, lua_State* co, vmmc::Endpoint* ep) {
  const vmmc::Notification n = co_await ep->next_notification(p);
  push_notification(co, n);
  co_return 1;
}

// An `allow` entry: {node =, slot =} (what ep:id() returns) or a VmmcEndpoint.
vmmc::EndpointId allow_entry(const Args& a, int arg, int idx, const std::string& path) {
  lua_State* L = a.state();
  if (auto* e = static_cast<EndpointUD*>(luaL_testudata(L, idx, kEndpoint))) {
    if (!e->ep) throw ArgError(a.fn() + ": argument " + std::to_string(arg) + " field '" + path +
                               "': the endpoint was collected");
    return e->ep->id();
  }
  if (lua_type(L, idx) != LUA_TTABLE)
    throw ArgError(a.fn() + ": argument " + std::to_string(arg) + " field '" + path +
                   "': expected {node =, slot =} or a VmmcEndpoint, got " + describe(L, idx));
  const TableArg t(a, arg, lua_absindex(L, idx), path);
  t.only({"node", "slot"});
  return vmmc::EndpointId{t.u32("node"), t.u32("slot")};
}

// ep:export(p, va, len [, {allow = {...}, notify = bool}]) -> export id
int e_export(lua_State* L) {
  Args a(L, "VmmcEndpoint:export", 1);
  EndpointUD& ud = endpoint_self(a);
  LuaProc& lp = caller(a, ud);
  const host::VirtAddr va = vaddr32_arg(a, 2);
  const uint64_t len64 = a.positive(3);
  if (len64 > 0xFFFFFFFFull) a.fail(3, "at most 4 GB");
  const uint32_t len = uint32_t(len64);
  std::vector<vmmc::EndpointId> allowed;
  bool notify = false;
  if (!a.none(4)) {
    const TableArg t = a.table(4);
    t.only({"allow", "notify"});
    notify = t.opt_boolean("notify").value_or(false);
    const int ty = t.push("allow");
    if (ty == LUA_TTABLE) {
      const int list = lua_gettop(L);
      const lua_Integer n = lua_Integer(lua_rawlen(L, list));
      for (lua_Integer i = 1; i <= n; ++i) {
        lua_rawgeti(L, list, i);
        allowed.push_back(allow_entry(a, 4, lua_gettop(L), "allow[" + std::to_string(i) + "]"));
        lua_pop(L, 1);
      }
    } else if (ty != LUA_TNIL) {
      t.fail("allow", "expected a list of {node =, slot =} or VmmcEndpoints, got " + describe(L, -1));
    }
    lua_pop(L, 1);
  }
  return await_op(lp, a.fn(), [ep = ud.ep, co = lp.co, va, len, allowed, notify](host::Process& p) {
    return op_export(p, co, ep, va, len, allowed, notify);
  });
}

// ep:import(p, node, export_id) -> proxy, len | nil, error
int e_import(lua_State* L) {
  Args a(L, "VmmcEndpoint:import", 1);
  EndpointUD& ud = endpoint_self(a);
  LuaProc& lp = caller(a, ud);
  const uint32_t node = node_arg(a, 2, *ud.st->box);
  const vmmc::ExportId id = a.u32(3);
  return await_op(lp, a.fn(), [ep = ud.ep, co = lp.co, node, id](host::Process& p) {
    return op_import(p, co, ep, node, id);
  });
}

// ep:send(p, src_va, dst_proxy, len [, {async =, notify =}]) -> {ok, seq, short, error}
int e_send(lua_State* L) {
  Args a(L, "VmmcEndpoint:send", 1);
  EndpointUD& ud = endpoint_self(a);
  LuaProc& lp = caller(a, ud);
  const host::VirtAddr src = vaddr32_arg(a, 2);
  const vmmc::ProxyAddr dst = a.u32(3);
  const uint32_t len = a.u32(4);
  vmmc::SendOptions opt;
  if (!a.none(5)) {
    const TableArg t = a.table(5);
    t.only({"async", "notify"});
    opt.async = t.opt_boolean("async").value_or(false);
    opt.notify = t.opt_boolean("notify").value_or(false);
  }
  return await_op(lp, a.fn(), [ep = ud.ep, co = lp.co, src, dst, len, opt](host::Process& p) {
    return op_send(p, co, ep, src, dst, len, opt);
  });
}

// ep:wait(p, seq) -> {ok, seq, short, error}
int e_wait(lua_State* L) {
  Args a(L, "VmmcEndpoint:wait", 1);
  EndpointUD& ud = endpoint_self(a);
  LuaProc& lp = caller(a, ud);
  const uint32_t seq = a.u32(2);
  return await_op(lp, a.fn(), [ep = ud.ep, co = lp.co, seq](host::Process& p) {
    return op_wait(p, co, ep, seq);
  });
}

// ep:wait_word(p, va, value): until the 32-bit big-endian word at va holds value.
int e_wait_word(lua_State* L) {
  Args a(L, "VmmcEndpoint:wait_word", 1);
  EndpointUD& ud = endpoint_self(a);
  LuaProc& lp = caller(a, ud);
  const host::VirtAddr va = vaddr32_arg(a, 2);
  if (va % 4) a.fail(2, "the word's address must be a multiple of 4");
  const uint32_t value = a.u32(3);
  return await_op(lp, a.fn(), [ep = ud.ep, va, value](host::Process& p) {
    return op_wait_word(p, ep, va, value);
  });
}

// ep:wait_words(p, { {va, value} | {va, test, value}, ... }) -> the index of the first
// condition that holds (kit::wait_words): a receiver's wait on several rings, a sender's
// on a credit, without a Lua function called on every DMA.
int e_wait_words(lua_State* L) {
  Args a(L, "VmmcEndpoint:wait_words", 1);
  EndpointUD& ud = endpoint_self(a);
  LuaProc& lp = caller(a, ud);
  std::vector<kit::WordWait> conditions = word_waits_arg(a, 2);
  return await_op(lp, a.fn(), [ep = ud.ep, co = lp.co, conditions = std::move(conditions)](host::Process& p) {
    return op_wait_words(p, co, ep, conditions);
  });
}

// ep:next_notification(p) -> {export, offset, len, src}
int e_next_notification(lua_State* L) {
  Args a(L, "VmmcEndpoint:next_notification", 1);
  EndpointUD& ud = endpoint_self(a);
  LuaProc& lp = caller(a, ud);
  return await_op(lp, a.fn(), [ep = ud.ep, co = lp.co](host::Process& p) {
    return op_next_notification(p, co, ep);
  });
}

int e_tostring(lua_State* L) {
  auto* e = static_cast<EndpointUD*>(luaL_testudata(L, 1, kEndpoint));
  if (!e || !e->ep || !e->st || !e->st->v) lua_pushstring(L, "VmmcEndpoint(collected)");
  else {
    const vmmc::EndpointId id = e->ep->id();
    lua_pushfstring(L, "VmmcEndpoint(node %d slot %d)", int(id.node), int(id.slot));
  }
  return 1;
}

} // namespace

void open_vmmc(lua_State* L) {
  static const luaL_Reg vmethods[] = {
      {"open", wrap<v_open>},
      {"counters", wrap<v_counters>},
      {"limits", wrap<v_limits>},
      {"costs", wrap<v_costs>},
      {"cluster", wrap<v_cluster>},
      {nullptr, nullptr},
  };
  new_type(L, kVmmc, vmethods, gc_udata<VmmcUD>, v_tostring);
  static const luaL_Reg emethods[] = {
      {"id", wrap<e_id>},
      {"node", wrap<e_node>},
      {"alloc", wrap<e_alloc>},
      {"write", wrap<e_write>},
      {"read", wrap<e_read>},
      {"test", wrap<e_test>},
      {"counters", wrap<e_counters>},
      {"on_notification", wrap<e_on_notification>},
      {"export", wrap<e_export>},
      {"import", wrap<e_import>},
      {"send", wrap<e_send>},
      {"wait", wrap<e_wait>},
      {"wait_word", wrap<e_wait_word>},
      {"wait_words", wrap<e_wait_words>},
      {"next_notification", wrap<e_next_notification>},
      {nullptr, nullptr},
  };
  new_type(L, kEndpoint, emethods, gc_udata<EndpointUD>, e_tostring);
  kAnchor.open(L);
  lua_pushcfunction(L, wrap<lk_vmmc>);
  lua_setfield(L, -2, "vmmc");
}

} // namespace lanaikit::sim::lua
