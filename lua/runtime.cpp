#include "lua/internal.h"
#include "lua/protocols.h"

#include "assembler/locations.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

namespace lanaikit::sim::lua {

namespace {

constexpr int kHookInstructions = 100000; // Lua instructions between wall-clock checks

Runtime::Impl*& impl_slot(lua_State* L) {
  return *static_cast<Runtime::Impl**>(lua_getextraspace(L));
}

// The message handler of every protected call: the message and a traceback.
int traceback(lua_State* L) {
  const char* msg = lua_tostring(L, 1);
  if (!msg) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) msg = lua_tostring(L, -1);
    else msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}

// Every kHookInstructions Lua instructions in any thread: the wall-clock limit.
void hook(lua_State* L, lua_Debug*) {
  Runtime::Impl& rt = runtime_of(L);
  if (rt.wall_exceeded()) luaL_error(L, "stopped: %s", "the wall-clock limit was reached");
}

// Several clusters' hashes folded into one value for the run: FNV-1a over each hash's
// bytes, low byte first.
class HashFold {
public:
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) h_ = (h_ ^ ((v >> (8 * i)) & 0xff)) * 0x100000001b3ull;
  }
  uint64_t value() const { return h_; }

private:
  uint64_t h_ = 0xcbf29ce484222325ull;
};

int lk_observe(lua_State* L) {
  Args a(L, "lk.observe", 0);
  Runtime::Impl& rt = runtime_of(L);
  rt.observe_from = rt.clusters.size();
  return 0;
}

// The observable traces of the clusters created since lk.observe(), folded in creation
// order: a hash (integer) and the number of records.
int lk_observable(lua_State* L) {
  Args a(L, "lk.observable", 0);
  Runtime::Impl& rt = runtime_of(L);
  if (!rt.observe_from) a.fail_message("call lk.observe() first");
  HashFold h;
  uint64_t records = 0;
  for (size_t i = *rt.observe_from; i < rt.clusters.size(); ++i) {
    const auto& rec = rt.clusters[i];
    auto box = rec.box.lock();
    const bool live = box && box->observable;
    h.u64(live ? box->observable->hash() : rec.observable_hash);
    records += live ? box->observable->records() : rec.observable_records;
  }
  lua_pushinteger(L, lua_Integer(h.value()));
  lua_pushinteger(L, lua_Integer(records));
  return 2;
}

int lk_trace_hash(lua_State* L) {
  lua_pushinteger(L, lua_Integer(runtime_of(L).trace_hash()));
  return 1;
}

// lk.list_dir(path) -> the names in a directory, sorted (no "." or ".."); relative paths
// are the working directory's. Scripts find things by convention (lua-scripts/<p>/headline.lua)
// without a shell.
int lk_list_dir(lua_State* L) {
  Args a(L, "lk.list_dir");
  namespace fs = std::filesystem;
  fs::path dir = a.string(1);
  std::error_code ec;
  std::vector<std::string> names;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    names.push_back(it->path().filename().string());
  if (ec) a.fail(1, "cannot list '" + dir.string() + "': " + ec.message());
  std::sort(names.begin(), names.end());
  lua_createtable(L, int(names.size()), 0);
  lua_Integer i = 0;
  for (const std::string& n : names) {
    lua_pushlstring(L, n.data(), n.size());
    lua_rawseti(L, -2, ++i);
  }
  return 1;
}

int lk_firmware_cache_stats(lua_State* L) {
  Runtime::Impl& rt = runtime_of(L);
  lua_createtable(L, 0, 2);
  lua_pushinteger(L, lua_Integer(rt.firmware_cache().hits()));
  lua_setfield(L, -2, "hits");
  lua_pushinteger(L, lua_Integer(rt.firmware_cache().misses()));
  lua_setfield(L, -2, "misses");
  return 1;
}

int lk_require(lua_State* L) {
  lua_getfield(L, LUA_REGISTRYINDEX, "lanaikit.lk");
  return 1;
}

} // namespace

Runtime::Impl& runtime_of(lua_State* L) { return *impl_slot(L); }

std::string us_text(Time t) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f us", double(t) / double(kMicrosecond));
  return buf;
}

void new_type(lua_State* L, const char* tname, const luaL_Reg* methods, lua_CFunction gc,
              lua_CFunction tostring) {
  luaL_newmetatable(L, tname);
  lua_newtable(L);
  luaL_setfuncs(L, methods, 0);
  lua_setfield(L, -2, "__index");
  if (gc) {
    lua_pushcfunction(L, gc);
    lua_setfield(L, -2, "__gc");
  }
  if (tostring) {
    lua_pushcfunction(L, tostring);
    lua_setfield(L, -2, "__tostring");
  }
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable"); // scripts cannot swap our metatables
  lua_pop(L, 1);
}

Options Options::defaults() {
  Options o;
  const assembler::Locations& l = assembler::locations();
  o.source_dir = l.data_dir;
  o.crt0 = l.crt0;
  o.runtime_objects = l.runtime_objects;
  o.cache_dir = l.cache_dir;
  return o;
}

