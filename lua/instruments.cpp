// The instruments from Lua: the profiler (c:profile), timelines and captures
// (c:timeline), utilisation (c:utilisation) and the debugger (node:debugger).
// docs/scripting.md ("Instruments") documents them; docs/profiling.md what they measure.
#include "lua/internal.h"

#include "isa/inst.h"

#include "sim/message_trace.h"
#include "sim/profile_report.h"
#include "sim/timeline.h"
#include "sim/utilisation.h"
#include "vm/debugger.h"
#include "vm/profiler.h"

#include <fstream>

namespace lanaikit::sim::lua {

namespace {

inline constexpr const char* kProfile = "Profile";
inline constexpr const char* kTimeline = "Timeline";
inline constexpr const char* kDebugger = "Debugger";

const char* instrument_kind(const vm::Instrument* ins) {
  return dynamic_cast<const vm::Debugger*>(ins) ? "a debugger" : "a profiler";
}

// A chip has one instrument. A newer profile replaces an older one (its counts stop; a
// script re-profiling a chip needs no detach), but a debugger and a profiler do not
// replace each other silently: the profile would stop counting, or the breakpoints stop
// breaking, without a word.
void attach(const Args& a, vm::Chip& chip, vm::Instrument* ins) {
  if (chip.paused()) a.fail_message(chip.name() + " is paused at a break: continue or detach its debugger first");
  if (const vm::Instrument* old = chip.instrument()) {
    const bool old_dbg = dynamic_cast<const vm::Debugger*>(old) != nullptr;
    const bool new_dbg = dynamic_cast<const vm::Debugger*>(ins) != nullptr;
    if (old_dbg || new_dbg)
      a.fail_message(chip.name() + " already has " + instrument_kind(old) + " attached: " +
                     "one instrument per chip (detach it first: prof:detach() or d:detach())");
  }
  chip.set_instrument(ins);
}

// ---- the profiler ---------------------------------------------------------------------------

struct ProfileUD {
  ProfileUD() = default;
  ProfileUD(std::shared_ptr<ClusterBox> b, std::shared_ptr<const assembler::FirmwareImage> i)
      : box(std::move(b)), image(std::move(i)) {}
  std::shared_ptr<ClusterBox> box;
  std::shared_ptr<const assembler::FirmwareImage> image;
  std::vector<std::unique_ptr<vm::Profiler>> per_node; // null where not profiled
  void detach() {
    if (!box || !box->cluster) return;
    for (uint32_t i = 0; i < per_node.size(); ++i) {
      vm::Chip& chip = box->cluster->node(i).chip();
      // Only if it is still ours: a profile collected after a newer one was attached to
      // the same chip must not take that one away.
      if (per_node[i] && !chip.paused() && chip.instrument() == per_node[i].get())
        chip.set_instrument(nullptr);
    }
  }
  ~ProfileUD() { detach(); }
};

std::shared_ptr<const assembler::FirmwareImage> firmware_of(const Args& a, const TableArg& t) {
  if (t.push("firmware") != LUA_TUSERDATA) {
    lua_pop(a.state(), 1);
    t.fail("firmware", "expected a Firmware (from lk.firmware)");
  }
  auto* fw = static_cast<FirmwareUD*>(luaL_testudata(a.state(), -1, kFirmware));
  lua_pop(a.state(), 1);
  if (!fw) t.fail("firmware", "expected a Firmware (from lk.firmware)");
  if (!fw->image) t.fail("firmware", "the firmware was collected");
  return fw->image;
}

std::vector<uint32_t> nodes_of(const TableArg& t, const ClusterBox& box) {
  std::vector<uint32_t> out;
  if (const auto list = t.opt_integers("nodes")) {
    for (int64_t n : *list) {
      if (n < 0 || n >= int64_t(box.cluster->size()))
        t.fail("nodes", "node " + std::to_string(n) + " is not in the cluster (0.." +
                            std::to_string(box.cluster->size() - 1) + ")");
      out.push_back(uint32_t(n));
    }
  } else {
    for (uint32_t i = 0; i < box.cluster->size(); ++i) out.push_back(i);
  }
  return out;
}

// Argument `arg` as a code location in `image`: an address, a symbol, or "file:line".
uint32_t location_arg(const Args& a, const assembler::FirmwareImage& image, int arg) {
  if (lua_type(a.state(), a.index(arg)) == LUA_TNUMBER) return a.u32(arg);
  const std::string loc = a.string(arg);
  const auto at = image.resolve_location(loc);
  if (!at)
    a.fail(arg, "no symbol '" + loc + "' in the firmware (a location is an address, a symbol or FILE:LINE of a -g build)");
  return *at;
}

// c:profile{ firmware = fw, handlers = {"raw_send", ...}, nodes = {0, 1},
//            traps = {"udm_fast_table", ...}, max_invocations = N } -> Profile
// traps: trap tables (symbols); each of a table's vectors is a handler named
// "<table>[<cause>]" whose invocations are the kernel's episodes from the vector to the
// return to user mode (vm::Profiler::add_trap_vector).
int c_profile(lua_State* L) {
  Args a(L, "Cluster:profile", 1);
  auto& cud = a.self<ClusterUD>(kCluster);
  ClusterBox& box = live_box(a, cud.box);
  TableArg t = a.table(1);
  t.only({"firmware", "handlers", "nodes", "traps", "max_invocations"});
  auto image = firmware_of(a, t);
  std::vector<std::string> handlers;
  if (const auto h = t.opt_strings("handlers")) handlers = *h;
  else handlers = image->layout_table.handlers;
  std::vector<std::pair<std::string, uint32_t>> entries;
  for (const auto& h : handlers) {
    const auto at = image->symbol(h);
    if (!at) t.fail("handlers", "no symbol '" + h + "' in the firmware");
    entries.emplace_back(h, *at);
  }
  std::vector<std::pair<std::string, uint32_t>> vectors;
  if (const auto tables = t.opt_strings("traps"))
    for (const auto& table : *tables) {
      const auto at = image->symbol(table);
      if (!at) t.fail("traps", "no symbol '" + table + "' in the firmware");
      if (*at % (vm::cpuctl::kCauses * vm::cpuctl::kVectorBytes))
        t.fail("traps", "'" + table + "' is not a trap table (not 1 KB aligned)");
      for (uint32_t cause = 0; cause < vm::cpuctl::kCauses; ++cause)
        vectors.emplace_back(table + "[" + std::to_string(cause) + "]", *at + cause * vm::cpuctl::kVectorBytes);
    }
  const auto nodes = nodes_of(t, box);
  const auto max_inv = t.opt_positive("max_invocations");
  auto& ud = push_udata<ProfileUD>(L, kProfile, cud.box, image);
  ud.per_node.resize(box.cluster->size());
  for (uint32_t n : nodes) {
    vm::Chip& chip = box.cluster->node(n).chip();
    auto prof = std::make_unique<vm::Profiler>(chip.cpu(), [&chip] { return chip.local_time(); });
    prof->set_dma_busy([&chip] { return chip.dma_busy(); });
    if (max_inv) prof->set_max_invocations(*max_inv);
    for (const auto& [name, at] : entries) prof->add_handler(name, at);
    try {
      for (const auto& [name, at] : vectors) prof->add_trap_vector(name, at);
    } catch (const std::invalid_argument& e) { // a vector that is also a handler's entry
      t.fail("traps", e.what());
    }
    attach(a, chip, prof.get());
    ud.per_node[n] = std::move(prof);
  }
  return 1;
}

ProfileUD& profile_self(const Args& a) {
  auto& ud = a.self<ProfileUD>(kProfile);
  if (!ud.box) a.fail_message("the profile was collected");
  return ud;
}

const vm::Profiler& profiler_arg(const Args& a, ProfileUD& ud, int arg) {
  const int64_t n = a.integer(arg);
  if (n < 0 || n >= int64_t(ud.per_node.size()) || !ud.per_node[size_t(n)])
    a.fail(arg, "node " + std::to_string(n) + " is not profiled");
  return *ud.per_node[size_t(n)];
}

void push_distribution(lua_State* L, const vm::Distribution& d, double scale = 1.0) {
  lua_createtable(L, 0, 6);
  lua_pushinteger(L, int64_t(d.count));
  lua_setfield(L, -2, "count");
  auto num = [&](const char* k, uint64_t v) {
    if (scale == 1.0) lua_pushinteger(L, int64_t(v));
    else lua_pushnumber(L, double(v) * scale);
    lua_setfield(L, -2, k);
  };
  num("min", d.min);
  num("median", d.median);
  num("p99", d.p99);
  num("max", d.max);
  lua_pushnumber(L, d.mean * scale);
  lua_setfield(L, -2, "mean");
  lua_createtable(L, int(d.log2_histogram.size()), 0);
  for (size_t i = 0; i < d.log2_histogram.size(); ++i) {
    lua_pushinteger(L, int64_t(d.log2_histogram[i]));
    lua_rawseti(L, -2, lua_Integer(i + 1));
  }
  lua_setfield(L, -2, "log2_histogram");
}

// prof:summary(node) -> { {name=, calls=, insns={...}, cycles={...}, stall_cycles={...},
//                          dma_wait_cycles={...}, duration_ns={...}}, ... }
int p_summary(lua_State* L) {
  Args a(L, "Profile:summary", 1);
  ProfileUD& ud = profile_self(a);
  const auto sums = profiler_arg(a, ud, 1).summaries();
  lua_createtable(L, int(sums.size()), 0);
  for (size_t i = 0; i < sums.size(); ++i) {
    const auto& s = sums[i];
    lua_createtable(L, 0, 7);
    lua_pushstring(L, s.name.c_str());
    lua_setfield(L, -2, "name");
    lua_pushinteger(L, int64_t(s.instructions.count));
    lua_setfield(L, -2, "calls");
    push_distribution(L, s.instructions);
    lua_setfield(L, -2, "insns");
    push_distribution(L, s.cycles);
    lua_setfield(L, -2, "cycles");
    push_distribution(L, s.stall_cycles);
    lua_setfield(L, -2, "stall_cycles");
    push_distribution(L, s.dma_wait_cycles);
    lua_setfield(L, -2, "dma_wait_cycles");
    push_distribution(L, s.duration_ps, 1e-3);
    lua_setfield(L, -2, "duration_ns");
    lua_rawseti(L, -2, lua_Integer(i + 1));
  }
  return 1;
}

// prof:report(node [, top]) -> text (handler table, top functions, hottest lines)
int p_report(lua_State* L) {
  Args a(L, "Profile:report", 1);
  ProfileUD& ud = profile_self(a);
  const vm::Profiler& p = profiler_arg(a, ud, 1);
  const size_t top = a.none(2) ? 15 : size_t(a.positive(2));
  const std::string text = format_profile(*ud.image, p, ud.box->cluster->node(uint32_t(a.integer(1))).name(), top);
  lua_pushlstring(L, text.data(), text.size());
  return 1;
}

// prof:write_callgrind(node, path)
int p_write_callgrind(lua_State* L) {
  Args a(L, "Profile:write_callgrind", 1);
  ProfileUD& ud = profile_self(a);
  const vm::Profiler& p = profiler_arg(a, ud, 1);
  const std::string path = a.string(2);
  std::ofstream out(path);
  if (!out) a.fail(2, "cannot write '" + path + "'");
  write_callgrind_profile(out, "lanaikit run (" + ud.box->cluster->node(uint32_t(a.integer(1))).name() + ")",
                          profile_tables(*ud.image, p));
  return 0;
}

// prof:invocations(node [, max]) -> { {handler=, start_ns=, end_ns=, insns=, cycles=,
//                                     stall_cycles=, dma_wait_cycles=}, ... } (oldest first)
int p_invocations(lua_State* L) {
  Args a(L, "Profile:invocations", 1);
  ProfileUD& ud = profile_self(a);
  const vm::Profiler& p = profiler_arg(a, ud, 1);
  const auto& inv = p.invocations();
  const size_t n = a.none(2) ? inv.size() : std::min<size_t>(inv.size(), size_t(a.positive(2)));
  lua_createtable(L, int(n), 0);
  for (size_t i = 0; i < n; ++i) {
    const vm::Invocation& v = inv[i];
    lua_createtable(L, 0, 7);
    lua_pushstring(L, p.handlers()[v.handler].name.c_str());
    lua_setfield(L, -2, "handler");
    set_number(L, "start_ns", ps_to_ns(v.start));
    set_number(L, "end_ns", ps_to_ns(v.end));
    set_int(L, "insns", int64_t(v.instructions));
    set_int(L, "cycles", int64_t(v.cycles));
    set_int(L, "stall_cycles", int64_t(v.stall_cycles));
    set_int(L, "dma_wait_cycles", int64_t(v.dma_wait_cycles));
    lua_rawseti(L, -2, lua_Integer(i + 1));
  }
  return 1;
}

// prof:range(node, from, to) -> { insns =, cycles = }: what the code at addresses
// [from, to) executed on that node while profiled. from and to are locations in the
// profiled firmware (addresses, symbols, FILE:LINE): the cost of code that is not a called function (a trap vector, an
// assembly path between two labels), where handlers cannot be used.
int p_range(lua_State* L) {
  Args a(L, "Profile:range", 1);
  ProfileUD& ud = profile_self(a);
  const vm::Profiler& p = profiler_arg(a, ud, 1);
  const uint32_t from = location_arg(a, *ud.image, 2), to = location_arg(a, *ud.image, 3);
  if (to < from) a.fail(3, "the range ends before it starts");
  const auto& insns = p.instructions_by_word();
  const auto& cycles = p.cycles_by_word();
  uint64_t n = 0, c = 0;
  for (size_t w = from / 4; w < (to + 3) / 4 && w < insns.size(); ++w) {
    n += insns[w];
    c += cycles[w];
  }
  lua_createtable(L, 0, 2);
  set_int(L, "insns", int64_t(n));
  set_int(L, "cycles", int64_t(c));
  return 1;
}

int p_detach(lua_State* L) {
  Args a(L, "Profile:detach", 1);
  profile_self(a).detach();
  return 0;
}

// ---- timelines and captures -----------------------------------------------------------------

struct TimelineUD {
  TimelineUD() = default;
  explicit TimelineUD(std::shared_ptr<ClusterBox> b) : box(std::move(b)) {}
  std::shared_ptr<ClusterBox> box;
  std::unique_ptr<std::ofstream> trace, pcap;
  std::unique_ptr<Timeline> timeline;
  ~TimelineUD() {
    if (timeline && box && box->cluster) timeline.reset(); // finishes, unhooks taps
  }
};

// c:timeline{ trace = "t.json", pcap = "c.pcapng", max_events = N, window_ns = {a, b},
//             sample_every = N, profile = prof } -> Timeline
int c_timeline(lua_State* L) {
  Args a(L, "Cluster:timeline", 1);
  auto& cud = a.self<ClusterUD>(kCluster);
  ClusterBox& box = live_box(a, cud.box);
  TableArg t = a.table(1);
  t.only({"trace", "pcap", "max_events", "window_ns", "sample_every", "profile"});
  report::TraceLimits limits;
  if (const auto m = t.opt_positive("max_events")) limits.max_events = *m;
  if (const auto s = t.opt_positive("sample_every")) limits.sample_every = uint32_t(*s);
  if (t.has("window_ns")) {
    if (t.push("window_ns") != LUA_TTABLE) {
      lua_pop(L, 1);
      t.fail("window_ns", "expected {begin_ns, end_ns}");
    }
    lua_rawgeti(L, -1, 1);
    lua_rawgeti(L, -2, 2);
    const bool ok = lua_isnumber(L, -2) && lua_isnumber(L, -1);
    const double b = lua_tonumber(L, -2), e = lua_tonumber(L, -1);
    lua_pop(L, 3);
    // Bounded like every time argument (lua/check.cpp): 2^62 ps, so ns_to_ps cannot overflow.
    const double max_ns = double(kMaxTime) / 1000.0;
    if (!ok || !(b >= 0) || !(e >= b) || !(e <= max_ns))
      t.fail("window_ns", "expected {begin_ns, end_ns} with 0 <= begin <= end <= 2^62 ps (about 53 days)");
    limits.window_begin = ns_to_ps(b);
    limits.window_end = ns_to_ps(e);
  }
  ProfileUD* prof = nullptr;
  if (t.has("profile")) {
    t.push("profile");
    prof = static_cast<ProfileUD*>(luaL_testudata(L, -1, kProfile));
    lua_pop(L, 1);
    if (!prof) t.fail("profile", "expected a Profile (from Cluster:profile)");
  }
  auto open = [&](const char* key) -> std::unique_ptr<std::ofstream> {
    const auto path = t.opt_string(key);
    if (!path) return nullptr;
    auto f = std::make_unique<std::ofstream>(*path, std::ios::binary);
    if (!*f) t.fail(key, "cannot write '" + *path + "'");
    return f;
  };
  auto trace = open("trace");
  auto pcap = open("pcap");
  auto& ud = push_udata<TimelineUD>(L, kTimeline, cud.box);
  ud.trace = std::move(trace);
  ud.pcap = std::move(pcap);
  ud.timeline = std::make_unique<Timeline>(*box.cluster, ud.trace.get(), ud.pcap.get(), limits);
  if (prof)
    for (uint32_t i = 0; i < prof->per_node.size(); ++i)
      if (prof->per_node[i]) ud.timeline->add_profiler(i, prof->per_node[i].get());
  return 1;
}

TimelineUD& timeline_self(const Args& a) {
  auto& ud = a.self<TimelineUD>(kTimeline);
  if (!ud.timeline) a.fail_message("the timeline is finished");
  return ud;
}

// tl:span(node, thread, name, begin_ns, end_ns): a host-side span (library calls).
int t_span(lua_State* L) {
  Args a(L, "Timeline:span", 1);
  TimelineUD& ud = timeline_self(a);
  const int64_t node = a.integer_in(1, 0, int64_t(ud.box->cluster->size()) - 1, "a node index");
  const Time b = a.time_ns(4), e = a.time_ns(5);
  if (e < b) a.fail(5, "the span ends before it begins");
  ud.timeline->host_span(uint32_t(node), a.string(2), a.string(3), b, e);
  return 0;
}

// tl:finish() -> {kept=, dropped=, packets=}: writes the handler spans, closes the files.
int t_finish(lua_State* L) {
  Args a(L, "Timeline:finish", 1);
  TimelineUD& ud = timeline_self(a);
  ud.timeline->finish();
  const auto* st = ud.timeline->trace_stats();
  lua_createtable(L, 0, 3);
  lua_pushinteger(L, st ? int64_t(st->kept) : 0);
  lua_setfield(L, -2, "kept");
  lua_pushinteger(L, st ? int64_t(st->dropped()) : 0);
  lua_setfield(L, -2, "dropped");
  lua_pushinteger(L, int64_t(ud.timeline->packets_captured()));
  lua_setfield(L, -2, "packets");
  ud.timeline.reset();
  if (ud.trace) ud.trace->close();
  if (ud.pcap) ud.pcap->close();
  return 1;
}

// ---- utilisation ----------------------------------------------------------------------------

// c:utilisation([profile]) -> { {component=, busy_ns=, fraction=}, ... }
int c_utilisation(lua_State* L) {
  Args a(L, "Cluster:utilisation", 1);
  auto& cud = a.self<ClusterUD>(kCluster);
  ClusterBox& box = live_box(a, cud.box);
  std::vector<const vm::Profiler*> profs;
  if (!a.none(1)) {
    auto& prof = a.udata<ProfileUD>(1, kProfile);
    for (auto& p : prof.per_node) profs.push_back(p.get());
  }
  const Utilisation u = utilisation(*box.cluster, profs);
  lua_createtable(L, int(u.rows.size()), 0);
  for (size_t i = 0; i < u.rows.size(); ++i) {
    lua_createtable(L, 0, 3);
    lua_pushstring(L, u.rows[i].component.c_str());
    lua_setfield(L, -2, "component");
    lua_pushnumber(L, ps_to_ns(u.rows[i].busy));
    lua_setfield(L, -2, "busy_ns");
    lua_pushnumber(L, u.rows[i].fraction);
    lua_setfield(L, -2, "fraction");
    lua_rawseti(L, -2, lua_Integer(i + 1));
  }
  return 1;
}

// ---- the debugger ---------------------------------------------------------------------------

struct DebuggerUD {
  DebuggerUD() = default;
  DebuggerUD(std::shared_ptr<ClusterBox> b, uint32_t n, std::shared_ptr<const assembler::FirmwareImage> i)
      : box(std::move(b)), node(n), image(std::move(i)) {}
  std::shared_ptr<ClusterBox> box;
  uint32_t node = 0;
  std::shared_ptr<const assembler::FirmwareImage> image;
  std::unique_ptr<vm::Debugger> dbg;
  int on_break = LUA_NOREF;
  lua_State* L = nullptr;
  vm::Chip* chip() const { return box && box->cluster ? &box->cluster->node(node).chip() : nullptr; }
  void detach() {
    vm::Chip* c = chip();
    // Only if the chip still has this debugger (a newer instrument is not ours to remove).
    if (c && dbg && c->instrument() == dbg.get()) {
      c->set_instrument(nullptr);
      c->on_break(nullptr);
      if (c->paused()) c->resume();
    }
    dbg.reset();
  }
  ~DebuggerUD() {
    detach();
    if (L && on_break != LUA_NOREF && !runtime_of(L).closing) luaL_unref(L, LUA_REGISTRYINDEX, on_break);
  }
};

DebuggerUD& debugger_self(const Args& a) {
  auto& ud = a.self<DebuggerUD>(kDebugger);
  if (!ud.dbg || !ud.chip()) a.fail_message("the debugger is detached");
  return ud;
}

// Pushes {pc=, where=, reason=, regs={r0=.., ..., sw=}, backtrace={ {pc=, where=}, ... }}.
void push_break_info(lua_State* L, DebuggerUD& ud) {
  vm::Chip& chip = *ud.chip();
  const vm::Cpu& cpu = chip.cpu();
  auto where = [&](uint32_t pc) {
    std::string s = "?";
    if (const auto* sym = ud.image->symbol_at(pc)) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "+0x%x", pc - sym->address);
      s = sym->name;
      s.append(buf);
    }
    if (const auto loc = ud.image->line_at(pc))
      s.append(" (").append(loc->file).append(":").append(std::to_string(loc->line)).append(")");
    return s;
  };
  lua_createtable(L, 0, 6);
  lua_pushinteger(L, cpu.pc());
  lua_setfield(L, -2, "pc");
  lua_pushstring(L, where(cpu.pc()).c_str());
  lua_setfield(L, -2, "where");
  lua_pushstring(L, ud.dbg->reason().c_str());
  lua_setfield(L, -2, "reason");
  lua_pushnumber(L, ps_to_ns(chip.local_time()));
  lua_setfield(L, -2, "time_ns");
  lua_createtable(L, 0, 33);
  for (unsigned r = 0; r < 32; ++r) {
    lua_pushinteger(L, cpu.reg(r));
    const std::string name(isa::reg_name(r));
    lua_setfield(L, -2, name.c_str());
  }
  lua_pushinteger(L, cpu.sw());
  lua_setfield(L, -2, "sw");
  lua_setfield(L, -2, "regs");
  const auto frames = vm::backtrace(cpu);
  lua_createtable(L, int(frames.size()), 0);
  for (size_t i = 0; i < frames.size(); ++i) {
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, frames[i].pc);
    lua_setfield(L, -2, "pc");
    lua_pushstring(L, where(frames[i].pc).c_str());
    lua_setfield(L, -2, "where");
    lua_rawseti(L, -2, lua_Integer(i + 1));
  }
  lua_setfield(L, -2, "backtrace");
}

