// What the binding files share: the runtime's state (Runtime::Impl), the userdata types
// and their metatable names, and the wrapper every C function goes through.
#pragma once

#include "lua/check.h"
#include "lua/firmware_cache.h"
#include "lua/runtime.h"

#include "assembler/image.h"
#include "host/model/process.h"
#include "sim/cluster.h"
#include "sim/observable_trace.h"

#include <lua.hpp>

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

namespace lanaikit::sim::lua {

struct ClusterBox;
struct LuaProc;

// Metatable names (also what messages call the types).
inline constexpr const char* kFirmware = "Firmware";
inline constexpr const char* kCluster = "Cluster";
inline constexpr const char* kNode = "Node";
inline constexpr const char* kLink = "Link";
inline constexpr const char* kProcess = "Process";
inline constexpr const char* kRng = "Rng";

struct Runtime::Impl {
  Options opt;
  lua_State* L = nullptr;
  // A thread for Lua calls made from inside the simulation (wait predicates, tracebacks of
  // failed processes): never the main thread, whose stack belongs to the script.
  lua_State* aux = nullptr;
  bool closing = false;
  std::string script_dir;
  std::chrono::steady_clock::time_point wall_start = std::chrono::steady_clock::now();

  // The first failure (a process error or a limit) sticks: later c:run calls raise it
  // again, and `lanaikit run` reports it even if the script caught the error.
  Outcome::Kind failure_kind = Outcome::Ok;
  std::string failure;
  bool failed() const { return failure_kind != Outcome::Ok; }
  void fail(Outcome::Kind kind, std::string message) {
    if (failed()) return;
    failure_kind = kind;
    failure = std::move(message);
  }
  // Checks the wall clock; past the limit, records the limit failure (with every chip's
  // state) and returns true.
  bool wall_exceeded();
  // "where the chips are" for limit messages: every live cluster's chips.
  std::string chip_reports() const;
  void stop_all_kernels();

  // c:run: events and batches between readings of the wall clock (adapts to ~50 ms).
  uint64_t steps = 0;

  std::unique_ptr<FirmwareCache> cache;
  FirmwareCache& firmware_cache();

  // Clusters in creation order; a dead one leaves its final trace hash.
  struct ClusterRecord {
    std::weak_ptr<ClusterBox> box;
    uint64_t final_hash = 0;
    uint64_t observable_hash = 0, observable_records = 0; // when it was observed and is gone
  };
  std::vector<ClusterRecord> clusters;
  uint64_t trace_hash() const;
  // lk.observe(): every cluster created from then on (index >= observe_from) carries an
  // observable trace; lk.observable() folds theirs.
  std::optional<size_t> observe_from;

  LuaProc* current = nullptr; // the Lua process running now, if any
  uint64_t resumes = 0;       // process resumptions (the wall clock is checked every 256)

  // Calls the function in the registry at `ref` on the aux thread, no arguments, one
  // result; false with `error` set (message and traceback) if it raised an error.
  bool call_predicate(int ref, bool& result, std::string& error);
};

Runtime::Impl& runtime_of(lua_State* L);

// One simulated cluster and the Lua processes on it. Owned by the Lua values that refer to
// it (Cluster, Node, Link, Process userdata hold shared_ptrs), so a Node keeps its cluster.
struct ClusterBox {
  Runtime::Impl* rt = nullptr;
  size_t id = 0; // index in rt->clusters
  std::unique_ptr<Cluster> cluster;
  Platform platform; // what the cluster was built from (protocol libraries read its costs)
  std::unique_ptr<ObservableTrace> observable; // Cluster:observe (goes before the cluster)
  std::vector<std::shared_ptr<LuaProc>> procs;
  size_t live_procs = 0;
  bool running = false;
  bool stop_requested = false;
  bool stop_when_done = true;
  ~ClusterBox();
};

// A Lua process: a Lua thread driven by a host::Process (lua/process.cpp).
// Await: a protocol library's blocking call (a host::Op) made from Lua; see await_op below.
enum class Request { None, Sync, PioRead, PioReadReg, WaitMemory, WaitInterrupt, Await };
struct LuaProc {
  Runtime::Impl* rt = nullptr;
  ClusterBox* box = nullptr; // owns this
  uint32_t node = 0;
  std::string name;
  host::Process* proc = nullptr;
  lua_State* co = nullptr;
  int co_ref = LUA_NOREF;
  Request req = Request::None;
  uint32_t arg = 0;
  int pred_ref = LUA_NOREF;
  bool finished = false;
  // Request::Await: the op to await; it pushes its results onto `co` and returns their
  // count. An exception it throws becomes a Lua error at the call, "await_fn: what()".
  std::function<host::Op<int>(host::Process&)> await;
  std::string await_fn;
  std::string await_error;
  int await_results = 0;
  ~LuaProc();
};

// ---- userdata ----------------------------------------------------------------------------

struct FirmwareUD {
  std::shared_ptr<const assembler::FirmwareImage> image;
  std::string label; // sources, for tostring
};
struct ClusterUD {
  std::shared_ptr<ClusterBox> box;
};
struct NodeUD {
  std::shared_ptr<ClusterBox> box;
  uint32_t index = 0;
};
struct LinkUD {
  std::shared_ptr<ClusterBox> box;
  net::Link* link = nullptr;
};
struct ProcessUD {
  std::shared_ptr<ClusterBox> box;
  std::shared_ptr<LuaProc> proc;
};

// Building result tables: t[key] = v for the table on top of the stack.
inline void set_int(lua_State* L, const char* key, int64_t v) {
  lua_pushinteger(L, lua_Integer(v));
  lua_setfield(L, -2, key);
}
inline void set_number(lua_State* L, const char* key, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, key);
}

