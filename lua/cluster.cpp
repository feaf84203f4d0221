// lk.cluster and the Cluster, Node and Link types.
#include "lua/internal.h"
#include "vm/fugu_interface.h"
#include "lua/kit.h"
#include "lua/platform_table.h"

#include "host/model/memory.h"
#include "sim/platform.h"
#include "vm/chip_regs.h"

#include <algorithm>

namespace lanaikit::sim::lua {

ClusterBox& cluster_self(const Args& a) { return live_box(a, a.self<ClusterUD>(kCluster).box); }

Node& node_self(const Args& a, NodeUD** out) {
  auto& n = a.self<NodeUD>(kNode);
  ClusterBox& box = live_box(a, n.box);
  if (out) *out = &n;
  return box.cluster->node(n.index);
}

namespace {

// ---- lk.cluster ---------------------------------------------------------------------------

// The `nic` argument: a platform name or table (its `nic`, and its `pci` for a platform
// without one), or an explicit nic table { clock_hz =, sram_bytes =, cost = {...} },
// checked as a platform's `nic` section is. Absent: the platform's own.
std::optional<NicChoice> nic_choice(lua_State* L, Runtime::Impl& rt, const TableArg& t) {
  const int ty = t.push("nic");
  PopOnExit pop{L};
  try {
    if (ty == LUA_TNIL) return std::nullopt;
    if (ty == LUA_TSTRING)
      return NicChoice::of(load_platform(platform_path(rt.opt.source_dir, lua_tostring(L, -1))));
    if (ty != LUA_TTABLE)
      t.fail("nic", "expected a platform name, a platform table or a nic table { clock_hz = ..., "
                    "sram_bytes = ... }, got " + describe(L, -1));
    lua_getfield(L, -1, "clock_hz");
    const bool nic_table = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (!nic_table) return NicChoice::of(platform_from_table(L, -1));
    // Checked by the platform loader as { name = "nic", nic = <the table> }.
    lua_createtable(L, 0, 2);
    lua_pushstring(L, "nic");
    lua_setfield(L, -2, "name");
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "nic");
    PopOnExit pop_wrapper{L};
    const Platform p = platform_from_table(L, -1);
    return NicChoice::explicit_nic(*p.nic, "the explicit nic table");
  } catch (const ArgError&) {
    throw;
  } catch (const std::exception& e) {
    t.fail("nic", e.what());
  }
}

// The `atm` argument (DART): an ATM network beside the source-routed one, on the
// platform's `cells` section: { link = "line" (the testbed's own link, default) or k (its
// k-th projected link, 1-based), switch = false (two nodes back to back, default), true
// (net::CellSwitchConfig's defaults) or { ports =, transit_ns =, output_buffer_cells = } }.
std::optional<net::AtmNetworkConfig> atm_choice(const Args& a, const TableArg& t, const Platform& plat) {
  lua_State* L = a.state();
  const int ty = t.push("atm");
  PopOnExit pop{L};
  if (ty == LUA_TNIL) return std::nullopt;
  if (ty != LUA_TTABLE) t.fail("atm", "expected a table { link = \"line\" or k, switch = ... }, got " + describe(L, -1));
  if (!plat.cells) t.fail("atm", "the platform '" + plat.name + "' has no `cells` section (an ATM link to use)");
  const TableArg at(a, 1, lua_gettop(L), "atm");
  at.only({"link", "switch"});
  net::AtmNetworkConfig cfg;
  cfg.link = plat.cells->link;
  const int lt = at.push("link");
  {
    PopOnExit pop_link{L};
    if (lt == LUA_TSTRING) {
      if (std::string(lua_tostring(L, -1)) != "line")
        at.fail("link", "expected \"line\" or the index of a projected link, got \"" +
                            std::string(lua_tostring(L, -1)) + "\"");
    } else if (lt == LUA_TNUMBER) {
      const lua_Integer k = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
      const size_t n = plat.cells->projected.size();
      if (k < 1 || size_t(k) > n)
        at.fail("link", "expected a projected link's index in 1.." + std::to_string(n) + ", got " + describe(L, -1));
      cfg.link = plat.cells->projected[size_t(k - 1)];
    } else if (lt != LUA_TNIL) {
      at.fail("link", "expected \"line\" or the index of a projected link, got " + describe(L, -1));
    }
  }
  const int st = at.push("switch");
  PopOnExit pop_switch{L};
  if (st == LUA_TBOOLEAN) {
    if (lua_toboolean(L, -1)) cfg.cell_switch = net::CellSwitchConfig{};
  } else if (st == LUA_TTABLE) {
    const TableArg sw(a, 1, lua_gettop(L), "atm.switch");
    sw.only({"ports", "transit_ns", "output_buffer_cells"});
    net::CellSwitchConfig c;
    if (auto v = sw.opt_positive("ports")) c.ports = uint32_t(*v);
    if (auto v = sw.opt_time_ns("transit_ns")) c.transit_ps = *v;
    if (auto v = sw.opt_positive("output_buffer_cells")) c.output_buffer_cells = uint32_t(*v);
    cfg.cell_switch = c;
  } else if (st != LUA_TNIL) {
    at.fail("switch", "expected a boolean or { ports =, transit_ns =, output_buffer_cells = }, got " + describe(L, -1));
  }
  return cfg;
}

int lk_cluster(lua_State* L) {
  Args a(L, "lk.cluster");
  Runtime::Impl& rt = runtime_of(L);
  const TableArg t = a.table(1);
  t.only({"platform", "nodes", "topology", "nodes_per_switch", "spines", "max_batch", "host_pages",
          "stop_on_fault", "nic", "stack_guard", "atm", "fugu"});
  const uint32_t nodes = uint32_t(t.opt_positive("nodes").value_or(2));
  if (nodes > 4096) t.fail("nodes", "at most 4096 nodes");
  Platform plat;
  try {
    const int ty = t.push("platform");
    if (ty == LUA_TNIL || ty == LUA_TSTRING) {
      const std::string name = ty == LUA_TNIL ? "vmmc" : lua_tostring(L, -1);
      lua_pop(L, 1);
      plat = load_platform(platform_path(rt.opt.source_dir, name));
    } else if (ty == LUA_TTABLE) {
      PopOnExit pop{L};
      plat = platform_from_table(L, -1);
    } else {
      const std::string got = describe(L, -1);
      lua_pop(L, 1);
      t.fail("platform", "expected a platform table (lk.platform) or a platform name, got " + got);
    }
  } catch (const ArgError&) {
    throw;
  } catch (const std::exception& e) {
    t.fail("platform", e.what());
  }
  const std::optional<NicChoice> nic = nic_choice(L, rt, t);
  ClusterParams params;
  try {
    params = nic ? cluster_params(plat, nodes, *nic) : cluster_params(plat, nodes);
  } catch (const std::exception& e) {
    t.fail(nic ? "nic" : "platform", e.what());
  }
  if (auto topo = t.opt_string("topology")) {
    if (*topo == "switch") params.topology = Topology::SingleSwitch;
    else if (*topo == "chain") params.topology = Topology::Chain;
    else if (*topo == "clos") params.topology = Topology::Clos;
    else t.fail("topology", "expected \"switch\", \"chain\" or \"clos\", got \"" + *topo + "\"");
  }
  if (auto v = t.opt_positive("nodes_per_switch")) params.nodes_per_switch = uint32_t(*v);
  if (auto v = t.opt_positive("spines")) params.spines = uint32_t(*v);
  if (auto v = t.opt_positive("host_pages")) params.node.host_pages = *v;
  if (auto v = t.opt_integer("stack_guard")) {
    if (*v < 0 || *v % 4 != 0 || *v >= 0x80000000ll)
      t.fail("stack_guard", "expected a multiple of 4 below 2 GiB (0 for none), got " + std::to_string(*v));
    params.node.chip.stack_guard_bytes = uint32_t(*v);
  }
  params.atm = atm_choice(a, t, plat);
  // FUGU nodes (docs/udm.md): a FUGU network interface on every chip instead of the
  // LANai's packet engines.
  if (t.opt_boolean("fugu").value_or(false)) params.fugu = vm::FuguInterface::Config{};
  const uint64_t max_batch = uint64_t(t.opt_integer("max_batch").value_or(0));
  const bool stop_on_fault = t.opt_boolean("stop_on_fault").value_or(true);

  auto box = std::make_shared<ClusterBox>();
  box->rt = &rt;
  box->platform = plat;
  try {
    box->cluster = std::make_unique<Cluster>(params);
  } catch (const std::exception& e) {
    a.fail(1, e.what());
  }
  for (uint32_t i = 0; i < box->cluster->size(); ++i) {
    vm::Chip& chip = box->cluster->node(i).chip();
    chip.set_max_batch(max_batch);
    // A firmware fault is the run's failure (exit status 1), with the chip's report; a
    // halt is not. The box owns the chip, so the raw pointer outlives the callback.
    if (stop_on_fault)
      chip.on_stop([rtp = &rt, b = box.get(), i](vm::Chip& c) {
        if (!c.cpu().fault()) return;
        rtp->fail(Outcome::ScriptError, "the firmware of " + c.name() + " faulted at simulated time " +
                                            us_text(b->cluster->kernel().now()) + ":\n" +
                                            b->cluster->node(i).report());
        b->cluster->kernel().stop();
      });
  }
  if (rt.observe_from) box->observable = std::make_unique<ObservableTrace>(*box->cluster);
  box->id = rt.clusters.size();
  rt.clusters.push_back({box, 0});
  push_udata<ClusterUD>(L, kCluster, std::move(box));
  return 1;
}

// ---- Cluster methods ----------------------------------------------------------------------

int c_size(lua_State* L) {
  Args a(L, "Cluster:size", 1);
  lua_pushinteger(L, cluster_self(a).cluster->size());
  return 1;
}

int c_node(lua_State* L) {
  Args a(L, "Cluster:node", 1);
  auto& ud = a.self<ClusterUD>(kCluster);
  ClusterBox& box = live_box(a, ud.box);
  const uint32_t i = node_arg(a, 1, box);
  push_udata<NodeUD>(L, kNode, ud.box, i);
  return 1;
}

// The image is shared with the nodes that load it, so their fault reports name functions.
std::shared_ptr<const assembler::FirmwareImage> firmware_arg(const Args& a, int arg) {
  auto& fw = a.udata<FirmwareUD>(arg, kFirmware);
  if (!fw.image) a.fail(arg, "the firmware was collected");
  return fw.image;
}

int c_load(lua_State* L) {
  Args a(L, "Cluster:load", 1);
  ClusterBox& box = cluster_self(a);
  const auto& img = firmware_arg(a, 1);
  try {
    for (uint32_t i = 0; i < box.cluster->size(); ++i) box.cluster->node(i).load(img);
  } catch (const std::exception& e) {
    a.fail_message(e.what());
  }
  return 0;
}

// A node with no firmware would fault at its first instruction: say so at the call instead.
void check_loaded(const Args& a, Node& n) {
  if (!n.loaded()) a.fail_message(n.name() + " has no firmware: load one first (c:load(fw) or node:load(fw))");
}

int c_start(lua_State* L) {
  Args a(L, "Cluster:start", 1);
  ClusterBox& box = cluster_self(a);
  for (uint32_t i = 0; i < box.cluster->size(); ++i) check_loaded(a, box.cluster->node(i));
  for (uint32_t i = 0; i < box.cluster->size(); ++i) box.cluster->node(i).start();
  return 0;
}

int c_route(lua_State* L) {
  Args a(L, "Cluster:route", 1);
  ClusterBox& box = cluster_self(a);
  const uint32_t s = node_arg(a, 1, box), d = node_arg(a, 2, box);
  const auto& r = box.cluster->network().route(s, d);
  lua_pushlstring(L, reinterpret_cast<const char*>(r.data()), r.size());
  return 1;
}

int c_set_powered(lua_State* L) {
  Args a(L, "Cluster:set_powered", 1);
  ClusterBox& box = cluster_self(a);
  const uint32_t i = node_arg(a, 1, box);
  box.cluster->set_powered(i, a.boolean(2));
  return 0;
}

int c_link(lua_State* L) {
  Args a(L, "Cluster:link", 1);
  auto& ud = a.self<ClusterUD>(kCluster);
  ClusterBox& box = live_box(a, ud.box);
  const std::string name = a.string(1);
  net::Network& net = box.cluster->network();
  for (size_t i = 0; i < net.link_count(); ++i)
    if (net.link_at(i).name() == name) {
      push_udata<LinkUD>(L, kLink, ud.box, &net.link_at(i));
      return 1;
    }
  std::string names;
  for (size_t i = 0; i < net.link_count() && i < 8; ++i) names += (i ? ", " : "") + net.link_at(i).name();
  a.fail(1, "no link named '" + name + "' (links are named like: " + names + "; see Cluster:links())");
}

int c_links(lua_State* L) {
  Args a(L, "Cluster:links", 1);
  ClusterBox& box = cluster_self(a);
  net::Network& net = box.cluster->network();
  lua_createtable(L, int(net.link_count()), 0);
  for (size_t i = 0; i < net.link_count(); ++i) {
    lua_pushstring(L, net.link_at(i).name().c_str());
    lua_rawseti(L, -2, lua_Integer(i + 1));
  }
  return 1;
}

int node_link(lua_State* L, const char* fn, bool tx) {
  Args a(L, fn, 1);
  auto& ud = a.self<ClusterUD>(kCluster);
  ClusterBox& box = live_box(a, ud.box);
  const uint32_t i = node_arg(a, 1, box);
  net::Link& l = tx ? box.cluster->network().node_tx(i) : box.cluster->network().node_rx(i);
  push_udata<LinkUD>(L, kLink, ud.box, &l);
  return 1;
}
int c_node_tx(lua_State* L) { return node_link(L, "Cluster:node_tx", true); }
int c_node_rx(lua_State* L) { return node_link(L, "Cluster:node_rx", false); }

int c_now_ns(lua_State* L) {
  Args a(L, "Cluster:now_ns", 1);
  lua_pushnumber(L, ps_to_ns(cluster_self(a).cluster->kernel().now()));
  return 1;
}

int c_now_ps(lua_State* L) {
  Args a(L, "Cluster:now_ps", 1);
  lua_pushinteger(L, cluster_self(a).cluster->kernel().now());
  return 1;
}

// c:atm() -> nil without an ATM network, else { line_bits_per_s =, cell_rate_num =,
// cell_rate_den =, cell_ns = (one cell on the wire, framing included), latency_ns =,
// switch = nil or { ports =, transit_ns =, output_buffer_cells =, cells_in =, cells_out =,
// unknown_vci =, overflow = }, nodes = { [i] = { cells_sent =, cells_received =, ... } } }.
int c_atm(lua_State* L) {
  Args a(L, "Cluster:atm", 1);
  Cluster& c = *cluster_self(a).cluster;
  net::AtmNetwork* atm = c.atm();
  if (!atm) {
    lua_pushnil(L);
    return 1;
  }
  const net::CellLink& tx = atm->node_tx(0);
  const net::CellLinkConfig& lc = tx.config();
  lua_createtable(L, 0, 8);
  set_int(L, "line_bits_per_s", int64_t(lc.line_bits_per_s));
  set_int(L, "cell_rate_num", lc.cell_rate_num);
  set_int(L, "cell_rate_den", lc.cell_rate_den);
  set_number(L, "cell_ns", ps_to_ns(tx.cells_time(1)));
  set_number(L, "latency_ns", ps_to_ns(lc.latency_ps));
  if (net::CellSwitch* sw = atm->cell_switch()) {
    const net::CellSwitchConfig& sc = sw->config();
    const net::CellSwitchCounters& k = sw->counters();
    lua_createtable(L, 0, 7);
    set_int(L, "ports", sc.ports);
    set_number(L, "transit_ns", ps_to_ns(sc.transit_ps));
    set_int(L, "output_buffer_cells", sc.output_buffer_cells);
    set_int(L, "cells_in", int64_t(k.cells_in));
    set_int(L, "cells_out", int64_t(k.cells_out));
    set_int(L, "unknown_vci", int64_t(k.unknown_vci));
    set_int(L, "overflow", int64_t(k.overflow));
    lua_setfield(L, -2, "switch");
  }
  lua_createtable(L, int(atm->nodes()), 0);
  for (uint32_t i = 0; i < atm->nodes(); ++i) {
    const net::CellLinkCounters& tk = atm->node_tx(i).counters();
    const net::CellLinkCounters& rk = atm->node_rx(i).counters();
    lua_createtable(L, 0, 6);
    set_int(L, "cells_sent", int64_t(tk.cells_sent));
    set_int(L, "frames_sent", int64_t(tk.frames_sent));
    set_int(L, "raw_cells_sent", int64_t(tk.raw_cells_sent));
    set_int(L, "cells_received", int64_t(rk.cells_received));
    set_int(L, "crc_errors", int64_t(rk.crc_errors));
    set_int(L, "drops", int64_t(rk.drops));
    lua_rawseti(L, -2, lua_Integer(i));
  }
  lua_setfield(L, -2, "nodes");
  return 1;
}

int c_trace_hash(lua_State* L) {
  Args a(L, "Cluster:trace_hash", 1);
  lua_pushinteger(L, lua_Integer(cluster_self(a).cluster->kernel().trace_hash()));
  return 1;
}

// c:observe{ file = path } starts the observable trace (sim/observable_trace.h): every
// link's packet heads and tails and every chip event from now on. c:observable() returns
// its hash (an integer) and the number of records so far.
int c_observe(lua_State* L) {
  Args a(L, "Cluster:observe", 1);
  ClusterBox& box = cluster_self(a);
  std::string file;
  if (!a.none(1)) {
    const TableArg t = a.table(1);
    t.only({"file"});
    file = t.opt_string("file").value_or("");
  }
  if (box.observable) a.fail_message("the cluster is already observed");
  box.observable = std::make_unique<ObservableTrace>(*box.cluster, file);
  return 0;
}

int c_observable(lua_State* L) {
  Args a(L, "Cluster:observable", 1);
  ClusterBox& box = cluster_self(a);
  if (!box.observable) a.fail_message("call c:observe() first");
  lua_pushinteger(L, lua_Integer(box.observable->hash()));
  lua_pushinteger(L, lua_Integer(box.observable->records()));
  return 2;
}

int c_stop(lua_State* L) {
  Args a(L, "Cluster:stop", 1);
  ClusterBox& box = cluster_self(a);
  box.stop_requested = true;
  box.cluster->kernel().stop();
  return 0;
}

int c_stats(lua_State* L) {
  Args a(L, "Cluster:stats", 1);
  ClusterBox& box = cluster_self(a);
  Kernel& k = box.cluster->kernel();
  uint64_t insns = 0, dozed = 0;
  for (uint32_t i = 0; i < box.cluster->size(); ++i) {
    vm::Chip& chip = box.cluster->node(i).chip();
    chip.settle(); // asked from a process in the middle of a run: count to now
    insns += chip.cpu().instructions();
    dozed += chip.doze_counters().skipped_instructions;
  }
  lua_createtable(L, 0, 7);
  set_int(L, "events", k.events_run());
  set_int(L, "agent_batches", k.agent_batches());
  set_int(L, "instructions", insns);
  set_int(L, "dozed_instructions", dozed);
  set_int(L, "processes_running", box.live_procs);
  // What bounded each batch (sim::Kernel::batch_bounds), and with the census on, the
  // events that did, by trace tag (a distant event's key has bit 32 set).
  const Kernel::BatchBounds& b = k.batch_bounds();
  lua_createtable(L, 0, 4);
  set_int(L, "limit", b.limit);
  set_int(L, "near_event", b.near_event);
  set_int(L, "distant_event", b.distant_event);
  set_int(L, "other_agent", b.other_agent);
  lua_setfield(L, -2, "batch_bounds");
  if (k.bound_census_on()) {
    lua_createtable(L, 0, int(k.bound_census().size()));
    for (const auto& [key, n] : k.bound_census()) {
      lua_pushinteger(L, lua_Integer(n));
      lua_rawseti(L, -2, lua_Integer(key));
    }
    lua_setfield(L, -2, "bound_census");
  }
  return 1;
}

// c:bound_census(on): count the events that bound the chips' batches by tag (in
// c:stats().bound_census); a diagnostic for the simulator's speed, off by default.
int c_bound_census(lua_State* L) {
  Args a(L, "Cluster:bound_census", 1);
  cluster_self(a).cluster->kernel().set_bound_census(a.boolean(1));
  return 0;
}

// c:run{ until_ns =, for_ns =, stop_when_processes_done = } (the table is optional)
// The spacing of the limits c:run gives the kernel (see below): the batches they end are
// few (VMMC's main job simulates about 40 ms).
constexpr Time kRunGrid = 100 * kMicrosecond;

int c_run(lua_State* L) {
  Args a(L, "Cluster:run", 1);
  auto& ud = a.self<ClusterUD>(kCluster);
  std::shared_ptr<ClusterBox> keep = ud.box; // alive whatever the processes do
  ClusterBox& box = live_box(a, keep);
  Runtime::Impl& rt = runtime_of(L);
  Kernel& k = box.cluster->kernel();
  std::optional<Time> target;
  bool stop_when_done = true;
  if (!a.none(1)) {
    const TableArg t = a.table(1);
    t.only({"until_ns", "for_ns", "stop_when_processes_done"});
    const auto until = t.opt_time_ns("until_ns");
    const auto dur = t.opt_time_ns("for_ns");
    if (until && dur) t.fail("for_ns", "give until_ns or for_ns, not both");
    if (until) target = std::max(*until, k.now());
    if (dur) target = k.now() + *dur;
    stop_when_done = t.opt_boolean("stop_when_processes_done").value_or(true);
  }
  if (box.running) a.fail_message("the cluster is already running (called from one of its processes?)");
  if (rt.failed()) throw std::runtime_error(rt.failure);
  if (!target && (box.live_procs == 0 || !stop_when_done) && !rt.opt.time_limit)
    a.fail_message("needs until_ns or for_ns: no running process could end the run");

  std::optional<Time> goal = target;
  bool capped = false;
  if (rt.opt.time_limit && (!goal || *goal > *rt.opt.time_limit)) {
    goal = std::max(*rt.opt.time_limit, k.now());
    capped = true;
  }
  struct Running {
    ClusterBox& b;
    ~Running() { b.running = false; }
  } guard{box};
  box.running = true;
  box.stop_requested = false;
  box.stop_when_done = stop_when_done;
  std::string error;
  try {
    for (;;) {
      // A run cannot carry a batch past its limit, so where the limits fall bounds the
      // chips' batches, and so where chips start watching for a doze (vm/doze.h) and what
      // the network holds back while they doze (net/link.h): the limits lie on a fixed
      // grid, never where the wall clock says. The wall clock only decides how many events
      // and batches run between its readings (about every 50 ms), and pausing there
      // changes nothing (sim::Kernel::run_steps).
      const Time grid = (k.now() / kRunGrid + 1) * kRunGrid;
      const Time end = goal ? std::min(*goal, grid) : grid;
      const auto w0 = std::chrono::steady_clock::now();
      const bool reached = k.run_steps(end, rt.steps);
      if (rt.failed() || box.stop_requested) break;
      // Paused (perhaps at the goal's instant, with more events due then): only the wall
      // clock is looked at.
      if (reached) {
        if (goal && k.now() >= *goal) break;
        // Nothing left that could ever happen: no event and no chip running.
        bool any_chip = false;
        for (uint32_t i = 0; i < box.cluster->size() && !any_chip; ++i)
          any_chip = box.cluster->node(i).chip().running();
        if (!goal && k.idle() && !any_chip) {
          error = "nothing left to simulate at " + us_text(k.now()) + ", but " +
                  std::to_string(box.live_procs) + " process(es) still wait (a deadlock?)";
          break;
        }
      }
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
      if (wall < 0.02 && rt.steps < (uint64_t(1) << 40)) rt.steps *= 2;
      else if (wall > 0.1 && rt.steps > 16) rt.steps /= 2;
      if (rt.wall_exceeded()) break;
    }
    k.settle(); // the end of the run: dozing chips are brought to now
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (!error.empty()) a.fail_message(error);
  if (rt.failed()) throw std::runtime_error(rt.failure);
  if (capped && !box.stop_requested && k.now() >= *goal) {
    char head[160];
    std::snprintf(head, sizeof head,
                  "the simulated-time limit of %g ms was reached (--time-limit-ms)",
                  double(*rt.opt.time_limit) / double(kMillisecond));
    rt.fail(Outcome::Limit, std::string(head) + rt.chip_reports());
    throw std::runtime_error(rt.failure);
  }
  lua_pushnumber(L, ps_to_ns(k.now()));
  return 1;
}

int c_tostring(lua_State* L) {
  auto* c = static_cast<ClusterUD*>(luaL_testudata(L, 1, kCluster));
  if (!c || !c->box) lua_pushstring(L, "Cluster(collected)");
  else lua_pushfstring(L, "Cluster(%d nodes)", int(c->box->cluster->size()));
  return 1;
}

// ---- Node methods -------------------------------------------------------------------------

int n_index(lua_State* L) {
  Args a(L, "Node:index", 1);
  lua_pushinteger(L, node_self(a).index());
  return 1;
}

int n_load(lua_State* L) {
  Args a(L, "Node:load", 1);
  Node& n = node_self(a);
  const auto& img = firmware_arg(a, 1);
  try {
    n.load(img);
  } catch (const std::exception& e) {
    a.fail_message(e.what());
  }
  return 0;
}

int n_start(lua_State* L) {
  Args a(L, "Node:start", 1);
  Node& n = node_self(a);
  check_loaded(a, n);
  n.start();
  return 0;
}

void check_sram(const Args& a, Node& n, uint64_t addr, uint64_t len) {
  const uint64_t size = n.chip().sram().size();
  if (addr > size || len > size - addr)
    a.fail(1, "SRAM range [" + std::to_string(addr) + ", " + std::to_string(addr + len) +
                  ") is outside the chip's " + std::to_string(size) + " bytes");
}

int n_sram_write32(lua_State* L) {
  Args a(L, "Node:sram_write32", 1);
  Node& n = node_self(a);
  const uint32_t addr = a.u32(1), v = a.u32(2);
  check_sram(a, n, addr, 4);
  const uint8_t b[4] = {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
  n.chip().host_write_sram(addr, b);
  return 0;
}

int n_sram_read32(lua_State* L) {
  Args a(L, "Node:sram_read32", 1);
  Node& n = node_self(a);
  const uint32_t addr = a.u32(1);
  check_sram(a, n, addr, 4);
  uint8_t b[4];
  n.chip().host_read_sram(addr, b);
  lua_pushinteger(L, lua_Integer(uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | b[3]));
  return 1;
}

int n_sram_write(lua_State* L) {
  Args a(L, "Node:sram_write", 1);
  Node& n = node_self(a);
  const uint32_t addr = a.u32(1);
  const std::string s = a.string(2);
  check_sram(a, n, addr, s.size());
  n.chip().host_write_sram(addr, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
  return 0;
}

int n_sram_read(lua_State* L) {
  Args a(L, "Node:sram_read", 1);
  Node& n = node_self(a);
  const uint32_t addr = a.u32(1), len = a.u32(2);
  check_sram(a, n, addr, len);
  std::vector<uint8_t> buf(len);
  n.chip().host_read_sram(addr, buf);
  lua_pushlstring(L, reinterpret_cast<const char*>(buf.data()), buf.size());
  return 1;
}

int n_host_alloc(lua_State* L) {
  Args a(L, "Node:host_alloc", 1);
  Node& n = node_self(a);
  const uint64_t bytes = a.positive(1);
  const uint64_t pages = (bytes + host::kPageSize - 1) / host::kPageSize;
  std::vector<uint64_t> got = n.memory().allocate_pages(pages);
  if (got.empty()) a.fail(1, "no " + std::to_string(pages) + " free host pages for " + std::to_string(bytes) + " bytes");
  for (size_t i = 1; i < got.size(); ++i)
    if (got[i] != got[0] + i) {
      for (uint64_t p : got) n.memory().free_page(p);
      a.fail(1, "no " + std::to_string(pages) + " contiguous free host pages");
    }
  lua_pushinteger(L, lua_Integer(got[0] << host::kPageShift));
  return 1;
}

template <class F> auto host_access(const Args& a, F f) {
  try {
    return f();
  } catch (const host::HostError& e) {
    a.fail_message(e.what());
  }
}


} // namespace

// Host memory from a Node or a Process (both bind these; untimed: set-up, inspection, or a
// process at its local time). Arguments from 1: address, then value/length/string.
int host_read32_arg(const Args& a, Node& n) {
  const int64_t addr = a.integer_in(1, 0, INT64_MAX, "a host physical address");
  lua_pushinteger(a.state(), host_access(a, [&] { return n.memory().read32(uint64_t(addr)); }));
  return 1;
}

int host_write32_arg(const Args& a, Node& n) {
  const int64_t addr = a.integer_in(1, 0, INT64_MAX, "a host physical address");
  const uint32_t v = a.u32(2);
  host_access(a, [&] { n.memory().write32(uint64_t(addr), v); });
  return 0;
}

int host_read_arg(const Args& a, Node& n) {
  const int64_t addr = a.integer_in(1, 0, INT64_MAX, "a host physical address");
  const uint32_t len = a.u32(2);
  std::vector<uint8_t> buf(len);
  host_access(a, [&] { n.memory().read(uint64_t(addr), buf); });
  lua_pushlstring(a.state(), reinterpret_cast<const char*>(buf.data()), buf.size());
  return 1;
}

int host_write_arg(const Args& a, Node& n) {
  const int64_t addr = a.integer_in(1, 0, INT64_MAX, "a host physical address");
  const std::string s = a.string(2);
  host_access(a, [&] {
    n.memory().write(uint64_t(addr), std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
  });
  return 0;
}

namespace {

int n_host_read32(lua_State* L) {
  Args a(L, "Node:host_read32", 1);
  return host_read32_arg(a, node_self(a));
}

int n_host_write32(lua_State* L) {
  Args a(L, "Node:host_write32", 1);
  return host_write32_arg(a, node_self(a));
}

int n_host_read(lua_State* L) {
  Args a(L, "Node:host_read", 1);
  return host_read_arg(a, node_self(a));
}

int n_host_write(lua_State* L) {
  Args a(L, "Node:host_write", 1);
  return host_write_arg(a, node_self(a));
}

int n_counters(lua_State* L) {
  Args a(L, "Node:counters", 1);
  Node& n = node_self(a);
  const vm::ChipCounters& c = n.chip().counters();
  lua_createtable(L, 0, 16);
  set_int(L, "host_dmas", c.host_dmas);
  set_int(L, "host_dma_bytes_to_host", c.host_dma_bytes_to_host);
  set_int(L, "host_dma_bytes_from_host", c.host_dma_bytes_from_host);
  lua_pushnumber(L, ps_to_ns(c.host_dma_busy_ps));
  lua_setfield(L, -2, "host_dma_busy_ns");
  set_int(L, "packets_sent", c.packets_sent);
  set_int(L, "bytes_sent", c.bytes_sent);
  set_int(L, "packets_received", c.packets_received);
  set_int(L, "bytes_received", c.bytes_received);
  set_int(L, "crc_errors", c.crc_errors);
  set_int(L, "receive_stalls", c.receive_stalls);
  set_int(L, "doorbells", c.doorbells);
  set_int(L, "exact_accesses", c.exact_accesses);
  n.chip().settle(); // asked from a process in the middle of a run: count to now
  set_int(L, "instructions", n.chip().cpu().instructions());
  set_int(L, "dozed_instructions", n.chip().doze_counters().skipped_instructions);
  set_int(L, "interrupts", n.interrupts_delivered());
  return 1;
}

// A FUGU node's network interface counters (docs/udm.md); nil on other nodes.
int n_fugu(lua_State* L) {
  Args a(L, "Node:fugu", 1);
  NodeUD* ud = nullptr;
  node_self(a, &ud);
  const vm::FuguInterface* ni = live_box(a, ud->box).cluster->fugu_interface(ud->index);
  if (!ni) {
    lua_pushnil(L);
    return 1;
  }
  const vm::FuguCounters& f = ni->counters();
  lua_createtable(L, 0, 10);
  set_int(L, "launched", f.launched);
  set_int(L, "received", f.received);
  set_int(L, "disposed", f.disposed);
  set_int(L, "mismatches", f.mismatches);
  set_int(L, "timeouts", f.timeouts);
  set_int(L, "dma_records", f.dma_records);
  set_int(L, "blocked_cycles", f.blocked_cycles);
  set_int(L, "traps", f.traps);
  set_int(L, "crc_dropped", f.crc_dropped);
  set_int(L, "malformed", f.malformed);
  return 1;
}

int n_registers(lua_State* L) {
  Args a(L, "Node:registers", 1);
  Node& n = node_self(a);
  lua_createtable(L, 0, int(std::size(vm::regs::kRegisterNames)));
  for (const auto& r : vm::regs::kRegisterNames)
    if (r.readable) set_int(L, r.name, n.chip().peek(r.offset));
  return 1;
}

// node:nic() -> { clock_hz =, sram_bytes =, cost = { base =, load_use =, mmio = } }: the
// NIC the cluster was built with (the platform's, or lk.cluster's `nic`).
int n_nic(lua_State* L) {
  Args a(L, "Node:nic", 1);
  const vm::ChipParams& c = node_self(a).chip().params();
  lua_createtable(L, 0, 3);
  set_int(L, "clock_hz", int64_t(c.clock_hz));
  set_int(L, "sram_bytes", int64_t(c.sram_bytes));
  lua_createtable(L, 0, 3);
  set_int(L, "base", c.costs.base_cycles);
  set_int(L, "load_use", c.costs.load_use_cycles);
  set_int(L, "mmio", c.costs.mmio_cycles);
  lua_setfield(L, -2, "cost");
  return 1;
}

int n_powered(lua_State* L) {
  Args a(L, "Node:powered", 1);
  lua_pushboolean(L, node_self(a).chip().powered());
  return 1;
}

int n_running(lua_State* L) {
  Args a(L, "Node:running", 1);
  lua_pushboolean(L, node_self(a).chip().running());
  return 1;
}

int n_report(lua_State* L) {
  Args a(L, "Node:report", 1);
  lua_pushstring(L, node_self(a).report().c_str());
  return 1;
}

int n_cluster(lua_State* L) {
  Args a(L, "Node:cluster", 1);
  NodeUD* nd = nullptr;
  node_self(a, &nd);
  push_udata<ClusterUD>(L, kCluster, nd->box);
  return 1;
}

int n_tostring(lua_State* L) {
  auto* n = static_cast<NodeUD*>(luaL_testudata(L, 1, kNode));
  if (!n || !n->box) lua_pushstring(L, "Node(collected)");
  else lua_pushfstring(L, "Node(%d)", int(n->index));
  return 1;
}

// ---- Link methods -------------------------------------------------------------------------

net::Link& link_self(const Args& a) {
  auto& l = a.self<LinkUD>(kLink);
  live_box(a, l.box);
  return *l.link;
}

int l_set_faults(lua_State* L) {
  Args a(L, "Link:set_faults", 1);
  net::Link& link = link_self(a);
  const TableArg t = a.table(1);
  t.only({"seed", "corrupt_probability", "drop_probability", "delay_probability", "extra_delay_ns",
          "corrupt", "drop", "delay"});
  net::FaultPlan f;
  if (auto s = t.opt_integer("seed")) f.seed = uint64_t(*s);
  if (t.has("corrupt_probability")) f.corrupt_probability = t.probability("corrupt_probability");
  if (t.has("drop_probability")) f.drop_probability = t.probability("drop_probability");
  if (t.has("delay_probability")) f.delay_probability = t.probability("delay_probability");
  f.extra_delay_ps = t.opt_time_ns("extra_delay_ns").value_or(0);
  for (auto [key, set] : {std::pair{"corrupt", &f.corrupt_packets}, std::pair{"drop", &f.drop_packets},
                          std::pair{"delay", &f.delay_packets}})
    if (auto list = t.opt_integers(key))
      for (int64_t v : *list) set->insert(uint64_t(v));
  link.set_faults(f);
  return 0;
}

int l_counters(lua_State* L) {
  Args a(L, "Link:counters", 1);
  const net::LinkCounters& c = link_self(a).counters();
  lua_createtable(L, 0, 12);
  set_int(L, "packets_sent", c.packets_sent);
  set_int(L, "bytes_sent", c.bytes_sent);
  set_int(L, "packets_received", c.packets_received);
  set_int(L, "bytes_received", c.bytes_received);
  set_int(L, "crc_errors", c.crc_errors);
  set_int(L, "corrupted", c.corrupted);
  set_int(L, "drops", c.drops);
  set_int(L, "delayed", c.delayed);
  set_int(L, "stops", c.stops);
  lua_pushnumber(L, ps_to_ns(c.time_stopped_ps));
  lua_setfield(L, -2, "time_stopped_ns");
  set_int(L, "max_buffered_bytes", c.max_buffered_bytes);
  return 1;
}

int l_name(lua_State* L) {
  Args a(L, "Link:name", 1);
  lua_pushstring(L, link_self(a).name().c_str());
  return 1;
}

int l_tostring(lua_State* L) {
  auto* l = static_cast<LinkUD*>(luaL_testudata(L, 1, kLink));
  if (!l || !l->box) lua_pushstring(L, "Link(collected)");
  else lua_pushfstring(L, "Link(%s)", l->link->name().c_str());
  return 1;
}

} // namespace

ClusterBox& live_box(const Args& a, const std::shared_ptr<ClusterBox>& box) {
  if (!box || !box->cluster) a.fail_message("the cluster is gone (the Lua state is closing)");
  return *box;
}

void open_cluster(lua_State* L) {
  static const luaL_Reg cmethods[] = {
      {"size", wrap<c_size>},          {"node", wrap<c_node>},
      {"load", wrap<c_load>},          {"start", wrap<c_start>},
      {"route", wrap<c_route>},        {"set_powered", wrap<c_set_powered>},
      {"link", wrap<c_link>},          {"links", wrap<c_links>},
      {"node_tx", wrap<c_node_tx>},    {"node_rx", wrap<c_node_rx>},
      {"run", wrap<c_run>},            {"stop", wrap<c_stop>},
      {"now_ns", wrap<c_now_ns>},      {"now_ps", wrap<c_now_ps>},
      {"trace_hash", wrap<c_trace_hash>}, {"stats", wrap<c_stats>},
      {"bound_census", wrap<c_bound_census>},
      {"atm", wrap<c_atm>},
      {"observe", wrap<c_observe>},    {"observable", wrap<c_observable>},
      {"spawn", wrap<spawn_process>},  {nullptr, nullptr},
  };
  new_type(L, kCluster, cmethods, gc_udata<ClusterUD>, c_tostring);
  static const luaL_Reg nmethods[] = {
      {"index", wrap<n_index>},
      {"load", wrap<n_load>},
      {"start", wrap<n_start>},
      {"sram_write32", wrap<n_sram_write32>},
      {"sram_read32", wrap<n_sram_read32>},
      {"sram_write", wrap<n_sram_write>},
      {"sram_read", wrap<n_sram_read>},
      {"host_alloc", wrap<n_host_alloc>},
      {"host_read32", wrap<n_host_read32>},
      {"host_write32", wrap<n_host_write32>},
      {"host_read", wrap<n_host_read>},
      {"host_write", wrap<n_host_write>},
      {"counters", wrap<n_counters>},
      {"registers", wrap<n_registers>},
      {"nic", wrap<n_nic>},
      {"fugu", wrap<n_fugu>},
      {"powered", wrap<n_powered>},
      {"running", wrap<n_running>},
      {"report", wrap<n_report>},
      {"cluster", wrap<n_cluster>},
      {nullptr, nullptr},
  };
  new_type(L, kNode, nmethods, gc_udata<NodeUD>, n_tostring);
  static const luaL_Reg lmethods[] = {
      {"set_faults", wrap<l_set_faults>},
      {"counters", wrap<l_counters>},
      {"name", wrap<l_name>},
      {nullptr, nullptr},
  };
  new_type(L, kLink, lmethods, gc_udata<LinkUD>, l_tostring);
  lua_pushcfunction(L, wrap<lk_cluster>);
  lua_setfield(L, -2, "cluster");
}

} // namespace lanaikit::sim::lua
