// lk.dart: Lua bindings for DART's driver and sending library (host/dart/driver.h,
// sender.h, cell.h; docs/dart.md).
//
//   local c = lk.cluster { platform = "dart", nic = "vmmc", atm = { link = "line", switch = true } }
//   local D = lk.dart(c, fw)                      -- loads dart.fw on every node
//   local a, b = D:open_endpoint(0, 16384), D:open_endpoint(1, 16384)  -- a process each
//   local conn = D:connect(a, b, 8)               -- both directions, 8 address registers a side
//   D:go()                                        -- the tables are set: the cards run
//   a:write(a:base(), ("x"):rep(32))              -- untimed, as the process's own stores
//   local s = conn:sender("a")
//   c:spawn(0, "tx", function(p) s:send(p, { op = "write", operand = 0x400 }, 0, 32) end)
//   c:spawn(1, "rx", function(p) b:wait_word(p, b:base() + 0x41C, string.unpack(">I4", "xxxx")) end)
//
// Endpoint memory is virtual: ep:base() is the endpoint's first address in its process's
// address space, sends name an offset from it (the Send Registers' OFFSET), as cells do.
// The blocking calls (send, wait_word) are host::Op coroutines awaited by the calling
// process (lua/process.cpp's Await); they take the process first.
//
// Lifetimes: the Dart, its endpoints, connections and senders share one State, which holds
// the cluster (it outlives the driver's processes) and the image (the driver's view points
// into it); the State is anchored with the cluster for as long as the Lua state lives.
#include "lua/kit.h"

#include "base/bytes.h"
#include "host/dart/barrier.h"
#include "host/dart/delayed_queue.h"
#include "host/dart/driver.h"
#include "host/dart/ops.h"
#include "host/dart/sender.h"
#include "host/kit/setup.h"
#include "host/kit/sram.h"

#include <array>