template <class T, class... A> T& push_udata(lua_State* L, const char* tname, A&&... a) {
  void* mem = lua_newuserdatauv(L, sizeof(T), 0);
  T* t = new (mem) T{std::forward<A>(a)...};
  luaL_setmetatable(L, tname);
  return *t;
}

// __gc: destroys the C++ value and leaves an empty one, so a method called on a finalized
// value (possible while the state closes) finds nothing instead of freed memory.
template <class T> int gc_udata(lua_State* L) {
  if (void* p = lua_touserdata(L, 1)) {
    static_cast<T*>(p)->~T();
    new (p) T{};
  }
  return 0;
}

// The return value of a C function that wants to yield its coroutine (blocking process
// operations): the wrapper calls lua_yield after every C++ object of the call is gone.
inline constexpr int kYield = -1;
// Likewise for Request::Await: the wrapper yields with await_continue as the continuation,
// which returns the op's results or raises its error in the calling process.
inline constexpr int kYieldAwait = -2;
int await_continue(lua_State* L, int status, lua_KContext ctx);

// Every lua_CFunction of the API goes through this: C++ exceptions become Lua errors
// carrying the caller's position ("script.lua:12: lk.cluster: ..."), raised only after the
// function's C++ frames are gone (a Lua error is a longjmp).
template <int (*F)(lua_State*)> int wrap(lua_State* L) {
  int r = 0;
  bool err = false;
  try {
    r = F(L);
  } catch (const std::exception& e) {
    // F may have filled its stack; the error is all that is left of the call, and an empty
    // frame still has its LUA_MINSTACK slots for the message.
    lua_settop(L, 0);
    luaL_where(L, 1);
    lua_pushstring(L, e.what());
    lua_concat(L, 2);
    err = true;
  }
  if (err) return lua_error(L);
  if (r == kYield) return lua_yield(L, 0);
  if (r == kYieldAwait) return lua_yieldk(L, 0, 0, await_continue);
  return r;
}

// Registers a metatable `tname` with methods (its __index) and __gc for T.
void new_type(lua_State* L, const char* tname, const luaL_Reg* methods, lua_CFunction gc,
              lua_CFunction tostring);

// Adds `methods` to the __index table of an existing type (a module extending another's).
inline void extend(lua_State* L, const char* tname, const luaL_Reg* methods) {
  luaL_getmetatable(L, tname);
  lua_getfield(L, -1, "__index");
  luaL_setfuncs(L, methods, 0);
  lua_pop(L, 2);
}

// The binding modules; each adds its functions to the lk table on top of the stack.
void open_platform(lua_State* L);
void open_firmware(lua_State* L);
void open_cluster(lua_State* L);
void open_process(lua_State* L);
void open_rng(lua_State* L);
void open_results(lua_State* L);
void open_instruments(lua_State* L); // after open_cluster: extends Cluster and Node
void open_view(lua_State* L);        // after open_firmware and open_cluster: fw:ref, node:peek, ...

// Shared between modules.
ClusterBox& live_box(const Args& a, const std::shared_ptr<ClusterBox>& box);
// `self` of a method: the live cluster, the node (and its userdata), the firmware's image.
ClusterBox& cluster_self(const Args& a);
Node& node_self(const Args& a, NodeUD** out = nullptr);
const assembler::FirmwareImage& image_of(const Args& a);
int spawn_process(lua_State* L); // Cluster:spawn
// A blocking call of a protocol binding (lk.vmmc, ...), made from a process's own function:
// `own_process` checks that argument `arg` is the calling process (a Process, not finished,
// called from its own function); `await_op` records the request. Return its result from
// the C function: the process's body awaits `op` and resumes the Lua thread with the values
// `op` pushed (or raises "fn: error" there).
LuaProc& own_process(const Args& a, int arg);
int await_op(LuaProc& lp, std::string fn, std::function<host::Op<int>(host::Process&)> op);
uint32_t register_offset(const Args& a, int arg); // "ISR" or an offset
std::string us_text(Time t);
// Host memory access shared by Node and Process (lua/cluster.cpp).
int host_read32_arg(const Args& a, Node& n);
int host_write32_arg(const Args& a, Node& n);
int host_read_arg(const Args& a, Node& n);
int host_write_arg(const Args& a, Node& n);

} // namespace lanaikit::sim::lua
