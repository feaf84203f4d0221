// lk.hamlyn: Lua bindings for Hamlyn's library, both levels (host/hamlyn/hamlyn.h and
// protocols.h, docs/hamlyn.md).
//
//   local H = lk.hamlyn(cluster, fw [, opts])   -- loads the control program, starts the chips
//   local a, b = H:open(0), H:open(1)           -- an application (terminus + queue) per node
//   local s = b:open_slot(65536, 16)            -- untimed set-up, as the driver's
//   local t = b:ticket(s, "fast", 0, 64)        -- a ticket: a plain table, sendable as bytes
//   local buf = a:alloc_send(8192)              -- a send buffer: host physical address
//   c:spawn(0, "tx", function(p) a:send(p, t, buf, 16, nil, 0, 0x1234) end)
//   c:spawn(1, "rx", function(p) local n = b:recv_block(p, 1e6) end)
//   local m = a:manager()                       -- the upper level: m:trw_sender(), ...
//
// Host memory is read and written with node:host_write / node:host_read (addresses are
// host physical: Hamlyn's regions are contiguous, docs/hamlyn.md). opts: queue_entries,
// handshake_period_ns, handshake_ticks, direct_max, multipath, costs (a table of host.costs
// entries).
#include "lua/kit.h"

#include "host/hamlyn/protocols.h"

