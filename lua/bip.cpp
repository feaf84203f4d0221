// lk.bip: Lua bindings for BIP's host library (host/bip/bip.h, docs/bip.md).
//
//   local B = lk.bip(cluster, fw [, opts])   -- bip_init: loads the MCP, starts the chips
//   local e = B:endpoint(i)                  -- node i's process: e:mynode(), e:numnodes()
//   local buf = e:alloc(4096)                -- untimed set-up
//   c:spawn(0, "tx", function(p) local r = e:send(p, 1, tag, buf, 64) end)
//   c:spawn(1, "rx", function(p) local m = f:recv(p, tag, rbuf, 4096) end)
//
// opts: credits, copy_max, direct_min, packet (Options in bip.h), costs (a platform name,
// path or table, or a table of host.costs entries; default: the cluster's platform).
// The blocking calls (send, wait_send, recv, wait_recv; isend and irecv may wait for a slot
// or pin pages) take the calling process first and run as the library's host::Op
// coroutines. The library is anchored by the cluster, like lk.vmmc.
#include "lua/kit.h"
#include "lua/platform_table.h"

#include "host/bip/bip.h"

namespace lanaikit::sim::lua {

namespace {

inline constexpr const char* kBip = "Bip";
inline constexpr const char* kEndpoint = "BipEndpoint";
const ClusterAnchor kAnchor("lanaikit.bip");

struct BipState {
  std::shared_ptr<ClusterBox> box; // destroyed last: the cluster outlives the library
  std::shared_ptr<const assembler::FirmwareImage> image;
  std::unique_ptr<bip::Bip> b;
  ~BipState() { b.reset(); }
};

struct BipUD {
  std::shared_ptr<BipState> st;
};
struct EndpointUD {
  std::shared_ptr<BipState> st;
  bip::Endpoint* ep = nullptr;
};

BipState& bip_self(const Args& a) {
  auto& ud = a.self<BipUD>(kBip);
  if (!ud.st || !ud.st->b) a.fail_message("the Bip was collected");
  live_box(a, ud.st->box);
  return *ud.st;
}

EndpointUD& endpoint_self(const Args& a) {
  auto& ud = a.self<EndpointUD>(kEndpoint);
  if (!ud.st || !ud.st->b || !ud.ep) a.fail_message("the endpoint was collected");
  live_box(a, ud.st->box);
  return ud;
}

LuaProc& caller(const Args& a, EndpointUD& ud) { return caller_on(a, 1, *ud.st->box, ud.ep->mynode()); }

void push_send_result(lua_State* L, const bip::SendResult& r) {
  lua_createtable(L, 0, 5);
  lua_pushboolean(L, r.ok);
  lua_setfield(L, -2, "ok");
  set_int(L, "seq", r.seq);
  set_int(L, "packet", r.packet);
  lua_pushboolean(L, r.copied);
  lua_setfield(L, -2, "copied");
  if (!r.ok) {
    lua_pushlstring(L, r.error.data(), r.error.size());
    lua_setfield(L, -2, "error");
  }
}

void push_recv_result(lua_State* L, const bip::RecvResult& r) {
  lua_createtable(L, 0, 7);
  lua_pushboolean(L, r.ok);
  lua_setfield(L, -2, "ok");
  set_int(L, "src", r.src);
  set_int(L, "len", r.len);
  set_int(L, "received", r.received);
  lua_pushboolean(L, r.truncated);
  lua_setfield(L, -2, "truncated");
  lua_pushboolean(L, r.from_ring);
  lua_setfield(L, -2, "from_ring");
  if (!r.ok) {
    lua_pushlstring(L, r.error.data(), r.error.size());
    lua_setfield(L, -2, "error");
  }
}

// A platform name, path or table (its host.costs), or a table of host.costs entries (ns;
// copy_mb_per_s a rate) over the cluster's platform's.
bip::Costs costs_arg(const Args& a, const TableArg& opts, const Platform& cluster_platform) {
  lua_State* L = a.state();
  opts.push("costs");
  PopOnExit pop{L};
  auto fail = [&](const std::string& why) { opts.fail("costs", why); };
  if (auto c = platform_costs(L, -1, cluster_platform, fail, &bip::costs_from_platform)) return *c;
  const TableArg t(a, 3, lua_gettop(L), "costs");
  lua_pushnil(L); // the fields override the cluster's platform's costs
  bip::Costs c = *platform_costs(L, -1, cluster_platform, fail, &bip::costs_from_platform);
  lua_pop(L, 1);
  t.only({"pin_call", "pin_page", "send_post", "recv_post", "copy_mb_per_s"});
  if (auto v = t.opt_time_ns("pin_call")) c.pin.per_call = *v;
  if (auto v = t.opt_time_ns("pin_page")) c.pin.per_page = *v;
  if (auto v = t.opt_time_ns("send_post")) c.send_post = *v;
  if (auto v = t.opt_time_ns("recv_post")) c.recv_post = *v;
  if (auto v = t.opt_number("copy_mb_per_s")) c.copy_mb_per_s = *v;
  return c;
}

// ---- lk.bip -------------------------------------------------------------------------------

int lk_bip(lua_State* L) {
  Args a(L, "lk.bip");
  const LibraryArgs lib = library_args(a);
  const Platform& platform = lib.box->platform;
  bip::Options o;
  bip::Costs costs;
  if (a.none(3)) {
    costs = library_call(a, [&] { return bip::costs_from_platform(platform); });
  } else {
    const TableArg t = a.table(3);
    t.only({"credits", "copy_max", "direct_min", "packet", "costs"});
    if (t.has("credits")) o.credits = t.u32("credits");
    if (t.has("copy_max")) o.copy_max = t.u32("copy_max");
    if (t.has("direct_min")) o.direct_min = t.u32("direct_min");
    if (t.has("packet")) o.packet = t.u32("packet");
    costs = costs_arg(a, t, platform);
  }
  return push_library<BipUD, BipState>(a, kAnchor, kBip, "Bip", lib, [&](BipState& st) {
    st.b = std::make_unique<bip::Bip>(*st.box->cluster, *st.image, costs, o);
  });
}

// ---- Bip ----------------------------------------------------------------------------------

int b_endpoint(lua_State* L) {
  Args a(L, "Bip:endpoint", 1);
  auto& ud = a.self<BipUD>(kBip);
  BipState& st = bip_self(a);
  const uint32_t node = node_arg(a, 1, *st.box);
  bip::Endpoint* ep = library_call(a, [&] { return &st.b->endpoint(node); });
  push_udata<EndpointUD>(L, kEndpoint, ud.st, ep);
  return 1;
}

int b_limits(lua_State* L) {
  Args a(L, "Bip:limits", 1);
  const bip::Bip::Limits& l = bip_self(a).b->limits();
  lua_createtable(L, 0, 9);
  set_int(L, "max_nodes", l.max_nodes);
  set_int(L, "max_tags", l.max_tags);
  set_int(L, "short_max", l.short_max);
  set_int(L, "max_pkt", l.max_pkt);
  set_int(L, "send_slots", l.send_slots);
  set_int(L, "max_ring", l.max_ring);
  set_int(L, "copy_max", l.copy_max);
  set_int(L, "direct_min", l.direct_min);
  set_int(L, "credits", l.credits);
  return 1;
}

// B:costs() -> { pin_call_ns, pin_page_ns, send_post_ns, recv_post_ns, copy_mb_per_s,
//                defaulted = { names the platform lacked } }
int b_costs(lua_State* L) {
  Args a(L, "Bip:costs", 1);
  const bip::Costs& c = bip_self(a).b->costs();
  lua_createtable(L, 0, 6);
  auto put = [&](const char* k, sim::Time t) { set_number(L, k, double(t) / 1000.0); };
  put("pin_call_ns", c.pin.per_call);
  put("pin_page_ns", c.pin.per_page);
  put("send_post_ns", c.send_post);
  put("recv_post_ns", c.recv_post);
  set_number(L, "copy_mb_per_s", c.copy_mb_per_s);
  lua_createtable(L, int(c.defaulted.size()), 0);
  for (size_t i = 0; i < c.defaulted.size(); ++i) {
    lua_pushstring(L, c.defaulted[i].c_str());
    lua_rawseti(L, -2, lua_Integer(i + 1));
  }
  lua_setfield(L, -2, "defaulted");
  return 1;
}

// B:model_time(len, packet) -> ns; B:best_packet(len) -> bytes (the pipeline model)
int b_model_time(lua_State* L) {
  Args a(L, "Bip:model_time", 1);
  BipState& st = bip_self(a);
  const uint64_t len = uint64_t(a.integer_in(1, 0, 1ll << 32, "a length in 0..4 GB"));
  const uint32_t pkt = uint32_t(a.integer_in(2, 4, 1 << 20, "a packet size in 4..1 MB"));
  lua_pushnumber(L, library_call(a, [&] { return st.b->model().time_ns(len, pkt); }));
  return 1;
}

int b_best_packet(lua_State* L) {
  Args a(L, "Bip:best_packet", 1);
  BipState& st = bip_self(a);
  const uint64_t len = uint64_t(a.integer_in(1, 0, 1ll << 32, "a length in 0..4 GB"));
  lua_pushinteger(L, library_call(a, [&] { return st.b->model().best_packet(len); }));
  return 1;
}

int b_tostring(lua_State* L) {
  auto* v = static_cast<BipUD*>(luaL_testudata(L, 1, kBip));
  if (!v || !v->st || !v->st->box || !v->st->box->cluster) lua_pushstring(L, "Bip(collected)");
  else lua_pushfstring(L, "Bip(%d nodes)", int(v->st->box->cluster->size()));
  return 1;
}

// ---- Endpoint: untimed --------------------------------------------------------------------

int e_mynode(lua_State* L) {
  Args a(L, "BipEndpoint:mynode", 1);
  lua_pushinteger(L, endpoint_self(a).ep->mynode());
  return 1;
}

int e_numnodes(lua_State* L) {
  Args a(L, "BipEndpoint:numnodes", 1);
  lua_pushinteger(L, endpoint_self(a).ep->numnodes());
  return 1;
}

int e_alloc(lua_State* L) {
  Args a(L, "BipEndpoint:alloc", 1);
  EndpointUD& ud = endpoint_self(a);
  return space_alloc(a, 1, ud.ep->space());
}

int e_write(lua_State* L) {
  Args a(L, "BipEndpoint:write", 1);
  EndpointUD& ud = endpoint_self(a);
  return space_write(a, 1, ud.ep->space());
}

int e_read(lua_State* L) {
  Args a(L, "BipEndpoint:read", 1);
  EndpointUD& ud = endpoint_self(a);
  return space_read(a, 1, ud.ep->space());
}

int e_send_done(lua_State* L) {
  Args a(L, "BipEndpoint:send_done", 1);
  EndpointUD& ud = endpoint_self(a);
  lua_pushboolean(L, library_call(a, [&] { return ud.ep->send_done(); }));
  return 1;
}

int e_recv_done(lua_State* L) {
  Args a(L, "BipEndpoint:recv_done", 1);
  EndpointUD& ud = endpoint_self(a);
  lua_pushboolean(L, library_call(a, [&] { return ud.ep->recv_done(); }));
  return 1;
}

int e_sends_in_flight(lua_State* L) {
  Args a(L, "BipEndpoint:sends_in_flight", 1);
  EndpointUD& ud = endpoint_self(a);
  lua_pushinteger(L, library_call(a, [&] { return ud.ep->sends_in_flight(); }));
  return 1;
}

int e_probe(lua_State* L) {
  Args a(L, "BipEndpoint:probe", 1);
  EndpointUD& ud = endpoint_self(a);
  const uint32_t tag = a.u32(1);
  lua_pushboolean(L, library_call(a, [&] { return ud.ep->probe(tag); }));
  return 1;
}

int e_counters(lua_State* L) {
  Args a(L, "BipEndpoint:counters", 1);
  EndpointUD& ud = endpoint_self(a);
  const auto c = library_call(a, [&] { return ud.ep->counters(); });
  const std::pair<const char*, uint32_t> fields[] = {
      {"send_consumed", c.send_consumed}, {"sent", c.sent}, {"received", c.received},
      {"short_ring", c.short_ring}, {"short_direct", c.short_direct}, {"long_msgs", c.long_msgs},
      {"credit_packets", c.credit_packets}, {"credit_waits", c.credit_waits}, {"bad_send", c.bad_send},
      {"bad_crc", c.bad_crc}, {"bad_magic", c.bad_magic}, {"bad_len", c.bad_len}, {"lost", c.lost},
      {"stale", c.stale}, {"not_posted", c.not_posted}, {"dropped", c.dropped},
      {"truncated", c.truncated}, {"ring_overflow", c.ring_overflow}, {"nacked", c.nacked}};
  lua_createtable(L, 0, int(std::size(fields)) + 2);
  for (const auto& [k, v] : fields) set_int(L, k, v);
  set_int(L, "pinned_pages", ud.ep->pinned_pages());
  set_int(L, "pin_calls", ud.ep->pin_calls());
  return 1;
}

// ---- Endpoint: blocking calls -------------------------------------------------------------

host::Op<int> op_send(host::Process& p, lua_State* co, bip::Endpoint* ep, uint32_t dest, uint32_t tag,
                      host::VirtAddr va, uint32_t len) {
  push_send_result(co, co_await ep->send(p, dest, tag, va, len));
  co_return 1;
}

host::Op<int> op_isend(host::Process& p, lua_State* co, bip::Endpoint* ep, uint32_t dest, uint32_t tag,
                       host::VirtAddr va, uint32_t len) {
  lua_pushinteger(co, co_await ep->isend(p, dest, tag, va, len));
  co_return 1;
}

host::Op<int> op_wait_send(host::Process& p, lua_State* co, bip::Endpoint* ep) {
  push_send_result(co, co_await ep->wait_send(p));
  co_return 1;
}

host::Op<int> op_recv(host::Process& p, lua_State* co, bip::Endpoint* ep, uint32_t tag, host::VirtAddr va,
                      uint32_t maxlen) {
  push_recv_result(co, co_await ep->recv(p, tag, va, maxlen));
  co_return 1;
}

host::Op<int> op_irecv(host::Process& p, bip::Endpoint* ep, uint32_t tag, host::VirtAddr va, uint32_t maxlen) {
  co_await ep->irecv(p, tag, va, maxlen);
  co_return 0;
}

host::Op<int> op_wait_recv(host::Process& p, lua_State* co, bip::Endpoint* ep) {
  push_recv_result(co, co_await ep->wait_recv(p));
  co_return 1;
}

// e:send(p, dest, tag, va, len) / e:isend(...)
template <bool Blocking> int e_send_any(lua_State* L) {
  Args a(L, Blocking ? "BipEndpoint:send" : "BipEndpoint:isend", 1);
  EndpointUD& ud = endpoint_self(a);
  LuaProc& lp = caller(a, ud);
  const uint32_t dest = node_arg(a, 2, *ud.st->box);
  const uint32_t tag = a.u32(3);
  const host::VirtAddr va = vaddr32_arg(a, 4);
  const uint32_t len = a.u32(5);
  return await_op(lp, a.fn(), [ep = ud.ep, co = lp.co, dest, tag, va, len](host::Process& p) {
    return Blocking ? op_send(p, co, ep, dest, tag, va, len) : op_isend(p, co, ep, dest, tag, va, len);
  });
}

int e_wait_send(lua_State* L) {
  Args a(L, "BipEndpoint:wait_send", 1);
  EndpointUD& ud = endpoint_self(a);
  LuaProc& lp = caller(a, ud);
  return await_op(lp, a.fn(), [ep = ud.ep, co = lp.co](host::Process& p) { return op_wait_send(p, co, ep); });
}

// e:recv(p, tag, va, maxlen) / e:irecv(...)
template <bool Blocking> int e_recv_any(lua_State* L) {
  Args a(L, Blocking ? "BipEndpoint:recv" : "BipEndpoint:irecv", 1);
  EndpointUD& ud = endpoint_self(a);
  LuaProc& lp = caller(a, ud);
  const uint32_t tag = a.u32(2);
  const host::VirtAddr va = vaddr32_arg(a, 3);
  const uint32_t maxlen = a.u32(4);
  return await_op(lp, a.fn(), [ep = ud.ep, co = lp.co, tag, va, maxlen](host::Process& p) {
    return Blocking ? op_recv(p, co, ep, tag, va, maxlen) : op_irecv(p, ep, tag, va, maxlen);
  });
}

int e_wait_recv(lua_State* L) {
  Args a(L, "BipEndpoint:wait_recv", 1);
  EndpointUD& ud = endpoint_self(a);
  LuaProc& lp = caller(a, ud);
  return await_op(lp, a.fn(), [ep = ud.ep, co = lp.co](host::Process& p) { return op_wait_recv(p, co, ep); });
}

int e_tostring(lua_State* L) {
  auto* e = static_cast<EndpointUD*>(luaL_testudata(L, 1, kEndpoint));
  if (!e || !e->ep || !e->st || !e->st->b) lua_pushstring(L, "BipEndpoint(collected)");
  else lua_pushfstring(L, "BipEndpoint(node %d of %d)", int(e->ep->mynode()), int(e->ep->numnodes()));
  return 1;
}

} // namespace

void open_bip(lua_State* L) {
  static const luaL_Reg bmethods[] = {
      {"endpoint", wrap<b_endpoint>},
      {"limits", wrap<b_limits>},
      {"costs", wrap<b_costs>},
      {"model_time", wrap<b_model_time>},
      {"best_packet", wrap<b_best_packet>},
      {nullptr, nullptr},
  };
  new_type(L, kBip, bmethods, gc_udata<BipUD>, b_tostring);
  static const luaL_Reg emethods[] = {
      {"mynode", wrap<e_mynode>},
      {"numnodes", wrap<e_numnodes>},
      {"alloc", wrap<e_alloc>},
      {"write", wrap<e_write>},
      {"read", wrap<e_read>},
      {"send", wrap<e_send_any<true>>},
      {"isend", wrap<e_send_any<false>>},
      {"send_done", wrap<e_send_done>},
      {"wait_send", wrap<e_wait_send>},
      {"recv", wrap<e_recv_any<true>>},
      {"irecv", wrap<e_recv_any<false>>},
      {"recv_done", wrap<e_recv_done>},
      {"probe", wrap<e_probe>},
      {"sends_in_flight", wrap<e_sends_in_flight>},
      {"wait_recv", wrap<e_wait_recv>},
      {"counters", wrap<e_counters>},
      {nullptr, nullptr},
  };
  new_type(L, kEndpoint, emethods, gc_udata<EndpointUD>, e_tostring);
  kAnchor.open(L);
  lua_pushcfunction(L, wrap<lk_bip>);
  lua_setfield(L, -2, "bip");
}

} // namespace lanaikit::sim::lua