// The chip stopped at a break: call the Lua handler (on the runtime's aux thread); it
// returns false to stop the cluster's run (then d:continue() resumes), anything else to go on.
void on_chip_break(DebuggerUD& ud) {
  Runtime::Impl& rt = runtime_of(ud.L);
  vm::Chip& chip = *ud.chip();
  bool go_on = false;
  if (ud.on_break != LUA_NOREF && rt.aux) {
    lua_State* T = rt.aux;
    const int base = lua_gettop(T);
    lua_rawgeti(T, LUA_REGISTRYINDEX, ud.on_break);
    push_break_info(T, ud);
    if (lua_pcall(T, 1, 1, 0) != LUA_OK) {
      rt.fail(Outcome::ScriptError, std::string("debugger on_break: ") + lua_tostring(T, -1));
      rt.stop_all_kernels();
    } else {
      go_on = lua_isnil(T, -1) || lua_toboolean(T, -1);
    }
    lua_settop(T, base);
  }
  if (go_on) {
    chip.resume();
  } else {
    ud.box->stop_requested = true; // as Cluster:stop: c:run returns
    ud.box->cluster->kernel().stop();
  }
}

// node:debugger{ firmware = fw } -> Debugger
int n_debugger(lua_State* L) {
  Args a(L, "Node:debugger", 1);
  auto& nud = a.self<NodeUD>(kNode);
  ClusterBox& box = live_box(a, nud.box);
  TableArg t = a.table(1);
  t.only({"firmware"});
  auto image = firmware_of(a, t);
  vm::Chip& chip = box.cluster->node(nud.index).chip();
  auto& ud = push_udata<DebuggerUD>(L, kDebugger, nud.box, nud.index, image);
  ud.L = L;
  ud.dbg = std::make_unique<vm::Debugger>(chip.cpu());
  attach(a, chip, ud.dbg.get());
  DebuggerUD* self = &ud;
  chip.on_break([self](vm::Chip&) { on_chip_break(*self); });
  return 1;
}