// ---- Impl ---------------------------------------------------------------------------------

bool Runtime::Impl::wall_exceeded() {
  if (failure_kind == Outcome::Limit) return true;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (s <= opt.wall_limit_s) return false;
  char head[128];
  std::snprintf(head, sizeof head, "the wall-clock limit of %g s was reached (--wall-limit-s)",
                opt.wall_limit_s);
  // A limit outranks any earlier failure: it is what stopped the run. Dozing chips are
  // brought to now first (c:run settles them only when it ends), so the report says where
  // they are.
  failure_kind = Outcome::Limit;
  for (auto& rec : clusters)
    if (auto box = rec.box.lock(); box && box->cluster) box->cluster->kernel().settle();
  failure = std::string(head) + chip_reports();
  stop_all_kernels();
  return true;
}

std::string Runtime::Impl::chip_reports() const {
  std::string out;
  for (size_t i = 0; i < clusters.size(); ++i) {
    auto box = clusters[i].box.lock();
    if (!box || !box->cluster) continue;
    Cluster& c = *box->cluster;
    out += "\ncluster " + std::to_string(i + 1) + " at simulated time " + us_text(c.kernel().now()) +
           "; where the chips are:\n";
    for (uint32_t n = 0; n < c.size(); ++n) out += c.node(n).report();
  }
  return out;
}

void Runtime::Impl::stop_all_kernels() {
  for (auto& rec : clusters)
    if (auto box = rec.box.lock(); box && box->cluster && box->running) box->cluster->kernel().stop();
}

FirmwareCache& Runtime::Impl::firmware_cache() {
  if (!cache) cache = std::make_unique<FirmwareCache>(opt.cache_dir, FirmwareCache::default_build_id());
  return *cache;
}

uint64_t Runtime::Impl::trace_hash() const {
  std::vector<uint64_t> hashes;
  for (const auto& rec : clusters) {
    auto box = rec.box.lock();
    hashes.push_back(box && box->cluster ? box->cluster->kernel().trace_hash() : rec.final_hash);
  }
  if (hashes.empty()) return 0;
  if (hashes.size() == 1) return hashes[0];
  HashFold h;
  for (uint64_t v : hashes) h.u64(v);
  return h.value();
}

bool Runtime::Impl::call_predicate(int ref, bool& result, std::string& error) {
  lua_State* A = aux;
  const int base = lua_gettop(A);
  lua_pushcfunction(A, traceback);
  lua_rawgeti(A, LUA_REGISTRYINDEX, ref);
  const int st = lua_pcall(A, 0, 1, base + 1);
  if (st != LUA_OK) {
    error = lua_tostring(A, -1) ? lua_tostring(A, -1) : "(error object is not a string)";
    lua_settop(A, base);
    return false;
  }
  result = lua_toboolean(A, -1) != 0;
  lua_settop(A, base);
  return true;
}

ClusterBox::~ClusterBox() {
  if (cluster && rt && !rt->closing && id < rt->clusters.size())
    rt->clusters[id].final_hash = cluster->kernel().trace_hash();
  if (observable && rt && !rt->closing && id < rt->clusters.size()) {
    rt->clusters[id].observable_hash = observable->hash();
    rt->clusters[id].observable_records = observable->records();
  }
  observable.reset(); // it watches the cluster's links and chips
  cluster.reset(); // the processes (and their coroutine frames) go first
  procs.clear();
}

LuaProc::~LuaProc() {
  if (rt && !rt->closing && rt->L) {
    luaL_unref(rt->L, LUA_REGISTRYINDEX, co_ref);
    luaL_unref(rt->L, LUA_REGISTRYINDEX, pred_ref);
  }
}

// ---- Runtime ------------------------------------------------------------------------------