namespace lanaikit::sim::lua {

namespace {

const ClusterAnchor kAnchor("lanaikit.hamlyn");
inline constexpr const char* kHamlyn = "Hamlyn";
inline constexpr const char* kApp = "HamlynApp";
inline constexpr const char* kManager = "HamlynManager";
inline constexpr const char* kTrwRx = "HamlynTrwReceiver";
inline constexpr const char* kTrwTx = "HamlynTrwSender";
inline constexpr const char* kDgRx = "HamlynDatagramReceiver";
inline constexpr const char* kDgTx = "HamlynDatagramSender";
inline constexpr const char* kStRx = "HamlynStreamReceiver";
inline constexpr const char* kStTx = "HamlynStreamSender";

struct State {
  std::shared_ptr<ClusterBox> box; // destroyed last: the cluster outlives the library
  std::shared_ptr<const assembler::FirmwareImage> image;
  std::unique_ptr<hamlyn::Hamlyn> h;
  // The upper level's objects live as long as the library (their processes may hold them).
  std::vector<std::unique_ptr<hamlyn::Manager>> managers;
  std::vector<std::unique_ptr<hamlyn::Receiver>> receivers;
  std::vector<std::unique_ptr<hamlyn::TrwSender>> trw_senders;
  std::vector<std::unique_ptr<hamlyn::DatagramSender>> dg_senders;
  ~State() {
    receivers.clear();
    managers.clear();
    h.reset();
  }
};

struct HamlynUD {
  std::shared_ptr<State> st;
};
// Every other type: the library's state and one of its objects.
template <class T> struct ObjUD {
  std::shared_ptr<State> st;
  T* obj = nullptr;
  uint32_t node = 0;
};

State& lib_self(const Args& a) {
  auto& ud = a.self<HamlynUD>(kHamlyn);
  if (!ud.st || !ud.st->h) a.fail_message("the Hamlyn library was collected");
  live_box(a, ud.st->box);
  return *ud.st;
}

template <class T> ObjUD<T>& obj_self(const Args& a, const char* tname) {
  auto& ud = a.self<ObjUD<T>>(tname);
  if (!ud.st || !ud.st->h || !ud.obj) a.fail_message(std::string("the ") + tname + " was collected");
  live_box(a, ud.st->box);
  return ud;
}

template <class T> void push_obj(lua_State* L, const char* tname, const std::shared_ptr<State>& st, T* obj,
                                 uint32_t node) {
  push_udata<ObjUD<T>>(L, tname, st, obj, node);
}

LuaProc& caller(const Args& a, const std::shared_ptr<State>& st, uint32_t node) {
  return caller_on(a, 1, *st->box, node);
}

// ---- tickets and notifications as tables ------------------------------------------------------

void push_ticket(lua_State* L, const hamlyn::Ticket& t) {
  lua_createtable(L, 0, 7);
  set_int(L, "node", t.node);
  set_int(L, "slot", t.slot);
  set_int(L, "meta_index", t.meta_index);
  set_int(L, "key", int64_t(t.key));
  set_int(L, "base", t.base);
  set_int(L, "bound", t.bound);
  set_int(L, "delta", t.delta);
}

hamlyn::Ticket ticket_arg(const Args& a, int arg) {
  const TableArg t = a.table(arg);
  t.only({"node", "slot", "meta_index", "key", "base", "bound", "delta"});
  hamlyn::Ticket k;
  k.node = t.u32("node");
  k.slot = t.u32("slot");
  k.meta_index = t.u32("meta_index");
  k.key = uint64_t(t.integer("key"));
  k.base = t.u32("base");
  k.bound = t.u32("bound");
  if (t.has("delta")) k.delta = t.u32("delta");
  return k;
}

void push_note(lua_State* L, const std::optional<hamlyn::Notification>& n) {
  if (!n) {
    lua_pushnil(L);
    return;
  }
  lua_createtable(L, 0, 5);
  set_int(L, "slot", n->slot);
  set_int(L, "meta_index", n->meta_index);
  lua_pushboolean(L, n->fast());
  lua_setfield(L, -2, "fast");
  if (n->fast()) set_int(L, "fast_word", n->fast_word);
  else set_int(L, "meta_addr", int64_t(n->meta_addr));
}

uint64_t addr_arg(const Args& a, int arg) { return uint64_t(a.integer_in(arg, 0, int64_t(1) << 48, "a host address")); }

// ---- lk.hamlyn ----------------------------------------------------------------------------------

int lk_hamlyn(lua_State* L) {
  Args a(L, "lk.hamlyn");
  const LibraryArgs lib = library_args(a);
  const Platform& platform = lib.box->platform;
  hamlyn::Options o;
  hamlyn::Costs costs = library_call(a, [&] { return hamlyn::costs_from_platform(platform); });
  if (!a.none(3)) {
    const TableArg t = a.table(3);
    t.only({"queue_entries", "handshake_period_ns", "handshake_ticks", "direct_max", "multipath", "costs"});
    if (t.has("multipath")) o.multipath = t.boolean("multipath");
    if (t.has("queue_entries")) o.queue_entries = uint32_t(t.positive("queue_entries"));
    if (auto v = t.opt_time_ns("handshake_period_ns")) o.handshake_period = *v;
    if (t.has("handshake_ticks")) o.handshake_ticks = t.u32("handshake_ticks");
    if (t.has("direct_max")) o.direct_max = t.u32("direct_max");
    t.push("costs");
    PopOnExit pop{L};
    auto fail = [&](const std::string& why) { t.fail("costs", why); };
    if (auto from = platform_costs(L, -1, platform, fail, &hamlyn::costs_from_platform)) {
      costs = *from;
    } else {
      const TableArg c(a, 3, lua_gettop(L), "costs");
      c.only({"send_call", "recv_call", "recv_poll", "context_switch", "trw_send", "trw_recv", "proto_call"});
      if (auto v = c.opt_time_ns("send_call")) costs.send_call = *v;
      if (auto v = c.opt_time_ns("recv_call")) costs.recv_call = *v;
      if (auto v = c.opt_time_ns("recv_poll")) costs.recv_poll = *v;
      if (auto v = c.opt_time_ns("context_switch")) costs.context_switch = *v;
      if (auto v = c.opt_time_ns("trw_send")) costs.trw_send = *v;
      if (auto v = c.opt_time_ns("trw_recv")) costs.trw_recv = *v;
      if (auto v = c.opt_time_ns("proto_call")) costs.proto_call = *v;
    }
  }
  return push_library<HamlynUD, State>(a, kAnchor, kHamlyn, "Hamlyn", lib, [&](State& st) {
    st.h = std::make_unique<hamlyn::Hamlyn>(*st.box->cluster, *st.image, costs, o);
  });
}

int h_open(lua_State* L) {
  Args a(L, "Hamlyn:open", 1);
  auto& ud = a.self<HamlynUD>(kHamlyn);
  State& st = lib_self(a);
  const uint32_t node = node_arg(a, 1, *st.box);
  hamlyn::Application* app = library_call(a, [&] { return &st.h->open(node); });
  push_obj(L, kApp, ud.st, app, node);
  return 1;
}

int h_counters(lua_State* L) {
  Args a(L, "Hamlyn:counters", 1);
  State& st = lib_self(a);
  const uint32_t node = node_arg(a, 1, *st.box);
  push_fields(L, library_call(a, [&] { return st.h->counters(node); }));
  return 1;
}

// H:costs() -> { send_call_ns, ..., defaulted = { names the platform lacked } }
int h_costs(lua_State* L) {
  Args a(L, "Hamlyn:costs", 1);
  const hamlyn::Costs& c = lib_self(a).h->costs();
  lua_createtable(L, 0, 8);
  auto put = [&](const char* k, sim::Time t) { set_number(L, k, ps_to_ns(t)); };
  put("send_call_ns", c.send_call);
  put("recv_call_ns", c.recv_call);
  put("recv_poll_ns", c.recv_poll);
  put("context_switch_ns", c.context_switch);
  put("trw_send_ns", c.trw_send);
  put("trw_recv_ns", c.trw_recv);
  put("proto_call_ns", c.proto_call);
  lua_createtable(L, int(c.defaulted.size()), 0);
  for (size_t i = 0; i < c.defaulted.size(); ++i) {
    lua_pushstring(L, c.defaulted[i].c_str());
    lua_rawseti(L, -2, lua_Integer(i + 1));
  }
  lua_setfield(L, -2, "defaulted");
  return 1;
}

// lk.hamlyn_ticket_bytes(t) -> string; lk.hamlyn_ticket(string) -> t (tickets in messages)
int lk_ticket_bytes(lua_State* L) {
  Args a(L, "lk.hamlyn_ticket_bytes");
  const auto b = ticket_arg(a, 1).encode();
  lua_pushlstring(L, reinterpret_cast<const char*>(b.data()), b.size());
  return 1;
}

int lk_ticket_decode(lua_State* L) {
  Args a(L, "lk.hamlyn_ticket");
  const std::string s = a.string(1);
  push_ticket(L, library_call(a, [&] {
    return hamlyn::Ticket::decode(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
  }));
  return 1;
}

// ---- Application: set-up ------------------------------------------------------------------------

using AppUD = ObjUD<hamlyn::Application>;

int app_node(lua_State* L) {
  Args a(L, "HamlynApp:node", 1);
  lua_pushinteger(L, obj_self<hamlyn::Application>(a, kApp).node);
  return 1;
}

int app_alloc_send(lua_State* L) {
  Args a(L, "HamlynApp:alloc_send", 1);
  AppUD& ud = obj_self<hamlyn::Application>(a, kApp);
  const uint32_t bytes = uint32_t(a.integer_in(1, 1, 1 << 30, "a size in 1..1 GB"));
  lua_pushinteger(L, lua_Integer(library_call(a, [&] { return ud.obj->alloc_send(bytes).addr; })));
  return 1;
}

hamlyn::SlotMode mode_arg(const Args& a, int arg) {
  if (a.none(arg)) return hamlyn::SlotMode::Normal;
  const std::string m = a.string(arg);
  if (m == "normal") return hamlyn::SlotMode::Normal;
  if (m == "paranoid") return hamlyn::SlotMode::Paranoid;
  if (m == "paranoid_one_shot") return hamlyn::SlotMode::ParanoidOneShot;
  a.fail(arg, "expected \"normal\", \"paranoid\" or \"paranoid_one_shot\", got \"" + m + "\"");
}

int app_open_slot(lua_State* L) {
  Args a(L, "HamlynApp:open_slot", 1);
  AppUD& ud = obj_self<hamlyn::Application>(a, kApp);
  const uint32_t area = uint32_t(a.integer_in(1, 1, 1 << 30, "a size in 1..1 GB"));
  const uint32_t entries = uint32_t(a.integer_in(2, 0, 1 << 20, "a count in 0..1M"));
  const hamlyn::SlotMode mode = mode_arg(a, 3);
  lua_pushinteger(L, library_call(a, [&] { return ud.obj->open_slot(area, entries, mode); }));
  return 1;
}

int app_slot(lua_State* L) {
  Args a(L, "HamlynApp:slot", 1);
  AppUD& ud = obj_self<hamlyn::Application>(a, kApp);
  const uint32_t s = a.u32(1);
  const hamlyn::SlotInfo& si = library_call(a, [&]() -> const hamlyn::SlotInfo& { return ud.obj->slot(s); });
  lua_createtable(L, 0, 5);
  set_int(L, "area", int64_t(si.area.addr));
  set_int(L, "area_bytes", si.area.bytes);
  set_int(L, "meta", int64_t(si.meta.addr));
  set_int(L, "meta_bytes", si.meta.bytes);
  set_int(L, "key", int64_t(si.key));
  return 1;
}

uint32_t index_arg(const Args& a, int arg) {
  lua_State* L = a.state();
  if (lua_type(L, a.index(arg)) == LUA_TSTRING) {
    if (a.string(arg) != "fast") a.fail(arg, "expected a metadata index or \"fast\"");
    return hamlyn::Ticket::kFastIndex;
  }
  return a.u32(arg);
}

int app_ticket(lua_State* L) {
  Args a(L, "HamlynApp:ticket", 1);
  AppUD& ud = obj_self<hamlyn::Application>(a, kApp);
  const uint32_t s = a.u32(1), idx = index_arg(a, 2), base = a.u32(3), bound = a.u32(4);
  const uint32_t delta = a.none(5) ? 0 : a.u32(5);
  push_ticket(L, library_call(a, [&] { return ud.obj->ticket(s, idx, base, bound, delta); }));
  return 1;
}

int app_guard(lua_State* L) {
  Args a(L, "HamlynApp:guard", 1);
  AppUD& ud = obj_self<hamlyn::Application>(a, kApp);
  const uint32_t s = a.u32(1), idx = a.u32(2);
  const uint64_t key = uint64_t(a.integer(3));
  const uint32_t low = a.u32(4), high = a.u32(5);
  const bool armed = a.none(6) ? true : a.boolean(6);
  library_call(a, [&] { ud.obj->guard(s, idx, key, low, high, armed); });
  return 0;
}

int app_sent(lua_State* L) {
  Args a(L, "HamlynApp:sent", 1);
  lua_pushinteger(L, obj_self<hamlyn::Application>(a, kApp).obj->sent());
  return 1;
}

int app_posted(lua_State* L) {
  Args a(L, "HamlynApp:posted", 1);
  lua_pushinteger(L, obj_self<hamlyn::Application>(a, kApp).obj->posted());
  return 1;
}

int app_released(lua_State* L) {
  Args a(L, "HamlynApp:released", 1);
  AppUD& ud = obj_self<hamlyn::Application>(a, kApp);
  lua_pushboolean(L, ud.obj->released(hamlyn::Handle{a.u32(1)}));
  return 1;
}

int app_pending(lua_State* L) {
  Args a(L, "HamlynApp:pending", 1);
  lua_pushboolean(L, obj_self<hamlyn::Application>(a, kApp).obj->pending());
  return 1;
}

// ---- Application: timed -------------------------------------------------------------------------

host::Op<int> op_send(host::Process& p, lua_State* co, hamlyn::Application* app, hamlyn::Ticket t, uint64_t data,
                      uint32_t len, uint64_t meta, uint32_t meta_len, uint32_t fast_word) {
  const hamlyn::Handle h = co_await app->h_send_msg(p, t, data, len, meta, meta_len, fast_word);
  lua_pushinteger(co, h.seq);
  co_return 1;
}

// a:send(p, ticket, data, len [, meta, meta_len [, fast_word]]) -> handle
int app_send(lua_State* L) {
  Args a(L, "HamlynApp:send", 1);
  AppUD& ud = obj_self<hamlyn::Application>(a, kApp);
  LuaProc& lp = caller(a, ud.st, ud.node);
  const hamlyn::Ticket t = ticket_arg(a, 2);
  const uint64_t data = addr_arg(a, 3);
  const uint32_t len = a.u32(4);
  const uint64_t meta = a.none(5) ? 0 : addr_arg(a, 5);
  const uint32_t meta_len = a.none(6) ? 0 : a.u32(6);
  const uint32_t fast_word = a.none(7) ? 0 : a.u32(7);
  return await_op(lp, a.fn(), [app = ud.obj, co = lp.co, t, data, len, meta, meta_len, fast_word](host::Process& p) {
    return op_send(p, co, app, t, data, len, meta, meta_len, fast_word);
  });
}

host::Op<int> op_recv(host::Process& p, lua_State* co, hamlyn::Application* app, bool block, sim::Time timeout,
                      bool sleep) {
  // (Not one ?: with a co_await in each arm: GCC 12 mishandles the temporaries of such an
  // expression and the notification taken was lost.)
  std::optional<hamlyn::Notification> n;
  if (block)
    n = co_await app->h_recv_block(p, timeout, sleep);
  else
    n = co_await app->h_recv(p);
  push_note(co, n);
  co_return 1;
}

int app_recv(lua_State* L) {
  Args a(L, "HamlynApp:recv", 1);
  AppUD& ud = obj_self<hamlyn::Application>(a, kApp);
  LuaProc& lp = caller(a, ud.st, ud.node);
  return await_op(lp, a.fn(), [app = ud.obj, co = lp.co](host::Process& p) { return op_recv(p, co, app, false, 0, false); });
}

// a:recv_block(p, timeout_ns [, sleep]) -> notification or nil
int app_recv_block(lua_State* L) {
  Args a(L, "HamlynApp:recv_block", 1);
  AppUD& ud = obj_self<hamlyn::Application>(a, kApp);
  LuaProc& lp = caller(a, ud.st, ud.node);
  const sim::Time timeout = a.time_ns(2);
  const bool sleep = a.none(3) ? false : a.boolean(3);
  return await_op(lp, a.fn(), [app = ud.obj, co = lp.co, timeout, sleep](host::Process& p) {
    return op_recv(p, co, app, true, timeout, sleep);
  });
}

int app_manager(lua_State* L) {
  Args a(L, "HamlynApp:manager", 1);
  AppUD& ud = obj_self<hamlyn::Application>(a, kApp);
  const uint32_t bytes = a.none(1) ? 256 * 1024 : uint32_t(a.integer_in(1, 64, 1 << 30, "a size in 64..1 GB"));
  hamlyn::Manager* m = library_call(a, [&] {
    ud.st->managers.push_back(std::make_unique<hamlyn::Manager>(*ud.obj, bytes));
    return ud.st->managers.back().get();
  });
  push_obj(L, kManager, ud.st, m, ud.node);
  return 1;
}

// ---- Manager and the protocols ------------------------------------------------------------------

using ManagerUD = ObjUD<hamlyn::Manager>;

int m_alloc(lua_State* L) {
  Args a(L, "HamlynManager:alloc", 1);
  ManagerUD& ud = obj_self<hamlyn::Manager>(a, kManager);
  const uint32_t bytes = uint32_t(a.integer_in(1, 1, 1 << 30, "a size in 1..1 GB"));
  lua_pushinteger(L, lua_Integer(library_call(a, [&] { return ud.obj->alloc(bytes); })));
  return 1;
}

host::Op<int> op_m_poll(host::Process& p, lua_State* co, hamlyn::Manager* m, sim::Time timeout) {
  lua_pushboolean(co, co_await m->poll(p, timeout));
  co_return 1;
}

// m:poll(p, timeout_ns) -> whether a notification came (and went to its receiver): an
// application with several receivers waits for whichever has work, then asks each
// receiver with a zero timeout.
int m_poll(lua_State* L) {
  Args a(L, "HamlynManager:poll", 1);
  ManagerUD& ud = obj_self<hamlyn::Manager>(a, kManager);
  LuaProc& lp = caller(a, ud.st, ud.node);
  const sim::Time timeout = a.time_ns(2);
  return await_op(lp, a.fn(), [m = ud.obj, co = lp.co, timeout](host::Process& p) { return op_m_poll(p, co, m, timeout); });
}

int m_unclaimed(lua_State* L) {
  Args a(L, "HamlynManager:unclaimed", 1);
  lua_pushinteger(L, lua_Integer(obj_self<hamlyn::Manager>(a, kManager).obj->unclaimed()));
  return 1;
}

template <class R, class... A> R* keep_receiver(ManagerUD& ud, A&&... args) {
  auto r = std::make_unique<R>(*ud.obj, std::forward<A>(args)...);
  R* raw = r.get();
  ud.st->receivers.push_back(std::move(r));
  return raw;
}

int m_trw_receiver(lua_State* L) {
  Args a(L, "HamlynManager:trw_receiver", 1);
  ManagerUD& ud = obj_self<hamlyn::Manager>(a, kManager);
  const uint32_t area = uint32_t(a.integer_in(1, 1, 1 << 30, "a size in 1..1 GB"));
  auto* r = library_call(a, [&] { return keep_receiver<hamlyn::TrwReceiver>(ud, area); });
  push_obj(L, kTrwRx, ud.st, r, ud.node);
  return 1;
}

int m_trw_sender(lua_State* L) {
  Args a(L, "HamlynManager:trw_sender", 1);
  ManagerUD& ud = obj_self<hamlyn::Manager>(a, kManager);
  ud.st->trw_senders.push_back(std::make_unique<hamlyn::TrwSender>(*ud.obj));
  push_obj(L, kTrwTx, ud.st, ud.st->trw_senders.back().get(), ud.node);
  return 1;
}

int m_datagram_receiver(lua_State* L) {
  Args a(L, "HamlynManager:datagram_receiver", 1);
  ManagerUD& ud = obj_self<hamlyn::Manager>(a, kManager);
  const uint32_t area = uint32_t(a.integer_in(1, 1, 1 << 30, "a size in 1..1 GB"));
  const uint32_t entries = uint32_t(a.integer_in(2, 1, 1 << 16, "a count in 1..65536"));
  auto* r = library_call(a, [&] { return keep_receiver<hamlyn::DatagramReceiver>(ud, area, entries); });
  push_obj(L, kDgRx, ud.st, r, ud.node);
  return 1;
}

int m_datagram_sender(lua_State* L) {
  Args a(L, "HamlynManager:datagram_sender", 1);
  ManagerUD& ud = obj_self<hamlyn::Manager>(a, kManager);
  hamlyn::DatagramSender* s = library_call(a, [&] {
    ud.st->dg_senders.push_back(std::make_unique<hamlyn::DatagramSender>(*ud.obj));
    return ud.st->dg_senders.back().get();
  });
  push_obj(L, kDgTx, ud.st, s, ud.node);
  return 1;
}

int m_stream_receiver(lua_State* L) {
  Args a(L, "HamlynManager:stream_receiver", 1);
  ManagerUD& ud = obj_self<hamlyn::Manager>(a, kManager);
  const uint32_t ring = uint32_t(a.integer_in(1, 64, 1 << 30, "a size in 64..1 GB"));
  const uint32_t tickets = uint32_t(a.integer_in(2, 1, 1 << 16, "a count in 1..65536"));
  auto* r = library_call(a, [&] { return keep_receiver<hamlyn::StreamReceiver>(ud, ring, tickets); });
  push_obj(L, kStRx, ud.st, r, ud.node);
  return 1;
}

hamlyn::Seed seed_arg(const Args& a, int arg) {
  const TableArg t = a.table(arg);
  t.only({"ring", "tickets"});
  hamlyn::Seed s;
  s.tickets = t.u32("tickets");
  if (t.push("ring") != LUA_TTABLE) t.fail("ring", "expected a ticket table");
  // ticket_arg reads a stack slot by argument number; the ring ticket is on top.
  const TableArg k(a, arg, lua_gettop(a.state()), "ring");
  k.only({"node", "slot", "meta_index", "key", "base", "bound", "delta"});
  s.ring.node = k.u32("node");
  s.ring.slot = k.u32("slot");
  s.ring.meta_index = k.u32("meta_index");
  s.ring.key = uint64_t(k.integer("key"));
  s.ring.base = k.u32("base");
  s.ring.bound = k.u32("bound");
  lua_pop(a.state(), 1);
  return s;
}

int m_stream_sender(lua_State* L) {
  Args a(L, "HamlynManager:stream_sender", 1);
  ManagerUD& ud = obj_self<hamlyn::Manager>(a, kManager);
  const hamlyn::Seed seed = seed_arg(a, 1);
  const uint32_t coalesce = a.none(2) ? 256 : a.u32(2);
  const uint32_t stage = a.none(3) ? 4096 : uint32_t(a.integer_in(3, 8, 1 << 24, "a size in 8..16 MB"));
  auto* s = library_call(a, [&] { return keep_receiver<hamlyn::StreamSender>(ud, seed, coalesce, stage); });
  push_obj(L, kStTx, ud.st, s, ud.node);
  return 1;
}

// -- tagged remote write

int trw_ticket(lua_State* L) {
  Args a(L, "HamlynTrwReceiver:ticket", 1);
  auto& ud = obj_self<hamlyn::TrwReceiver>(a, kTrwRx);
  const uint32_t base = a.u32(1), bound = a.u32(2);
  push_ticket(L, library_call(a, [&] { return ud.obj->ticket(base, bound); }));
  return 1;
}

int trw_area(lua_State* L) {
  Args a(L, "HamlynTrwReceiver:area", 1);
  lua_pushinteger(L, lua_Integer(obj_self<hamlyn::TrwReceiver>(a, kTrwRx).obj->area()));
  return 1;
}

host::Op<int> op_get_tag(host::Process& p, lua_State* co, hamlyn::TrwReceiver* r, sim::Time timeout) {
  const std::optional<uint32_t> tag = co_await r->get_tag(p, timeout);
  if (tag) lua_pushinteger(co, *tag);
  else lua_pushnil(co);
  co_return 1;
}

int trw_get_tag(lua_State* L) {
  Args a(L, "HamlynTrwReceiver:get_tag", 1);
  auto& ud = obj_self<hamlyn::TrwReceiver>(a, kTrwRx);
  LuaProc& lp = caller(a, ud.st, ud.node);
  const sim::Time timeout = a.time_ns(2);
  return await_op(lp, a.fn(), [r = ud.obj, co = lp.co, timeout](host::Process& p) { return op_get_tag(p, co, r, timeout); });
}

host::Op<int> op_get_specific(host::Process& p, lua_State* co, hamlyn::TrwReceiver* r, uint32_t tag, sim::Time timeout) {
  lua_pushboolean(co, co_await r->get_specific_tag(p, tag, timeout));
  co_return 1;
}

int trw_get_specific_tag(lua_State* L) {
  Args a(L, "HamlynTrwReceiver:get_specific_tag", 1);
  auto& ud = obj_self<hamlyn::TrwReceiver>(a, kTrwRx);
  LuaProc& lp = caller(a, ud.st, ud.node);
  const uint32_t tag = a.u32(2);
  const sim::Time timeout = a.time_ns(3);
  return await_op(lp, a.fn(), [r = ud.obj, co = lp.co, tag, timeout](host::Process& p) {
    return op_get_specific(p, co, r, tag, timeout);
  });
}

host::Op<int> op_trw_send(host::Process& p, lua_State* co, hamlyn::TrwSender* s, hamlyn::Ticket t, uint64_t src,
                          uint32_t len, uint32_t off, uint32_t tag) {
  lua_pushinteger(co, (co_await s->send(p, t, src, len, off, tag)).seq);
  co_return 1;
}

// s:send(p, ticket, src, len, dest_offset, tag) -> handle
int trw_send(lua_State* L) {
  Args a(L, "HamlynTrwSender:send", 1);
  auto& ud = obj_self<hamlyn::TrwSender>(a, kTrwTx);
  LuaProc& lp = caller(a, ud.st, ud.node);
  const hamlyn::Ticket t = ticket_arg(a, 2);
  const uint64_t src = addr_arg(a, 3);
  const uint32_t len = a.u32(4), off = a.u32(5), tag = a.u32(6);
  return await_op(lp, a.fn(), [s = ud.obj, co = lp.co, t, src, len, off, tag](host::Process& p) {
    return op_trw_send(p, co, s, t, src, len, off, tag);
  });
}

// -- datagram

int dg_ticket(lua_State* L) {
  Args a(L, "HamlynDatagramReceiver:ticket", 1);
  auto& ud = obj_self<hamlyn::DatagramReceiver>(a, kDgRx);
  const uint32_t e = a.u32(1), base = a.u32(2), bound = a.u32(3);
  push_ticket(L, library_call(a, [&] { return ud.obj->ticket(e, base, bound); }));
  return 1;
}

int dg_area(lua_State* L) {
  Args a(L, "HamlynDatagramReceiver:area", 1);
  lua_pushinteger(L, lua_Integer(obj_self<hamlyn::DatagramReceiver>(a, kDgRx).obj->area()));
  return 1;
}

int dg_ready(lua_State* L) {
  Args a(L, "HamlynDatagramReceiver:ready", 1);
  auto& ud = obj_self<hamlyn::DatagramReceiver>(a, kDgRx);
  const uint32_t e = a.u32(1);
  lua_pushboolean(L, library_call(a, [&] { return ud.obj->ready(e); }));
  return 1;
}

host::Op<int> op_dg_receive(host::Process& p, lua_State* co, hamlyn::DatagramReceiver* r, uint32_t e, sim::Time timeout) {
  const std::optional<hamlyn::Datagram> d = co_await r->receive(p, e, timeout);
  if (!d) {
    lua_pushnil(co);
    co_return 1;
  }
  lua_createtable(co, 0, 3);
  set_int(co, "offset", d->offset);
  set_int(co, "len", d->len);
  if (d->reply) {
    push_ticket(co, *d->reply);
    lua_setfield(co, -2, "reply");
  }
  co_return 1;
}

int dg_receive(lua_State* L) {
  Args a(L, "HamlynDatagramReceiver:receive", 1);
  auto& ud = obj_self<hamlyn::DatagramReceiver>(a, kDgRx);
  LuaProc& lp = caller(a, ud.st, ud.node);
  const uint32_t e = a.u32(2);
  const sim::Time timeout = a.time_ns(3);
  return await_op(lp, a.fn(), [r = ud.obj, co = lp.co, e, timeout](host::Process& p) {
    return op_dg_receive(p, co, r, e, timeout);
  });
}

host::Op<int> op_dg_send(host::Process& p, lua_State* co, hamlyn::DatagramSender* s, hamlyn::Ticket t, uint64_t data,
                         uint32_t len, std::optional<hamlyn::Ticket> reply) {
  lua_pushinteger(co, (co_await s->send(p, t, data, len, reply)).seq);
  co_return 1;
}

// s:send(p, ticket, data, len [, reply_ticket]) -> handle
int dg_send(lua_State* L) {
  Args a(L, "HamlynDatagramSender:send", 1);
  auto& ud = obj_self<hamlyn::DatagramSender>(a, kDgTx);
  LuaProc& lp = caller(a, ud.st, ud.node);
  const hamlyn::Ticket t = ticket_arg(a, 2);
  const uint64_t data = addr_arg(a, 3);
  const uint32_t len = a.u32(4);
  std::optional<hamlyn::Ticket> reply;
  if (!a.none(5)) reply = ticket_arg(a, 5);
  return await_op(lp, a.fn(), [s = ud.obj, co = lp.co, t, data, len, reply](host::Process& p) {
    return op_dg_send(p, co, s, t, data, len, reply);
  });
}

// -- stream

int st_seed(lua_State* L) {
  Args a(L, "HamlynStreamReceiver:seed", 1);
  auto& ud = obj_self<hamlyn::StreamReceiver>(a, kStRx);
  const hamlyn::Seed s = ud.obj->make_seed();
  lua_createtable(L, 0, 2);
  push_ticket(L, s.ring);
  lua_setfield(L, -2, "ring");
  set_int(L, "tickets", s.tickets);
  return 1;
}

int st_accept(lua_State* L) {
  Args a(L, "HamlynStreamReceiver:accept", 1);
  auto& ud = obj_self<hamlyn::StreamReceiver>(a, kStRx);
  ud.obj->accept(ticket_arg(a, 1));
  return 0;
}

host::Op<int> op_st_receive(host::Process& p, lua_State* co, hamlyn::StreamReceiver* r, sim::Time timeout) {
  const std::optional<hamlyn::Record> rec = co_await r->receive(p, timeout);
  if (!rec) {
    lua_pushnil(co);
    co_return 1;
  }
  lua_createtable(co, 0, 3);
  set_int(co, "seq", rec->seq);
  set_int(co, "start", int64_t(rec->start));
  set_int(co, "len", rec->len);
  co_return 1;
}

int st_receive(lua_State* L) {
  Args a(L, "HamlynStreamReceiver:receive", 1);
  auto& ud = obj_self<hamlyn::StreamReceiver>(a, kStRx);
  LuaProc& lp = caller(a, ud.st, ud.node);
  const sim::Time timeout = a.time_ns(2);
  return await_op(lp, a.fn(), [r = ud.obj, co = lp.co, timeout](host::Process& p) { return op_st_receive(p, co, r, timeout); });
}

host::Op<int> op_st_release(host::Process& p, hamlyn::StreamReceiver* r, uint32_t seq) {
  co_await r->release(p, seq);
  co_return 0;
}

int st_release(lua_State* L) {
  Args a(L, "HamlynStreamReceiver:release", 1);
  auto& ud = obj_self<hamlyn::StreamReceiver>(a, kStRx);
  LuaProc& lp = caller(a, ud.st, ud.node);
  const uint32_t seq = a.u32(2);
  return await_op(lp, a.fn(), [r = ud.obj, seq](host::Process& p) { return op_st_release(p, r, seq); });
}

int st_ack_ticket(lua_State* L) {
  Args a(L, "HamlynStreamSender:ack_ticket", 1);
  push_ticket(L, obj_self<hamlyn::StreamSender>(a, kStTx).obj->ack_ticket());
  return 1;
}

host::Op<int> op_st_send(host::Process& p, hamlyn::StreamSender* s, bool flush, uint64_t data, uint32_t len) {
  if (flush) co_await s->flush(p);
  else co_await s->send(p, data, len);
  co_return 0;
}

int st_send(lua_State* L) {
  Args a(L, "HamlynStreamSender:send", 1);
  auto& ud = obj_self<hamlyn::StreamSender>(a, kStTx);
  LuaProc& lp = caller(a, ud.st, ud.node);
  const uint64_t data = addr_arg(a, 2);
  const uint32_t len = a.u32(3);
  return await_op(lp, a.fn(), [s = ud.obj, data, len](host::Process& p) { return op_st_send(p, s, false, data, len); });
}

int st_flush(lua_State* L) {
  Args a(L, "HamlynStreamSender:flush", 1);
  auto& ud = obj_self<hamlyn::StreamSender>(a, kStTx);
  LuaProc& lp = caller(a, ud.st, ud.node);
  return await_op(lp, a.fn(), [s = ud.obj](host::Process& p) { return op_st_send(p, s, true, 0, 0); });
}

int st_stats(lua_State* L) {
  Args a(L, "HamlynStreamSender:stats", 1);
  auto& ud = obj_self<hamlyn::StreamSender>(a, kStTx);
  lua_createtable(L, 0, 3);
  set_int(L, "messages", int64_t(ud.obj->messages()));
  set_int(L, "blocked", int64_t(ud.obj->blocked()));
  set_int(L, "released", ud.obj->released());
  return 1;
}

// "HamlynApp", "HamlynTrwReceiver", ...: the type's name (its metatable's __name).
int any_tostring(lua_State* L) {
  if (luaL_getmetafield(L, 1, "__name") != LUA_TSTRING) lua_pushstring(L, "Hamlyn object");
  return 1;
}

} // namespace

void open_hamlyn(lua_State* L) {
  static const luaL_Reg hm[] = {{"open", wrap<h_open>}, {"counters", wrap<h_counters>}, {"costs", wrap<h_costs>},
                                {nullptr, nullptr}};
  new_type(L, kHamlyn, hm, gc_udata<HamlynUD>, any_tostring);
  static const luaL_Reg am[] = {
      {"node", wrap<app_node>},       {"alloc_send", wrap<app_alloc_send>}, {"open_slot", wrap<app_open_slot>},
      {"slot", wrap<app_slot>},       {"ticket", wrap<app_ticket>},         {"guard", wrap<app_guard>},
      {"send", wrap<app_send>},       {"sent", wrap<app_sent>},             {"posted", wrap<app_posted>},
      {"released", wrap<app_released>}, {"pending", wrap<app_pending>},     {"recv", wrap<app_recv>},
      {"recv_block", wrap<app_recv_block>}, {"manager", wrap<app_manager>}, {nullptr, nullptr}};
  new_type(L, kApp, am, gc_udata<ObjUD<hamlyn::Application>>, any_tostring);
  static const luaL_Reg mm[] = {{"alloc", wrap<m_alloc>},
                                {"poll", wrap<m_poll>},
                                {"unclaimed", wrap<m_unclaimed>},
                                {"trw_receiver", wrap<m_trw_receiver>},
                                {"trw_sender", wrap<m_trw_sender>},
                                {"datagram_receiver", wrap<m_datagram_receiver>},
                                {"datagram_sender", wrap<m_datagram_sender>},
                                {"stream_receiver", wrap<m_stream_receiver>},
                                {"stream_sender", wrap<m_stream_sender>},
                                {nullptr, nullptr}};
  new_type(L, kManager, mm, gc_udata<ObjUD<hamlyn::Manager>>, any_tostring);
  static const luaL_Reg trm[] = {{"ticket", wrap<trw_ticket>}, {"area", wrap<trw_area>}, {"get_tag", wrap<trw_get_tag>},
                                 {"get_specific_tag", wrap<trw_get_specific_tag>}, {nullptr, nullptr}};
  new_type(L, kTrwRx, trm, gc_udata<ObjUD<hamlyn::TrwReceiver>>, any_tostring);
  static const luaL_Reg tsm[] = {{"send", wrap<trw_send>}, {nullptr, nullptr}};
  new_type(L, kTrwTx, tsm, gc_udata<ObjUD<hamlyn::TrwSender>>, any_tostring);
  static const luaL_Reg drm[] = {{"ticket", wrap<dg_ticket>}, {"area", wrap<dg_area>}, {"ready", wrap<dg_ready>},
                                 {"receive", wrap<dg_receive>}, {nullptr, nullptr}};
  new_type(L, kDgRx, drm, gc_udata<ObjUD<hamlyn::DatagramReceiver>>, any_tostring);
  static const luaL_Reg dsm[] = {{"send", wrap<dg_send>}, {nullptr, nullptr}};
  new_type(L, kDgTx, dsm, gc_udata<ObjUD<hamlyn::DatagramSender>>, any_tostring);
  static const luaL_Reg srm[] = {{"seed", wrap<st_seed>}, {"accept", wrap<st_accept>}, {"receive", wrap<st_receive>},
                                 {"release", wrap<st_release>}, {nullptr, nullptr}};
  new_type(L, kStRx, srm, gc_udata<ObjUD<hamlyn::StreamReceiver>>, any_tostring);
  static const luaL_Reg ssm[] = {{"ack_ticket", wrap<st_ack_ticket>}, {"send", wrap<st_send>}, {"flush", wrap<st_flush>},
                                 {"stats", wrap<st_stats>}, {nullptr, nullptr}};
  new_type(L, kStTx, ssm, gc_udata<ObjUD<hamlyn::StreamSender>>, any_tostring);
  kAnchor.open(L);
  lua_pushcfunction(L, wrap<lk_hamlyn>);
  lua_setfield(L, -2, "hamlyn");
  lua_pushcfunction(L, wrap<lk_ticket_bytes>);
  lua_setfield(L, -2, "hamlyn_ticket_bytes");
  lua_pushcfunction(L, wrap<lk_ticket_decode>);
  lua_setfield(L, -2, "hamlyn_ticket");
}

} // namespace lanaikit::sim::lua