// d:break_at(loc) -> the address
int d_break_at(lua_State* L) {
  Args a(L, "Debugger:break_at", 1);
  DebuggerUD& ud = debugger_self(a);
  const uint32_t at = location_arg(a, *ud.image, 1);
  ud.dbg->add_breakpoint(at);
  lua_pushinteger(L, at);
  return 1;
}

// d:clear(loc) -> whether there was a breakpoint
int d_clear(lua_State* L) {
  Args a(L, "Debugger:clear", 1);
  DebuggerUD& ud = debugger_self(a);
  lua_pushboolean(L, ud.dbg->remove_breakpoint(location_arg(a, *ud.image, 1)));
  return 1;
}

// d:watch(addr_or_symbol [, len]) / d:watch("%r9")
int d_watch(lua_State* L) {
  Args a(L, "Debugger:watch", 1);
  DebuggerUD& ud = debugger_self(a);
  if (lua_type(L, 2) == LUA_TSTRING) {
    const std::string what = a.string(1);
    if (what[0] == '%') {
      const auto r = vm::parse_register(what);
      if (!r) a.fail(1, "no register " + what);
      ud.dbg->watch_register(*r);
      return 0;
    }
    const auto at = ud.image->resolve_location(what);
    if (!at) a.fail(1, "no symbol '" + what + "'");
    ud.dbg->watch_memory(*at, a.none(2) ? 4 : uint32_t(a.positive(2)));
    return 0;
  }
  ud.dbg->watch_memory(a.u32(1), a.none(2) ? 4 : uint32_t(a.positive(2)));
  return 0;
}