Runtime::Runtime(Options options) : impl_(std::make_unique<Impl>()) {
  Impl& rt = *impl_;
  rt.opt = std::move(options);
  rt.steps = rt.opt.first_steps > 0 ? rt.opt.first_steps : 1;
  rt.L = luaL_newstate();
  if (!rt.L) throw std::runtime_error("cannot create a Lua state");
  lua_State* L = rt.L;
  impl_slot(L) = &rt; // threads copy the main thread's extra space
  luaL_openlibs(L);
  rt.aux = lua_newthread(L);
  lua_setfield(L, LUA_REGISTRYINDEX, "lanaikit.aux");

  lua_newtable(L); // lk
  open_platform(L);
  open_firmware(L);
  open_cluster(L);
  open_process(L);
  open_rng(L);
  open_results(L);
  open_instruments(L);
  open_view(L);
  for (const ProtocolBinding& b : protocol_bindings()) b.open(L); // lk.vmmc, ... (lua/protocols.h)
  static const luaL_Reg fns[] = {
      {"trace_hash", wrap<lk_trace_hash>},
      {"observe", wrap<lk_observe>},
      {"observable", wrap<lk_observable>},
      {"list_dir", wrap<lk_list_dir>},
      {"firmware_cache_stats", wrap<lk_firmware_cache_stats>},
      {nullptr, nullptr},
  };
  luaL_setfuncs(L, fns, 0);
  lua_pushstring(L, "1");
  lua_setfield(L, -2, "api_version");
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, "lanaikit.lk");
  lua_setglobal(L, "lk");

  // require "lanaikit" returns lk.
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "preload");
  lua_pushcfunction(L, lk_require);
  lua_setfield(L, -2, "lanaikit");
  lua_pop(L, 1);
  if (!rt.opt.source_dir.empty()) {
    // lua-scripts/lib/x.lua as require "x" or require "lib.x".
    lua_getfield(L, -1, "path");
    const std::string dir = rt.opt.source_dir + "/lua-scripts/";
    const std::string path = dir + "lib/?.lua;" + dir + "?.lua;" + (lua_tostring(L, -1) ? lua_tostring(L, -1) : "");
    lua_pop(L, 1);
    lua_pushstring(L, path.c_str());
    lua_setfield(L, -2, "path");
  }
  lua_pop(L, 1);
  // Threads inherit the hook from the thread that creates them; the aux thread exists
  // already.
  lua_sethook(L, hook, LUA_MASKCOUNT, kHookInstructions);
  lua_sethook(rt.aux, hook, LUA_MASKCOUNT, kHookInstructions);
}

Runtime::~Runtime() {
  impl_->closing = true;
  if (impl_->L) lua_close(impl_->L);
  impl_->L = nullptr;
}

lua_State* Runtime::state() { return impl_->L; }
const Options& Runtime::options() const { return impl_->opt; }
uint64_t Runtime::trace_hash() const { return impl_->trace_hash(); }

CacheStats Runtime::cache_stats() const {
  CacheStats s;
  if (impl_->cache) {
    s.hits = impl_->cache->hits();
    s.misses = impl_->cache->misses();
  }
  return s;
}

namespace {

Outcome finish(Runtime::Impl& rt, int status) {
  lua_State* L = rt.L;
  Outcome out;
  std::string error;
  if (status != LUA_OK) error = lua_tostring(L, -1) ? lua_tostring(L, -1) : "(error)";
  lua_settop(L, 0);
  if (rt.failed()) {
    // The run's own failure (a process error or a limit) comes first; the script's
    // traceback, if it stopped, says where the script was.
    out.kind = rt.failure_kind;
    out.status = rt.failure_kind == Outcome::Limit ? 3 : 1;
    out.message = rt.failure;
    if (!error.empty()) {
      // The script's own traceback, without the message it repeats.
      const size_t tb = error.rfind("stack traceback:");
      if (error.find(rt.failure) == std::string::npos) out.message += "\n" + error;
      else if (tb != std::string::npos) out.message += "\nthe script was at:\n" + error.substr(tb);
    }
    return out;
  }
  if (status != LUA_OK) {
    out.kind = Outcome::ScriptError;
    out.status = 1;
    out.message = error;
  }
  return out;
}

} // namespace

Outcome Runtime::run_file(const std::string& path, const std::vector<std::string>& args) {
  Impl& rt = *impl_;
  lua_State* L = rt.L;
  rt.script_dir = std::filesystem::path(path).parent_path().string();
  if (rt.script_dir.empty()) rt.script_dir.push_back('.');
  lua_createtable(L, int(args.size()), 1);
  lua_pushstring(L, path.c_str());
  lua_rawseti(L, -2, 0);
  for (size_t i = 0; i < args.size(); ++i) {
    lua_pushstring(L, args[i].c_str());
    lua_rawseti(L, -2, lua_Integer(i + 1));
  }
  lua_setglobal(L, "arg");
  // The script's own directory for its require()s.
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "path");
  const std::string p = rt.script_dir + "/?.lua;" + lua_tostring(L, -1);
  lua_pop(L, 1);
  lua_pushstring(L, p.c_str());
  lua_setfield(L, -2, "path");
  lua_pop(L, 1);

  lua_pushcfunction(L, traceback);
  if (luaL_loadfilex(L, path.c_str(), "t") != LUA_OK) return finish(rt, LUA_ERRSYNTAX);
  for (const auto& a : args) lua_pushstring(L, a.c_str());
  return finish(rt, lua_pcall(L, int(args.size()), 0, 1));
}

Outcome Runtime::run_string(const std::string& source, const std::string& chunkname) {
  Impl& rt = *impl_;
  lua_State* L = rt.L;
  if (rt.script_dir.empty()) rt.script_dir.push_back('.');
  lua_pushcfunction(L, traceback);
  const std::string name = "@" + chunkname;
  if (luaL_loadbufferx(L, source.data(), source.size(), name.c_str(), "t") != LUA_OK)
    return finish(rt, LUA_ERRSYNTAX);
  return finish(rt, lua_pcall(L, 0, 0, 1));
}

} // namespace lanaikit::sim::lua
