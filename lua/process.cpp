// Lua processes: c:spawn(node, name, fn) runs `fn(p)` as a Lua thread driven by a
// host::Process (host/model/process.h).
//
// The C++ coroutine body resumes the Lua thread. A blocking call (p:sync, p:pio_read32,
// p:wait_memory, ...) records its request in the LuaProc and yields the Lua thread; the
// body then performs the matching co_await on the simulation, pushes the results and
// resumes the thread again. Non-blocking calls (p:pio_write, p:advance_ns) act at once on
// the local clock. A wait predicate is plain Lua called on the runtime's aux thread: it
// cannot yield (a blocking call there is an error).
#include "lua/internal.h"

#include "host/model/process.h"
#include "vm/chip_regs.h"

namespace lanaikit::sim::lua {

namespace {


std::string traceback_of(Runtime::Impl& rt, lua_State* co) {
  const char* msg = lua_tostring(co, -1);
  std::string m = msg ? msg : "(error object is not a string)";
  luaL_traceback(rt.aux, co, m.c_str(), 0);
  std::string out = lua_tostring(rt.aux, -1);
  lua_pop(rt.aux, 1);
  return out;
}

void process_failed(LuaProc& lp, const std::string& message) {
  Runtime::Impl& rt = *lp.rt;
  rt.fail(Outcome::ScriptError, "process '" + lp.name + "' failed: " + message);
  lp.box->cluster->kernel().stop();
}

void process_ended(LuaProc& lp) {
  lp.finished = true;
  ClusterBox& box = *lp.box;
  if (box.live_procs > 0) --box.live_procs;
  if (!lp.rt->closing) {
    luaL_unref(lp.rt->L, LUA_REGISTRYINDEX, lp.co_ref);
    lp.co_ref = LUA_NOREF;
  }
  if (box.live_procs == 0 && box.stop_when_done && box.running) {
    box.stop_requested = true;
    box.cluster->kernel().stop();
  }
}

host::Task lua_body(host::Process& p, LuaProc* lp) {
  Runtime::Impl& rt = *lp->rt;
  Node& node = lp->box->cluster->node(lp->node);
  int nargs = 1; // the first resume passes p (the function is below it)
  for (;;) {
    if (rt.failed()) co_return;
    if ((++rt.resumes & 255) == 0 && rt.wall_exceeded()) co_return;
    lp->req = Request::None;
    int nres = 0;
    LuaProc* const outer = rt.current;
    rt.current = lp;
    const int st = lua_resume(lp->co, nullptr, nargs, &nres);
    rt.current = outer;
    nargs = 0;
    if (st == LUA_OK) {
      process_ended(*lp);
      co_return;
    }
    if (st != LUA_YIELD) {
      const std::string tb = traceback_of(rt, lp->co);
      process_ended(*lp);
      process_failed(*lp, tb);
      co_return;
    }
    lua_pop(lp->co, nres);
    switch (lp->req) {
    case Request::Sync:
      co_await p.sync();
      break;
    case Request::PioRead: {
      uint32_t v = 0;
      co_await node.pio_read_word(p, lp->arg, v);
      lua_pushinteger(lp->co, v);
      nargs = 1;
      break;
    }
    case Request::PioReadReg: {
      uint32_t v = 0;
      co_await node.pio_read_reg(p, lp->arg, v);
      lua_pushinteger(lp->co, v);
      nargs = 1;
      break;
    }
    case Request::WaitMemory:
    case Request::WaitInterrupt: {
      host::WaitList& list = lp->req == Request::WaitMemory ? node.memory_watch() : node.interrupt_watch();
      const uint64_t seen = node.interrupts_delivered();
      const bool memory = lp->req == Request::WaitMemory;
      co_await p.wait(list, [lp, &node, seen, memory] {
        Runtime::Impl& r = *lp->rt;
        if (r.failed()) return false;
        if (!memory) return node.interrupts_delivered() > seen;
        bool result = false;
        std::string error;
        if (!r.call_predicate(lp->pred_ref, result, error)) {
          process_failed(*lp, "in its wait_memory condition: " + error);
          return false;
        }
        return result;
      });
      if (memory) {
        luaL_unref(rt.L, LUA_REGISTRYINDEX, lp->pred_ref);
        lp->pred_ref = LUA_NOREF;
      }
      break;
    }
    case Request::Await: {
      // A protocol library's blocking call (await_op): its exceptions are the caller's
      // Lua error (await_continue raises it when the thread resumes).
      const auto op = std::move(lp->await);
      lp->await = nullptr;
      lp->await_results = 0;
      bool threw = false;
      std::string what;
      try {
        lp->await_results = co_await op(p);
      } catch (const std::exception& e) {
        threw = true;
        what = e.what();
      }
      if (threw) {
        lp->await_error = lp->await_fn + ": " + what;
        lp->await_results = 0;
      }
      nargs = lp->await_results;
      break;
    }
    case Request::None:
      process_ended(*lp);
      process_failed(*lp, "it yielded with coroutine.yield; a process suspends only through "
                          "p:sync(), p:pio_read32(), p:wait_memory() and the like");
      co_return;
    }
  }
}

ProcessUD& process_self(const Args& a) {
  auto& ud = a.self<ProcessUD>(kProcess);
  live_box(a, ud.box);
  if (!ud.proc) a.fail_message("the process was collected");
  return ud;
}

// Timed operations act on the process's clock: only its own function may call them.
LuaProc& own(const Args& a) {
  LuaProc& lp = *process_self(a).proc;
  if (a.state() != lp.co)
    a.fail_message("must be called from the process's own function (not from the main script, "
                   "a wait_memory condition or another coroutine)");
  if (lp.finished) a.fail_message("the process has finished");
  return lp;
}

Node& node_of(LuaProc& lp) { return lp.box->cluster->node(lp.node); }

int p_now_ns(lua_State* L) {
  Args a(L, "Process:now_ns", 1);
  lua_pushnumber(L, ps_to_ns(process_self(a).proc->proc->local()));
  return 1;
}

int p_now_ps(lua_State* L) {
  Args a(L, "Process:now_ps", 1);
  lua_pushinteger(L, process_self(a).proc->proc->local());
  return 1;
}

int p_advance_ns(lua_State* L) {
  Args a(L, "Process:advance_ns", 1);
  LuaProc& lp = own(a);
  lp.proc->advance(a.time_ns(1));
  return 0;
}

void check_sram(const Args& a, LuaProc& lp, uint64_t off, uint64_t len) {
  const uint64_t size = node_of(lp).chip().sram().size();
  if (off > size || len > size - off)
    a.fail(1, "SRAM range [" + std::to_string(off) + ", " + std::to_string(off + len) +
                  ") is outside the chip's " + std::to_string(size) + " bytes");
}

int p_pio_write(lua_State* L) {
  Args a(L, "Process:pio_write", 1);
  LuaProc& lp = own(a);
  const uint32_t off = a.u32(1);
  const std::string s = a.string(2);
  check_sram(a, lp, off, s.size());
  node_of(lp).pio_write(*lp.proc, off,
                        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
  return 0;
}

int p_pio_write32(lua_State* L) {
  Args a(L, "Process:pio_write32", 1);
  LuaProc& lp = own(a);
  const uint32_t off = a.u32(1), v = a.u32(2);
  check_sram(a, lp, off, 4);
  node_of(lp).pio_write_word(*lp.proc, off, v);
  return 0;
}

int p_pio_write_reg(lua_State* L) {
  Args a(L, "Process:pio_write_reg", 1);
  LuaProc& lp = own(a);
  const uint32_t reg = register_offset(a, 1);
  if (reg != vm::regs::HOST_SIG && reg != vm::regs::ISR && reg != vm::regs::EIMR)
    a.fail(1, "the host may write only HOST_SIG, ISR and EIMR");
  node_of(lp).pio_write_reg(*lp.proc, reg, a.u32(2));
  return 0;
}

int p_pio_read32(lua_State* L) {
  Args a(L, "Process:pio_read32", 1);
  LuaProc& lp = own(a);
  const uint32_t off = a.u32(1);
  check_sram(a, lp, off, 4);
  lp.req = Request::PioRead;
  lp.arg = off;
  return kYield;
}

int p_pio_read_reg(lua_State* L) {
  Args a(L, "Process:pio_read_reg", 1);
  LuaProc& lp = own(a);
  lp.req = Request::PioReadReg;
  lp.arg = register_offset(a, 1);
  return kYield;
}

int p_sync(lua_State* L) {
  Args a(L, "Process:sync", 1);
  own(a).req = Request::Sync;
  return kYield;
}

int p_wait_memory(lua_State* L) {
  Args a(L, "Process:wait_memory", 1);
  LuaProc& lp = own(a);
  a.function(1);
  lua_pushvalue(L, a.index(1));
  lp.pred_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lp.req = Request::WaitMemory;
  return kYield;
}

int p_wait_interrupt(lua_State* L) {
  Args a(L, "Process:wait_interrupt", 1);
  own(a).req = Request::WaitInterrupt;
  return kYield;
}

int p_read32(lua_State* L) {
  Args a(L, "Process:read32", 1);
  return host_read32_arg(a, node_of(*process_self(a).proc));
}

int p_write32(lua_State* L) {
  Args a(L, "Process:write32", 1);
  return host_write32_arg(a, node_of(*process_self(a).proc));
}

int p_read(lua_State* L) {
  Args a(L, "Process:read", 1);
  return host_read_arg(a, node_of(*process_self(a).proc));
}

int p_write(lua_State* L) {
  Args a(L, "Process:write", 1);
  return host_write_arg(a, node_of(*process_self(a).proc));
}

int p_node(lua_State* L) {
  Args a(L, "Process:node", 1);
  ProcessUD& ud = process_self(a);
  push_udata<NodeUD>(L, kNode, ud.box, ud.proc->node);
  return 1;
}

int p_name(lua_State* L) {
  Args a(L, "Process:name", 1);
  lua_pushstring(L, process_self(a).proc->name.c_str());
  return 1;
}

int p_done(lua_State* L) {
  Args a(L, "Process:done", 1);
  lua_pushboolean(L, process_self(a).proc->finished);
  return 1;
}

int p_waited_ns(lua_State* L) {
  Args a(L, "Process:waited_ns", 1);
  lua_pushnumber(L, ps_to_ns(process_self(a).proc->proc->waited()));
  return 1;
}

int p_tostring(lua_State* L) {
  auto* p = static_cast<ProcessUD*>(luaL_testudata(L, 1, kProcess));
  if (!p || !p->proc) lua_pushstring(L, "Process(collected)");
  else lua_pushfstring(L, "Process(%s)", p->proc->name.c_str());
  return 1;
}

} // namespace

LuaProc& own_process(const Args& a, int arg) {
  auto& ud = a.udata<ProcessUD>(arg, kProcess);
  live_box(a, ud.box);
  if (!ud.proc) a.fail(arg, "the process was collected");
  LuaProc& lp = *ud.proc;
  if (a.state() != lp.co)
    a.fail(arg, "a blocking call must be made from this process's own function (not from the main "
                "script, a wait_memory condition, a notification handler or another coroutine)");
  if (lp.finished) a.fail(arg, "the process has finished");
  return lp;
}

int await_op(LuaProc& lp, std::string fn, std::function<host::Op<int>(host::Process&)> op) {
  lp.req = Request::Await;
  lp.await = std::move(op);
  lp.await_fn = std::move(fn);
  lp.await_error.clear();
  return kYieldAwait;
}

// Continues a C function that yielded with kYieldAwait: the op's results are on top of the
// stack, or its error is raised here (no C++ object lives in this frame).
int await_continue(lua_State* L, int, lua_KContext) {
  LuaProc* lp = runtime_of(L).current;
  if (lp && !lp->await_error.empty()) {
    luaL_where(L, 1);
    lua_pushlstring(L, lp->await_error.data(), lp->await_error.size());
    lp->await_error.clear();
    lua_concat(L, 2);
    return lua_error(L);
  }
  return lp ? lp->await_results : 0;
}

uint32_t register_offset(const Args& a, int arg) {
  lua_State* L = a.state();
  if (lua_type(L, a.index(arg)) == LUA_TSTRING) {
    const std::string name = a.string(arg);
    for (const auto& r : vm::regs::kRegisterNames)
      if (name == r.name) return r.offset;
    a.fail(arg, "no register named '" + name + "' (ISR, EIMR, HOST_SIG, RTC, ...)");
  }
  const uint32_t off = uint32_t(a.integer_in(arg, 0, 0x1FF, "a register name or offset (0..0x1FF)"));
  if (off % 4) a.fail(arg, "register offsets are multiples of 4");
  return off;
}

// c:spawn(node_or_index, name, fn [, start_ns]) -> Process
int spawn_process(lua_State* L) {
  Args a(L, "Cluster:spawn", 1);
  auto& cud = a.self<ClusterUD>(kCluster);
  ClusterBox& box = live_box(a, cud.box);
  uint32_t index = 0;
  if (lua_type(L, a.index(1)) == LUA_TUSERDATA) {
    auto& nd = a.udata<NodeUD>(1, kNode);
    if (nd.box.get() != &box) a.fail(1, "the node belongs to another cluster");
    index = nd.index;
  } else {
    const uint32_t n = box.cluster->size();
    index = uint32_t(a.integer_in(1, 0, int64_t(n) - 1, ("a Node or a node index in 0.." + std::to_string(n - 1)).c_str()));
  }
  const std::string name = a.string(2);
  a.function(3);
  const Time at = a.opt_time_ns(4).value_or(0);

  auto lp = std::make_shared<LuaProc>();
  lp->rt = &runtime_of(L);
  lp->box = &box;
  lp->node = index;
  lp->name = box.cluster->node(index).name() + "." + name;
  lp->co = lua_newthread(L);
  lp->co_ref = luaL_ref(L, LUA_REGISTRYINDEX); // pops the thread
  lua_pushvalue(L, a.index(3));
  lua_xmove(L, lp->co, 1);
  push_udata<ProcessUD>(L, kProcess, cud.box, lp);
  lua_pushvalue(L, -1);
  lua_xmove(L, lp->co, 1); // fn(p)
  box.procs.push_back(lp);
  ++box.live_procs;
  LuaProc* raw = lp.get();
  lp->proc = &box.cluster->node(index).spawn(name, [raw](host::Process& p) { return lua_body(p, raw); }, at);
  return 1;
}

void open_process(lua_State* L) {
  static const luaL_Reg methods[] = {
      {"now_ns", wrap<p_now_ns>},
      {"now_ps", wrap<p_now_ps>},
      {"advance_ns", wrap<p_advance_ns>},
      {"pio_write", wrap<p_pio_write>},
      {"pio_write32", wrap<p_pio_write32>},
      {"pio_write_reg", wrap<p_pio_write_reg>},
      {"pio_read32", wrap<p_pio_read32>},
      {"pio_read_reg", wrap<p_pio_read_reg>},
      {"sync", wrap<p_sync>},
      {"wait_memory", wrap<p_wait_memory>},
      {"wait_interrupt", wrap<p_wait_interrupt>},
      {"read32", wrap<p_read32>},
      {"write32", wrap<p_write32>},
      {"read", wrap<p_read>},
      {"write", wrap<p_write>},
      {"node", wrap<p_node>},
      {"name", wrap<p_name>},
      {"done", wrap<p_done>},
      {"waited_ns", wrap<p_waited_ns>},
      {nullptr, nullptr},
  };
  new_type(L, kProcess, methods, gc_udata<ProcessUD>, p_tostring);
}

} // namespace lanaikit::sim::lua