// d:on_break(fn): fn(info) at every break; return false to stop the run.
int d_on_break(lua_State* L) {
  Args a(L, "Debugger:on_break", 1);
  DebuggerUD& ud = debugger_self(a);
  a.function(1);
  if (ud.on_break != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, ud.on_break);
  lua_pushvalue(L, 2);
  ud.on_break = luaL_ref(L, LUA_REGISTRYINDEX);
  return 0;
}

// d:info() -> the break info table (pc, where, reason, regs, backtrace), now.
int d_info(lua_State* L) {
  Args a(L, "Debugger:info", 1);
  push_break_info(L, debugger_self(a));
  return 1;
}

// d:step(n): after the current break, stop again before the n-th next instruction.
int d_step(lua_State* L) {
  Args a(L, "Debugger:step", 1);
  DebuggerUD& ud = debugger_self(a);
  ud.dbg->step((a.none(1) ? 1 : a.positive(1)) + 1);
  ud.chip()->resume();
  return 0;
}

int d_continue(lua_State* L) {
  Args a(L, "Debugger:continue", 1);
  DebuggerUD& ud = debugger_self(a);
  ud.dbg->cont();
  ud.chip()->resume();
  return 0;
}

int d_paused(lua_State* L) {
  Args a(L, "Debugger:paused", 1);
  DebuggerUD& ud = debugger_self(a);
  lua_pushboolean(L, ud.chip()->paused());
  return 1;
}