namespace lanaikit::sim::lua {

namespace {

const ClusterAnchor kAnchor("lanaikit.dart");
inline constexpr const char* kDart = "Dart";
inline constexpr const char* kEndpoint = "DartEndpoint";
inline constexpr const char* kConnection = "DartConnection";
inline constexpr const char* kSender = "DartSender";
inline constexpr const char* kOpsT = "DartOps";
inline constexpr const char* kBarrier = "DartBarrier";
inline constexpr const char* kQueue = "DartQueue";

struct EndpointRec {
  dart::Endpoint ep;
  host::AddressSpace* space = nullptr; // the process's, owned by State::spaces
};

struct ConnRec {
  dart::Connection c;
  host::AddressSpace* space_a = nullptr; // the processes owning each end's endpoint
  host::AddressSpace* space_b = nullptr;
  std::unique_ptr<dart::Sender> a, b; // a sends on vci_ab, b on vci_ba
};

struct State {
  std::shared_ptr<ClusterBox> box; // destroyed last: the cluster outlives the driver
  std::shared_ptr<const assembler::FirmwareImage> image;
  std::unique_ptr<kit::ImageView> view;                 // the driver's, into `image`
  std::vector<std::unique_ptr<host::AddressSpace>> spaces; // one per process
  std::vector<std::unique_ptr<EndpointRec>> endpoints;
  std::unique_ptr<dart::Driver> drv;
  std::vector<std::unique_ptr<ConnRec>> conns;
  std::vector<std::unique_ptr<dart::Ops>> ops;
  std::vector<std::unique_ptr<dart::Barrier>> barriers;
  std::vector<std::unique_ptr<dart::DelayedQueue>> queues;
  bool started = false;
  ~State() {
    barriers.clear();
    queues.clear();
    ops.clear();
    conns.clear();
    drv.reset();
  }
};

struct DartUD {
  std::shared_ptr<State> st;
};
struct EndpointUD {
  std::shared_ptr<State> st;
  EndpointRec* rec = nullptr;
};
struct ConnUD {
  std::shared_ptr<State> st;
  ConnRec* rec = nullptr;
};
struct SenderUD {
  std::shared_ptr<State> st;
  dart::Sender* s = nullptr;
  uint32_t node = 0;
};
struct OpsUD {
  std::shared_ptr<State> st;
  dart::Ops* ops = nullptr;
  uint32_t node = 0;
};
struct BarrierUD {
  std::shared_ptr<State> st;
  dart::Barrier* bar = nullptr;
  std::vector<uint32_t> nodes; // member m's node
};
struct QueueUD {
  std::shared_ptr<State> st;
  dart::DelayedQueue* q = nullptr;
  uint32_t node = 0; // the owner's
};

State& dart_self(const Args& a) {
  auto& ud = a.self<DartUD>(kDart);
  if (!ud.st || !ud.st->drv) a.fail_message("the Dart was collected");
  live_box(a, ud.st->box);
  return *ud.st;
}

template <class UD> UD& obj_self(const Args& a, const char* tname) {
  auto& ud = a.self<UD>(tname);
  if (!ud.st || !ud.st->drv) a.fail_message(std::string("the ") + tname + " was collected");
  live_box(a, ud.st->box);
  return ud;
}

EndpointRec& endpoint_arg(const Args& a, int arg, const State& st) {
  lua_State* L = a.state();
  auto* e = static_cast<EndpointUD*>(luaL_testudata(L, a.index(arg), kEndpoint));
  if (!e) a.fail(arg, std::string("expected a DartEndpoint, got ") + describe(L, a.index(arg)));
  if (e->st.get() != &st) a.fail(arg, "the endpoint belongs to another Dart");
  return *e->rec;
}

// ---- cells as tables ----------------------------------------------------------------------------

// A name from `names` (its index) or an integer in 0..max (an opcode the lead's firmware
// adds, a hostile value for a test).
uint32_t named(lua_State* L, const TableArg& t, const char* key, const std::vector<std::string>& names,
               uint32_t max, uint32_t dflt) {
  const int ty = t.push(key);
  std::optional<std::string> s;
  if (ty == LUA_TSTRING) s = lua_tostring(L, -1);
  lua_pop(L, 1);
  if (ty == LUA_TNIL) return dflt;
  if (s) {
    for (size_t i = 0; i < names.size(); ++i)
      if (!names[i].empty() && names[i] == *s) return uint32_t(i);
    std::string known;
    for (const auto& n : names)
      if (!n.empty()) known += (known.empty() ? "" : ", ") + ("\"" + n + "\"");
    t.fail(key, "expected one of " + known + " or an integer in 0.." + std::to_string(max) + ", got \"" + *s + "\"");
  }
  const int64_t v = t.integer(key);
  if (v < 0 || v > int64_t(max))
    t.fail(key, "expected a name or an integer in 0.." + std::to_string(max) + ", got " + std::to_string(v));
  return uint32_t(v);
}

const std::vector<std::string> kOps = {"nop",          "write",     "write_multiple", "read",
                                       "read_multiple", "exception", "fetch",          "fetch_if"};
const std::vector<std::string> kAmodes = {"direct", "indirect", "indexed"};
const std::vector<std::string> kSels = {"i", "j", "k"};
const std::vector<std::string> kSrcs = {"operand", "j", "k", "value"};
const std::vector<std::string> kRegOps = {"", "load", "not", "neg", "add", "sub", "and", "or", "xor", "shl", "shr"};
const std::vector<std::string> kCmps = {"", "eq", "ne", "ltu", "geu", "lts", "ges"};

// One operation byte from {op =, dst =, src =} (a register operation) or {cmp =, left =,
// right =} (the conditional), at field `key` of `t`; 0 if absent.
uint32_t op_byte_arg(const Args& a, int arg, const TableArg& t, const char* key, bool is_cond) {
  lua_State* L = a.state();
  const int ty = t.push(key);
  PopOnExit pop{L};
  if (ty == LUA_TNIL) return 0;
  if (ty != LUA_TTABLE)
    t.fail(key, std::string("expected ") + (is_cond ? "{cmp =, left =, right =}" : "{op =, dst =, src =}") +
                    ", got " + describe(L, -1));
  const TableArg o(a, arg, lua_gettop(L), key);
  if (is_cond) {
    o.only({"cmp", "left", "right"});
    const uint32_t cmp = named(L, o, "cmp", kCmps, 15, 0);
    if (!o.has("cmp")) o.fail("cmp", "required");
    return dart::op_byte(cmp, dart::Sel(named(L, o, "left", kSels, 3, 0)), dart::Src(named(L, o, "right", kSrcs, 3, 0)));
  }
  o.only({"op", "dst", "src"});
  if (!o.has("op")) o.fail("op", "required");
  const uint32_t op = named(L, o, "op", kRegOps, 15, 0);
  return dart::op_byte(op, dart::Sel(named(L, o, "dst", kSels, 3, 0)), dart::Src(named(L, o, "src", kSrcs, 3, 0)));
}

uint32_t byte_field(const TableArg& t, const char* key) {
  const int64_t v = t.opt_integer(key).value_or(0);
  if (v < 0 || v > 255) t.fail(key, "expected an integer in 0..255, got " + std::to_string(v));
  return uint32_t(v);
}

// {op =, mask =, amode =, operand =, i =, j =, k =, rega =, regb =, cond =} -> the cell's
// control words (docs/dart.md, "The cell"; dart::Cell). Defaults: mask 0xFF, direct,
// operand and registers 0, no register operations, no conditional.
dart::Cell cell_arg(const Args& a, int arg) {
  lua_State* L = a.state();
  const TableArg t = a.table(arg);
  t.only({"op", "mask", "amode", "operand", "i", "j", "k", "rega", "regb", "cond"});
  if (!t.has("op")) t.fail("op", "required (\"write\", \"read\", ... or an opcode)");
  const uint32_t op = named(L, t, "op", kOps, 255, 0);
  const int64_t mask = t.opt_integer("mask").value_or(0xFF);
  if (mask < 0 || mask > 255) t.fail("mask", "expected an integer in 0..255 (bit w selects data word w), got " +
                                                 std::to_string(mask));
  const uint32_t amode = named(L, t, "amode", kAmodes, 3, 0);
  const uint32_t operand = t.has("operand") ? t.u32("operand") : 0;
  dart::Cell c = dart::Cell::make(dart::Op(op), uint32_t(mask), dart::Amode(amode), operand);
  c.regs(byte_field(t, "i"), byte_field(t, "j"), byte_field(t, "k"));
  c.regops = op_byte_arg(a, arg, t, "rega", false) << 24 | op_byte_arg(a, arg, t, "regb", false) << 16;
  c.index = (c.index & ~0xFFu) | op_byte_arg(a, arg, t, "cond", true);
  return c;
}

// lk.dart_cell(t) -> {op =, operand =, index =, regops =}: the four control words a cell
// table encodes to (what the Send Registers receive).
int lk_dart_cell(lua_State* L) {
  Args a(L, "lk.dart_cell");
  const dart::Cell c = cell_arg(a, 1);
  lua_createtable(L, 0, 4);
  set_int(L, "op", c.op);
  set_int(L, "operand", c.operand);
  set_int(L, "index", c.index);
  set_int(L, "regops", c.regops);
  return 1;
}

// ---- lk.dart ------------------------------------------------------------------------------------

// lk.dart(cluster, fw) -> Dart. The cluster needs an ATM network (lk.cluster's `atm`).
int lk_dart(lua_State* L) {
  Args a(L, "lk.dart");
  const LibraryArgs lib = library_args(a);
  if (!a.none(3)) a.table(3).only({});
  if (!lib.box->cluster->atm())
    a.fail(1, "the cluster has no ATM network (lk.cluster{ ..., atm = { link = \"line\" } })");
  return push_library<DartUD, State>(a, kAnchor, kDart, "Dart", lib, [&](State& st) {
    st.view = std::make_unique<kit::ImageView>(*st.image, "dart", "firmware/dart/dart.fw");
    kit::load(*st.box->cluster, *st.image);
    st.drv = std::make_unique<dart::Driver>(*st.box->cluster, *st.view);
  });
}

// ---- Dart ---------------------------------------------------------------------------------------

// D:open_endpoint(node, bytes [, same_process_as]) -> DartEndpoint: `bytes` of a process's
// address space (a new process, or that endpoint's).
int d_open_endpoint(lua_State* L) {
  Args a(L, "Dart:open_endpoint", 1);
  auto& ud = a.self<DartUD>(kDart);
  State& st = dart_self(a);
  const uint32_t node = node_arg(a, 1, *st.box);
  const uint32_t bytes = uint32_t(a.integer_in(2, 1, 1ll << 30, "a size in 1..1 GB"));
  host::AddressSpace* space = nullptr;
  if (!a.none(3)) {
    EndpointRec& other = endpoint_arg(a, 3, st);
    if (other.ep.node != node)
      a.fail(3, "that endpoint's process runs on node " + std::to_string(other.ep.node) + ", not " +
                    std::to_string(node));
    space = other.space;
  } else {
    st.spaces.push_back(std::make_unique<host::AddressSpace>(st.box->cluster->node(node).memory()));
    space = st.spaces.back().get();
  }
  auto rec = std::make_unique<EndpointRec>();
  rec->space = space;
  rec->ep = library_call(a, [&] { return st.drv->open_endpoint(node, *space, bytes); });
  st.endpoints.push_back(std::move(rec));
  push_udata<EndpointUD>(L, kEndpoint, ud.st, st.endpoints.back().get());
  return 1;
}

// A connection the driver made, kept with a sender at each end (each end's process's
// space: the driver maps the slot into it), pushed as a DartConnection.
int push_connection(lua_State* L, const std::shared_ptr<State>& st, const dart::Connection& c,
                    host::AddressSpace* space_a, host::AddressSpace* space_b) {
  auto rec = std::make_unique<ConnRec>();
  rec->c = c;
  rec->space_a = space_a;
  rec->space_b = space_b;
  rec->a = std::make_unique<dart::Sender>(*st->drv, *space_a, c, true);
  rec->b = std::make_unique<dart::Sender>(*st->drv, *space_b, c, false);
  st->conns.push_back(std::move(rec));
  push_udata<ConnUD>(L, kConnection, st, st->conns.back().get());
  return 1;
}

// D:connect(a, b, regs [, {at_a =, at_b =}]) -> DartConnection. at_a / at_b: a first
// register (from D:alloc_registers) where that end's window starts, shared with other
// connections, instead of fresh registers.
int d_connect(lua_State* L) {
  Args a(L, "Dart:connect", 1);
  auto& ud = a.self<DartUD>(kDart);
  State& st = dart_self(a);
  EndpointRec& ea = endpoint_arg(a, 1, st);
  EndpointRec& eb = endpoint_arg(a, 2, st);
  const uint32_t regs = a.none(3) ? 0 : uint32_t(a.integer_in(3, 0, 255, "a register count in 0..255"));
  dart::Driver::SharedWindows shared;
  if (!a.none(4)) {
    const TableArg t = a.table(4);
    t.only({"at_a", "at_b"});
    if (t.has("at_a")) shared.at_a = t.u32("at_a");
    if (t.has("at_b")) shared.at_b = t.u32("at_b");
  }
  if (ea.ep.node == eb.ep.node) a.fail(2, "both endpoints are on node " + std::to_string(ea.ep.node) +
                                              " (a connection joins two nodes)");
  const dart::Connection c = library_call(a, [&] { return st.drv->connect(ea.ep, eb.ep, regs, shared); });
  return push_connection(L, ud.st, c, ea.space, eb.space);
}

int d_go(lua_State* L) {
  Args a(L, "Dart:go", 1);
  State& st = dart_self(a);
  if (st.started) a.fail_message("the cards already run (go() is called once, after the set-up)");
  library_call(a, [&] { st.drv->go(); });
  st.started = true;
  return 0;
}

// D:events(node) -> { {kind =, name =, vci =, a =, b =}, ... }: the events the driver kept
// (everything but the TLB misses it served itself, which are listed too).
int d_events(lua_State* L) {
  Args a(L, "Dart:events", 1);
  State& st = dart_self(a);
  const uint32_t node = node_arg(a, 1, *st.box);
  const std::vector<dart::Event>& ev = st.drv->events(node);
  static const char* const kKinds[] = {"COND", "EXCEPTION", "UNKNOWN_OP", "TLB_MISS", "BAD_BLOCK"};
  lua_createtable(L, int(ev.size()), 0);
  for (size_t i = 0; i < ev.size(); ++i) {
    lua_createtable(L, 0, 5);
    set_int(L, "kind", ev[i].kind);
    set_int(L, "vci", ev[i].vci);
    set_int(L, "a", ev[i].a);
    set_int(L, "b", ev[i].b);
    for (const char* k : kKinds) {
      const std::string full = std::string("DartEventKind.") + k;
      try {
        if (st.view->constant32(full) == ev[i].kind) {
          lua_pushstring(L, k);
          lua_setfield(L, -2, "name");
        }
      } catch (const std::exception&) { // a kind this image does not have
      }
    }
    lua_rawseti(L, -2, lua_Integer(i + 1));
  }
  return 1;
}

int d_misses_served(lua_State* L) {
  Args a(L, "Dart:misses_served", 1);
  State& st = dart_self(a);
  lua_pushinteger(L, lua_Integer(st.drv->misses_served(node_arg(a, 1, *st.box))));
  return 1;
}

// D:counters(node) -> the card's dart.counters (firmware/dart/dart_defs.fw, DartCounters),
// read through the image's layout; plus busy_refused, the Send Registers' refusals.
int d_counters(lua_State* L) {
  Args a(L, "Dart:counters", 1);
  State& st = dart_self(a);
  const uint32_t node = node_arg(a, 1, *st.box);
  push_fields(L, library_call(a, [&] { return kit::read_fields(st.box->cluster->node(node), st.view->ref("dart.counters")); }));
  set_int(L, "busy_refused", int64_t(st.drv->send_registers(node).busy_refused()));
  return 1;
}

// D:reg(node, r) -> address register r of the node's card (SRAM, untimed).
int d_reg(lua_State* L) {
  Args a(L, "Dart:reg", 1);
  State& st = dart_self(a);
  const uint32_t node = node_arg(a, 1, *st.box);
  const uint32_t r = a.u32(2);
  lua_pushinteger(L, library_call(a, [&] { return kit::peek32(st.box->cluster->node(node), st.drv->reg_address(r)); }));
  return 1;
}

// D:constant(name) -> a constant of the image (its layout table), e.g. "MAX_BLOCK".
int d_constant(lua_State* L) {
  Args a(L, "Dart:constant", 1);
  State& st = dart_self(a);
  const std::string name = a.string(1);
  lua_pushinteger(L, lua_Integer(library_call(a, [&] { return st.view->constant(name); })));
  return 1;
}

int d_cluster(lua_State* L) {
  Args a(L, "Dart:cluster", 1);
  auto& ud = a.self<DartUD>(kDart);
  dart_self(a);
  push_udata<ClusterUD>(L, kCluster, ud.st->box);
  return 1;
}

int d_tostring(lua_State* L) {
  auto* d = static_cast<DartUD*>(luaL_testudata(L, 1, kDart));
  if (!d || !d->st || !d->st->box || !d->st->box->cluster) lua_pushstring(L, "Dart(collected)");
  else lua_pushfstring(L, "Dart(%d nodes)", int(d->st->box->cluster->size()));
  return 1;
}

// ---- DartEndpoint -------------------------------------------------------------------------------

// ep:node(), ep:index(), ep:asid(), ep:base() (virtual), ep:bytes(): one field each.
template <const char* Name, uint32_t dart::Endpoint::*Field> int e_field(lua_State* L) {
  Args a(L, Name, 1);
  lua_pushinteger(L, obj_self<EndpointUD>(a, kEndpoint).rec->ep.*Field);
  return 1;
}
constexpr char kEpNode[] = "DartEndpoint:node", kEpIndex[] = "DartEndpoint:index", kEpAsid[] = "DartEndpoint:asid",
               kEpBase[] = "DartEndpoint:base", kEpBytes[] = "DartEndpoint:bytes";

int e_write(lua_State* L) {
  Args a(L, "DartEndpoint:write", 1);
  return space_write(a, 1, *obj_self<EndpointUD>(a, kEndpoint).rec->space);
}

int e_read(lua_State* L) {
  Args a(L, "DartEndpoint:read", 1);
  return space_read(a, 1, *obj_self<EndpointUD>(a, kEndpoint).rec->space);
}

host::Op<int> op_wait_word(host::Process& p, sim::Node* node, host::AddressSpace* space, host::VirtAddr va,
                           uint32_t value) {
  std::vector<kit::WordWait> one(1, kit::WordWait{va, kit::WordWait::Test::Equal, value});
  co_await kit::wait_words(p, *node, *space, std::move(one));
  co_return 0;
}

// ep:wait_word(p, va, value): until the big-endian word at va holds value (a memory watch:
// the process notices a deposit when it lands, as a polling loop would).
int e_wait_word(lua_State* L) {
  Args a(L, "DartEndpoint:wait_word", 1);
  EndpointUD& ud = obj_self<EndpointUD>(a, kEndpoint);
  LuaProc& lp = caller_on(a, 1, *ud.st->box, ud.rec->ep.node);
  const host::VirtAddr va = vaddr32_arg(a, 2);
  if (va % 4) a.fail(2, "the word's address must be a multiple of 4");
  const uint32_t value = a.u32(3);
  sim::Node* node = &ud.st->box->cluster->node(ud.rec->ep.node);
  host::AddressSpace* space = ud.rec->space;
  return await_op(lp, a.fn(), [node, space, va, value](host::Process& p) {
    return op_wait_word(p, node, space, va, value);
  });
}

int e_tostring(lua_State* L) {
  auto* e = static_cast<EndpointUD*>(luaL_testudata(L, 1, kEndpoint));
  if (!e || !e->rec || !e->st || !e->st->drv) lua_pushstring(L, "DartEndpoint(collected)");
  else lua_pushfstring(L, "DartEndpoint(node %d index %d)", int(e->rec->ep.node), int(e->rec->ep.index));
  return 1;
}

// ---- DartConnection -----------------------------------------------------------------------------

// conn:info() -> {node_a =, node_b =, vci_ab =, vci_ba =, slot_a =, slot_b =, regs_a =,
// regs_b =, reg_count =}
int k_info(lua_State* L) {
  Args a(L, "DartConnection:info", 1);
  const dart::Connection& c = obj_self<ConnUD>(a, kConnection).rec->c;
  lua_createtable(L, 0, 9);
  set_int(L, "node_a", c.a.node);
  set_int(L, "node_b", c.b.node);
  set_int(L, "vci_ab", c.vci_ab);
  set_int(L, "vci_ba", c.vci_ba);
  set_int(L, "slot_a", c.slot_a);
  set_int(L, "slot_b", c.slot_b);
  set_int(L, "regs_a", c.regs_a);
  set_int(L, "regs_b", c.regs_b);
  set_int(L, "reg_count", c.reg_count);
  return 1;
}

// conn:sender("a" | "b") -> DartSender: that end's sends (a's go to b on vci_ab).
int k_sender(lua_State* L) {
  Args a(L, "DartConnection:sender", 1);
  ConnUD& ud = obj_self<ConnUD>(a, kConnection);
  const std::string end = a.string(1);
  if (end != "a" && end != "b") a.fail(1, "expected \"a\" or \"b\", got \"" + end + "\"");
  const bool is_a = end == "a";
  push_udata<SenderUD>(L, kSender, ud.st, is_a ? ud.rec->a.get() : ud.rec->b.get(),
                       is_a ? ud.rec->c.a.node : ud.rec->c.b.node);
  return 1;
}

int k_tostring(lua_State* L) {
  auto* k = static_cast<ConnUD*>(luaL_testudata(L, 1, kConnection));
  if (!k || !k->rec || !k->st || !k->st->drv) lua_pushstring(L, "DartConnection(collected)");
  else lua_pushfstring(L, "DartConnection(node %d vci %d <-> node %d vci %d)", int(k->rec->c.a.node),
                       int(k->rec->c.vci_ba), int(k->rec->c.b.node), int(k->rec->c.vci_ab));
  return 1;
}

// ---- DartSender ---------------------------------------------------------------------------------

host::Op<int> op_send(host::Process& p, dart::Sender* s, dart::Cell c, uint32_t offset, uint32_t size) {
  co_await s->send(p, c, offset, size);
  co_return 0;
}

// s:send(p, cell, offset, size): the cell's control words and `size` bytes at `offset` in
// the sending endpoint, through the Send Registers (three to six posted PIO writes).
int s_send(lua_State* L) {
  Args a(L, "DartSender:send", 1);
  SenderUD& ud = obj_self<SenderUD>(a, kSender);
  LuaProc& lp = caller_on(a, 1, *ud.st->box, ud.node);
  const dart::Cell c = cell_arg(a, 2);
  const uint32_t offset = a.u32(3);
  const uint32_t size = uint32_t(a.integer_in(4, 0, dart::SendRegisters::kMaxSize, "a size in 0..65535 bytes"));
  return await_op(lp, a.fn(), [s = ud.s, c, offset, size](host::Process& p) { return op_send(p, s, c, offset, size); });
}

int s_sends(lua_State* L) {
  Args a(L, "DartSender:sends", 1);
  lua_pushinteger(L, lua_Integer(obj_self<SenderUD>(a, kSender).s->sends()));
  return 1;
}

int s_waits(lua_State* L) {
  Args a(L, "DartSender:waits", 1);
  lua_pushinteger(L, lua_Integer(obj_self<SenderUD>(a, kSender).s->waits()));
  return 1;
}

int s_node(lua_State* L) {
  Args a(L, "DartSender:node", 1);
  lua_pushinteger(L, obj_self<SenderUD>(a, kSender).node);
  return 1;
}

int s_tostring(lua_State* L) {
  auto* s = static_cast<SenderUD*>(luaL_testudata(L, 1, kSender));
  if (!s || !s->s || !s->st || !s->st->drv) lua_pushstring(L, "DartSender(collected)");
  else lua_pushfstring(L, "DartSender(node %d)", int(s->node));
  return 1;
}

// ---- operations, barriers, delayed-action queues (host/dart/ops.h, barrier.h, delayed_queue.h) --

// conn:ops("a" | "b", scratch) -> DartOps: that end's blocking operations (answered by the
// other card), over the end's sender; `scratch`: the offset in the end's endpoint of the
// dart::Ops::kScratchBytes the operations stage their words and take their answers in.
int k_ops(lua_State* L) {
  Args a(L, "DartConnection:ops", 1);
  ConnUD& ud = obj_self<ConnUD>(a, kConnection);
  const std::string end = a.string(1);
  if (end != "a" && end != "b") a.fail(1, "expected \"a\" or \"b\", got \"" + end + "\"");
  const bool is_a = end == "a";
  const uint32_t scratch = a.u32(2);
  State& st = *ud.st;
  ConnRec& rec = *ud.rec;
  st.ops.push_back(library_call(a, [&] {
    return std::make_unique<dart::Ops>(is_a ? *rec.a : *rec.b, *st.drv, is_a ? *rec.space_a : *rec.space_b, rec.c,
                                       is_a, scratch);
  }));
  push_udata<OpsUD>(L, kOpsT, ud.st, st.ops.back().get(), is_a ? rec.c.a.node : rec.c.b.node);
  return 1;
}

// One blocking operation returning a value (the register's old value).
template <class F> int ops_value_call(const Args& a, F make_op) {
  OpsUD& ud = obj_self<OpsUD>(a, kOpsT);
  LuaProc& lp = caller_on(a, 1, *ud.st->box, ud.node);
  return await_op(lp, a.fn(), [ops = ud.ops, co = lp.co, make_op](host::Process& p) -> host::Op<int> {
    const uint32_t old = co_await make_op(p, *ops);
    lua_pushinteger(co, lua_Integer(old));
    co_return 1;
  });
}

// ops:fetch_and_add(p, reg, delta) -> the register's value before
int o_fetch_and_add(lua_State* L) {
  Args a(L, "DartOps:fetch_and_add", 1);
  const uint32_t reg = uint32_t(a.integer_in(2, 0, 255, "a register of the window (0..255)")), d = a.u32(3);
  return ops_value_call(a, [reg, d](host::Process& p, dart::Ops& o) { return o.fetch_and_add(p, reg, d); });
}

// ops:swap(p, reg, value) -> the value before
int o_swap(lua_State* L) {
  Args a(L, "DartOps:swap", 1);
  const uint32_t reg = uint32_t(a.integer_in(2, 0, 255, "a register of the window (0..255)")), v = a.u32(3);
  return ops_value_call(a, [reg, v](host::Process& p, dart::Ops& o) { return o.swap(p, reg, v); });
}

// ops:compare_and_swap(p, reg, expected, desired) -> the value before (== expected: swapped)
int o_compare_and_swap(lua_State* L) {
  Args a(L, "DartOps:compare_and_swap", 1);
  const uint32_t reg = uint32_t(a.integer_in(2, 0, 255, "a register of the window (0..255)"));
  const uint32_t e = a.u32(3), v = a.u32(4);
  return ops_value_call(a, [reg, e, v](host::Process& p, dart::Ops& o) { return o.compare_and_swap(p, reg, e, v); });
}

// ops:read_register(p, reg) -> its value
int o_read_register(lua_State* L) {
  Args a(L, "DartOps:read_register", 1);
  const uint32_t reg = uint32_t(a.integer_in(2, 0, 255, "a register of the window (0..255)"));
  return ops_value_call(a, [reg](host::Process& p, dart::Ops& o) { return o.read_register(p, reg); });
}

// Argument `arg`: a list of at most `max` integers (32-bit words).
std::vector<uint32_t> words_arg(const Args& a, int arg, size_t max) {
  lua_State* L = a.state();
  a.table(arg);
  const lua_Integer n = luaL_len(L, a.index(arg));
  if (n > lua_Integer(max)) a.fail(arg, "at most " + std::to_string(max) + " words, got " + std::to_string(n));
  std::vector<uint32_t> words;
  for (lua_Integer i = 1; i <= n; ++i) {
    lua_geti(L, a.index(arg), i);
    if (!lua_isinteger(L, -1)) a.fail(arg, "word " + std::to_string(i) + " is not an integer");
    words.push_back(uint32_t(lua_tointeger(L, -1)));
    lua_pop(L, 1);
  }
  return words;
}

host::Op<int> op_void(host::Process& p, std::function<host::Op<void>(host::Process&)> f) {
  co_await f(p);
  co_return 0;
}

// ops:read(p, remote, bytes, local): `bytes` (4..28) at offset `remote` of the other end's
// endpoint into offset `local` of this end's (the tag lands at local + 28).
int o_read(lua_State* L) {
  Args a(L, "DartOps:read", 1);
  OpsUD& ud = obj_self<OpsUD>(a, kOpsT);
  LuaProc& lp = caller_on(a, 1, *ud.st->box, ud.node);
  const uint32_t remote = a.u32(2), local = a.u32(4);
  const uint32_t bytes = uint32_t(a.integer_in(3, 4, 28, "4..28 bytes"));
  if (bytes % 4) a.fail(3, "a multiple of 4 bytes");
  return await_op(lp, a.fn(), [ops = ud.ops, remote, bytes, local](host::Process& p) {
    return op_void(p, [=](host::Process& q) { return ops->read(q, remote, bytes, local); });
  });
}

// ops:read_block(p, remote, bytes, local [, tag_reg]): a block by READ_MULTIPLE, then a
// register read whose answer follows it.
int o_read_block(lua_State* L) {
  Args a(L, "DartOps:read_block", 1);
  OpsUD& ud = obj_self<OpsUD>(a, kOpsT);
  LuaProc& lp = caller_on(a, 1, *ud.st->box, ud.node);
  const uint32_t remote = a.u32(2), local = a.u32(4);
  const uint32_t bytes = uint32_t(a.integer_in(3, 4, 4096, "4..4096 bytes"));
  const uint32_t tag_reg = a.none(5) ? 0 : uint32_t(a.integer_in(5, 0, 255, "a register of the window (0..255)"));
  return await_op(lp, a.fn(), [ops = ud.ops, remote, bytes, local, tag_reg](host::Process& p) {
    return op_void(p, [=](host::Process& q) { return ops->read_block(q, remote, bytes, local, tag_reg); });
  });
}

// ops:send(p, cell, {words}): the cell with up to 8 data words (staged in the scratch
// area), queued on the card; does not wait for an answer.
int o_send(lua_State* L) {
  Args a(L, "DartOps:send", 1);
  OpsUD& ud = obj_self<OpsUD>(a, kOpsT);
  LuaProc& lp = caller_on(a, 1, *ud.st->box, ud.node);
  const dart::Cell c = cell_arg(a, 2);
  const std::vector<uint32_t> words = words_arg(a, 3, dart::kDataWords);
  return await_op(lp, a.fn(), [ops = ud.ops, c, words](host::Process& p) {
    return op_void(p, [=](host::Process& q) { return ops->send(q, c, words); });
  });
}

int o_calls(lua_State* L) {
  Args a(L, "DartOps:calls", 1);
  lua_pushinteger(L, lua_Integer(obj_self<OpsUD>(a, kOpsT).ops->calls()));
  return 1;
}

int o_tostring(lua_State* L) {
  auto* o = static_cast<OpsUD*>(luaL_testudata(L, 1, kOpsT));
  if (!o || !o->ops || !o->st || !o->st->drv) lua_pushstring(L, "DartOps(collected)");
  else lua_pushfstring(L, "DartOps(node %d)", int(o->node));
  return 1;
}

// D:alloc_registers(node, n) -> the first of n address registers no window owns (for
// windows several connections share: D:connect's at_a / at_b).
int d_alloc_registers(lua_State* L) {
  Args a(L, "Dart:alloc_registers", 1);
  State& st = dart_self(a);
  const uint32_t node = node_arg(a, 1, *st.box);
  const uint32_t n = uint32_t(a.integer_in(2, 1, 1024, "a register count in 1..1024"));
  lua_pushinteger(L, library_call(a, [&] { return st.drv->alloc_registers(node, n); }));
  return 1;
}

// D:set_reg(node, r, value): address register r of the node's card (SRAM, untimed set-up).
int d_set_reg(lua_State* L) {
  Args a(L, "Dart:set_reg", 1);
  State& st = dart_self(a);
  const uint32_t node = node_arg(a, 1, *st.box);
  const uint32_t r = a.u32(2), v = a.u32(3);
  library_call(a, [&] { st.drv->set_register(node, r, v); });
  return 0;
}

// D:barrier({ep, ...}, area) -> DartBarrier: the first endpoint's node coordinates;
// dart::Barrier::area_bytes(N) at offset `area` of every endpoint belong to it. Before go().
int d_barrier(lua_State* L) {
  Args a(L, "Dart:barrier", 1);
  auto& ud = a.self<DartUD>(kDart);
  State& st = dart_self(a);
  if (st.started) a.fail_message("a barrier is set up before go()");
  a.table(1);
  const lua_Integer n = luaL_len(L, a.index(1));
  std::vector<dart::Barrier::Member> members;
  std::vector<uint32_t> nodes;
  for (lua_Integer i = 1; i <= n; ++i) {
    lua_geti(L, a.index(1), i);
    auto* e = static_cast<EndpointUD*>(luaL_testudata(L, -1, kEndpoint));
    if (!e || e->st.get() != &st) a.fail(1, "element " + std::to_string(i) + " is not a DartEndpoint of this Dart");
    members.push_back({e->rec->ep, e->rec->space});
    nodes.push_back(e->rec->ep.node);
    lua_pop(L, 1);
  }
  const uint32_t area = a.u32(2);
  st.barriers.push_back(library_call(a, [&] {
    return std::make_unique<dart::Barrier>(*st.drv, *st.box->cluster, members, area);
  }));
  push_udata<BarrierUD>(L, kBarrier, ud.st, st.barriers.back().get(), nodes);
  return 1;
}

// bar:arrive(p, m): member m (0-based) arrives; returns when all have, this episode.
int b_arrive(lua_State* L) {
  Args a(L, "DartBarrier:arrive", 1);
  BarrierUD& ud = obj_self<BarrierUD>(a, kBarrier);
  const uint32_t m = uint32_t(a.integer_in(2, 0, int64_t(ud.nodes.size()) - 1, "a member index"));
  LuaProc& lp = caller_on(a, 1, *ud.st->box, ud.nodes[m]);
  return await_op(lp, a.fn(), [bar = ud.bar, m](host::Process& p) {
    return op_void(p, [=](host::Process& q) { return bar->arrive(q, m); });
  });
}

int b_polls(lua_State* L) {
  Args a(L, "DartBarrier:polls", 1);
  lua_pushinteger(L, lua_Integer(obj_self<BarrierUD>(a, kBarrier).bar->counter_polls()));
  return 1;
}

int b_tostring(lua_State* L) {
  auto* b = static_cast<BarrierUD*>(luaL_testudata(L, 1, kBarrier));
  if (!b || !b->bar || !b->st || !b->st->drv) lua_pushstring(L, "DartBarrier(collected)");
  else lua_pushfstring(L, "DartBarrier(%d members)", int(b->nodes.size()));
  return 1;
}

// D:delayed_queue(owner_ep, ring, entries, slack) -> DartQueue (host/dart/delayed_queue.h).
int d_delayed_queue(lua_State* L) {
  Args a(L, "Dart:delayed_queue", 1);
  auto& ud = a.self<DartUD>(kDart);
  State& st = dart_self(a);
  EndpointRec& owner = endpoint_arg(a, 1, st);
  const uint32_t ring = a.u32(2);
  const uint32_t entries = uint32_t(a.integer_in(3, 2, 128, "entries in 2..128 (a power of two)"));
  const uint32_t slack = uint32_t(a.integer_in(4, 1, 127, "a slack in 1..entries - 1"));
  st.queues.push_back(library_call(a, [&] {
    return std::make_unique<dart::DelayedQueue>(*st.drv, owner.ep, *owner.space, ring, entries, slack);
  }));
  push_udata<QueueUD>(L, kQueue, ud.st, st.queues.back().get(), owner.ep.node);
  return 1;
}

// q:attach(ep) -> DartConnection from `ep` (end a) into the queue's registers.
int q_attach(lua_State* L) {
  Args a(L, "DartQueue:attach", 1);
  QueueUD& ud = obj_self<QueueUD>(a, kQueue);
  State& st = *ud.st;
  EndpointRec& poster = endpoint_arg(a, 1, st);
  const dart::Connection c = library_call(a, [&] { return ud.q->attach(poster.ep); });
  host::AddressSpace* owner = nullptr;
  for (const auto& e : st.endpoints)
    if (e->ep.node == c.b.node && e->ep.index == c.b.index) owner = e->space;
  return push_connection(L, ud.st, c, poster.space, owner);
}

// q:post(p, ops, {words (up to 7)}, stamp): one entry through `ops` (an attached end).
int q_post(lua_State* L) {
  Args a(L, "DartQueue:post", 1);
  QueueUD& ud = obj_self<QueueUD>(a, kQueue);
  auto* o = static_cast<OpsUD*>(luaL_testudata(L, a.index(2), kOpsT));
  if (!o || o->st != ud.st) a.fail(2, "expected a DartOps of this Dart");
  LuaProc& lp = caller_on(a, 1, *ud.st->box, o->node);
  const std::vector<uint32_t> words = words_arg(a, 3, std::tuple_size_v<dart::DelayedQueue::Entry>);
  const uint32_t stamp = a.none(4) ? 1 : a.u32(4);
  if (stamp == 0) a.fail(4, "the stamp must not be 0 (0 marks a free entry)");
  return await_op(lp, a.fn(), [q = ud.q, ops = o->ops, words, stamp](host::Process& p) {
    return op_void(p, [=](host::Process& r) { return q->post(r, *ops, words, stamp); });
  });
}

host::Op<int> op_drain(host::Process& p, lua_State* co, dart::DelayedQueue* q) {
  const std::vector<dart::DelayedQueue::Entry> got = co_await q->drain(p);
  lua_createtable(co, int(got.size()), 0);
  for (size_t i = 0; i < got.size(); ++i) {
    lua_createtable(co, 7, 0);
    for (int w = 0; w < 7; ++w) {
      lua_pushinteger(co, lua_Integer(got[i][size_t(w)]));
      lua_rawseti(co, -2, w + 1);
    }
    lua_rawseti(co, -2, lua_Integer(i + 1));
  }
  co_return 1;
}

// q:drain(p) -> { {w1, ..., w7}, ... }: every entry present, oldest first (the owner's process).
int q_drain(lua_State* L) {
  Args a(L, "DartQueue:drain", 1);
  QueueUD& ud = obj_self<QueueUD>(a, kQueue);
  LuaProc& lp = caller_on(a, 1, *ud.st->box, ud.node);
  return await_op(lp, a.fn(), [q = ud.q, co = lp.co](host::Process& p) { return op_drain(p, co, q); });
}

int q_tostring(lua_State* L) {
  auto* q = static_cast<QueueUD*>(luaL_testudata(L, 1, kQueue));
  if (!q || !q->q || !q->st || !q->st->drv) lua_pushstring(L, "DartQueue(collected)");
  else lua_pushfstring(L, "DartQueue(node %d)", int(q->node));
  return 1;
}

} // namespace

void open_dart(lua_State* L) {
  static const luaL_Reg dm[] = {{"open_endpoint", wrap<d_open_endpoint>}, {"connect", wrap<d_connect>},
                                {"go", wrap<d_go>},                       {"events", wrap<d_events>},
                                {"misses_served", wrap<d_misses_served>}, {"counters", wrap<d_counters>},
                                {"reg", wrap<d_reg>},                     {"constant", wrap<d_constant>},
                                {"cluster", wrap<d_cluster>},
                                {"alloc_registers", wrap<d_alloc_registers>}, {"set_reg", wrap<d_set_reg>},
                                {"barrier", wrap<d_barrier>},             {"delayed_queue", wrap<d_delayed_queue>},
                                {nullptr, nullptr}};
  new_type(L, kDart, dm, gc_udata<DartUD>, d_tostring);
  static const luaL_Reg em[] = {{"node", wrap<e_field<kEpNode, &dart::Endpoint::node>>},
                                {"index", wrap<e_field<kEpIndex, &dart::Endpoint::index>>},
                                {"asid", wrap<e_field<kEpAsid, &dart::Endpoint::asid>>},
                                {"base", wrap<e_field<kEpBase, &dart::Endpoint::base>>},
                                {"bytes", wrap<e_field<kEpBytes, &dart::Endpoint::bytes>>}, {"write", wrap<e_write>},
                                {"read", wrap<e_read>},   {"wait_word", wrap<e_wait_word>}, {nullptr, nullptr}};
  new_type(L, kEndpoint, em, gc_udata<EndpointUD>, e_tostring);
  static const luaL_Reg km[] = {{"info", wrap<k_info>}, {"sender", wrap<k_sender>}, {"ops", wrap<k_ops>}, {nullptr, nullptr}};
  new_type(L, kConnection, km, gc_udata<ConnUD>, k_tostring);
  static const luaL_Reg sm[] = {{"send", wrap<s_send>}, {"sends", wrap<s_sends>}, {"waits", wrap<s_waits>},
                                {"node", wrap<s_node>}, {nullptr, nullptr}};
  new_type(L, kSender, sm, gc_udata<SenderUD>, s_tostring);
  static const luaL_Reg om[] = {{"fetch_and_add", wrap<o_fetch_and_add>}, {"swap", wrap<o_swap>},
                                {"compare_and_swap", wrap<o_compare_and_swap>}, {"read_register", wrap<o_read_register>},
                                {"read", wrap<o_read>}, {"read_block", wrap<o_read_block>},
                                {"send", wrap<o_send>}, {"calls", wrap<o_calls>}, {nullptr, nullptr}};
  new_type(L, kOpsT, om, gc_udata<OpsUD>, o_tostring);
  static const luaL_Reg bm[] = {{"arrive", wrap<b_arrive>}, {"polls", wrap<b_polls>}, {nullptr, nullptr}};
  new_type(L, kBarrier, bm, gc_udata<BarrierUD>, b_tostring);
  static const luaL_Reg qm[] = {{"attach", wrap<q_attach>}, {"post", wrap<q_post>}, {"drain", wrap<q_drain>},
                                {nullptr, nullptr}};
  new_type(L, kQueue, qm, gc_udata<QueueUD>, q_tostring);
  kAnchor.open(L);
  lua_pushcfunction(L, wrap<lk_dart>);
  lua_setfield(L, -2, "dart");
  lua_pushcfunction(L, wrap<lk_dart_cell>);
  lua_setfield(L, -2, "dart_cell");
}

} // namespace lanaikit::sim::lua