int d_detach(lua_State* L) {
  Args a(L, "Debugger:detach", 1);
  a.self<DebuggerUD>(kDebugger).detach();
  return 0;
}

// ---- message trace (one-way latency breakdown) ----------------------------------------------

constexpr const char* kMessageTrace = "MessageTrace";
struct MessageTraceUD {
  MessageTraceUD() = default;
  explicit MessageTraceUD(std::shared_ptr<ClusterBox> b) : box(std::move(b)) {}
  std::shared_ptr<ClusterBox> box;
  std::unique_ptr<MessageTrace> trace;
  ~MessageTraceUD() {
    if (trace && box && box->cluster) trace.reset(); // unhooks the chips' listeners
  }
};

// c:message_trace{from = a, to = b} -> MessageTrace: follows one message a -> b through
// both chips (sim/message_trace.h); the script marks tr:start(p), tr:posted(p) on the
// sender and tr:seen(p) on the receiver, at those processes' local times.
int c_message_trace(lua_State* L) {
  Args a(L, "Cluster:message_trace", 1);
  auto& cud = a.self<ClusterUD>(kCluster);
  ClusterBox& box = live_box(a, cud.box);
  TableArg t = a.table(1);
  t.only({"from", "to"});
  const int64_t n = int64_t(box.cluster->size());
  const int64_t from = t.integer("from"), to = t.integer("to");
  if (from < 0 || from >= n) t.fail("from", "expected a node index below " + std::to_string(n));
  if (to < 0 || to >= n || to == from)
    t.fail("to", "expected a node index below " + std::to_string(n) + ", other than from");
  auto& ud = push_udata<MessageTraceUD>(L, kMessageTrace, cud.box);
  ud.trace = std::make_unique<MessageTrace>(*box.cluster, uint32_t(from), uint32_t(to));
  return 1;
}

MessageTrace& trace_self(const Args& a) {
  auto& ud = a.self<MessageTraceUD>(kMessageTrace);
  if (!ud.trace || !ud.box || !ud.box->cluster) a.fail_message("the message trace is detached");
  return *ud.trace;
}

Time process_time(const Args& a, int arg) {
  auto& p = a.udata<ProcessUD>(arg, kProcess);
  if (!p.proc || !p.proc->proc) a.fail(arg, "expected a live Process (its local time is the moment)");
  return p.proc->proc->local();
}

// tr:start(p), tr:posted(p), tr:seen(p): the moment is p's local time.
template <void (MessageTrace::*Mark)(Time)> int mt_mark(lua_State* L, const char* fn) {
  Args a(L, fn, 1);
  (trace_self(a).*Mark)(process_time(a, 1));
  return 0;
}
int mt_start(lua_State* L) { return mt_mark<&MessageTrace::start>(L, "MessageTrace:start"); }
int mt_posted(lua_State* L) { return mt_mark<&MessageTrace::posted>(L, "MessageTrace:posted"); }
int mt_seen(lua_State* L) { return mt_mark<&MessageTrace::seen>(L, "MessageTrace:seen"); }

// tr:breakdown() -> { host_send_us=, pci_send_us=, ..., total_us=, send_insns=, recv_insns=,
//                     packet_bytes=, text= }
int mt_breakdown(lua_State* L) {
  Args a(L, "MessageTrace:breakdown", 1);
  MessageBreakdown b;
  try {
    b = trace_self(a).breakdown();
  } catch (const std::runtime_error& e) {
    a.fail_message(e.what());
  }
  lua_createtable(L, 0, 14);
  auto put = [&](const char* k, Time t) { set_number(L, k, double(t) / double(kMicrosecond)); };
  put("host_send_us", b.host_send);
  put("pci_send_us", b.pci_send);
  put("cpu_send_us", b.cpu_send);
  put("dma_send_us", b.dma_send);
  put("wire_us", b.wire);
  put("network_us", b.network);
  put("cpu_recv_us", b.cpu_recv);
  put("dma_recv_us", b.dma_recv);
  put("host_recv_us", b.host_recv);
  put("total_us", b.total);
  set_int(L, "send_insns", int64_t(b.send_insns));
  set_int(L, "recv_insns", int64_t(b.recv_insns));
  set_int(L, "packet_bytes", int64_t(b.packet_bytes));
  const std::string text = format_breakdown(b);
  lua_pushlstring(L, text.data(), text.size());
  lua_setfield(L, -2, "text");
  return 1;
}

int mt_detach(lua_State* L) {
  Args a(L, "MessageTrace:detach", 1);
  auto& ud = a.self<MessageTraceUD>(kMessageTrace);
  ud.trace.reset();
  return 0;
}

} // namespace

void open_instruments(lua_State* L) {
  static const luaL_Reg message_trace[] = {{"start", wrap<mt_start>},         {"posted", wrap<mt_posted>},
                                           {"seen", wrap<mt_seen>},           {"breakdown", wrap<mt_breakdown>},
                                           {"detach", wrap<mt_detach>},       {nullptr, nullptr}};
  new_type(L, kMessageTrace, message_trace, gc_udata<MessageTraceUD>, nullptr);
  static const luaL_Reg profile[] = {{"summary", wrap<p_summary>},
                                     {"report", wrap<p_report>},
                                     {"write_callgrind", wrap<p_write_callgrind>},
                                     {"invocations", wrap<p_invocations>},
                                     {"range", wrap<p_range>},
                                     {"detach", wrap<p_detach>},
                                     {nullptr, nullptr}};
  new_type(L, kProfile, profile, gc_udata<ProfileUD>, nullptr);
  static const luaL_Reg timeline[] = {{"span", wrap<t_span>}, {"finish", wrap<t_finish>}, {nullptr, nullptr}};
  new_type(L, kTimeline, timeline, gc_udata<TimelineUD>, nullptr);
  static const luaL_Reg debugger[] = {{"break_at", wrap<d_break_at>}, {"clear", wrap<d_clear>},
                                      {"watch", wrap<d_watch>},       {"on_break", wrap<d_on_break>},
                                      {"info", wrap<d_info>},         {"step", wrap<d_step>},
                                      {"continue", wrap<d_continue>}, {"paused", wrap<d_paused>},
                                      {"detach", wrap<d_detach>},     {nullptr, nullptr}};
  new_type(L, kDebugger, debugger, gc_udata<DebuggerUD>, nullptr);
  static const luaL_Reg cluster[] = {{"profile", wrap<c_profile>},
                                     {"timeline", wrap<c_timeline>},
                                     {"utilisation", wrap<c_utilisation>},
                                     {"message_trace", wrap<c_message_trace>},
                                     {nullptr, nullptr}};
  extend(L, kCluster, cluster);
  static const luaL_Reg node[] = {{"debugger", wrap<n_debugger>}, {nullptr, nullptr}};
  extend(L, kNode, node);
}

} // namespace lanaikit::sim::lua
