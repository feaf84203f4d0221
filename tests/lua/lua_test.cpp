// The Lua binding layer (lua/): argument errors, userdata lifetimes, Lua processes'
// timing, the firmware cache, determinism, tracebacks, limits, and the Lua echo experiment
// against the C++ one.
#include "lua/internal.h"
#include "lua/runtime.h"

#include "assembler/build.h"
#include "sim/echo_experiment.h"
#include "sim/platform.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace lanaikit::sim::lua {
namespace {

namespace fs = std::filesystem;

const std::string kSource = LANAIKIT_SOURCE_DIR;
const std::string kScripts = kSource + "/tests/lua/scripts";

// A fresh, empty cache directory per test (the disk cache is tested on purpose).
std::string temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() /
                     ("lanaikit-lua-test-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

Options options(const std::string& cache = "") {
  Options o = Options::defaults();
  o.cache_dir = cache;
  return o;
}

Outcome run(const std::string& source, Options o = options()) {
  Runtime rt(std::move(o));
  return rt.run_string(source, "t.lua");
}

// ---- argument errors ------------------------------------------------------------------------

struct ErrorCase {
  const char* name;
  const char* script;
  const char* message;
};

class ArgumentErrors : public testing::TestWithParam<ErrorCase> {};

TEST_P(ArgumentErrors, NameTheFunctionTheArgumentAndTheExpectation) {
  const ErrorCase& ec = GetParam();
  const Outcome out = run(std::string("local c = lk.cluster{ nodes = 2 }\n") + ec.script);
  EXPECT_EQ(out.status, 1);
  EXPECT_NE(out.message.find(ec.message), std::string::npos) << out.message;
  EXPECT_NE(out.message.find("t.lua:2:"), std::string::npos) << "no position: " << out.message;
}

const ErrorCase kErrorCases[] = {
    {"ClusterNodesNotANumber", "lk.cluster{ nodes = 'x' }",
     "lk.cluster: argument 1 field 'nodes': expected a positive integer, got string"},
    {"ClusterNodesZero", "lk.cluster{ nodes = 0 }",
     "lk.cluster: argument 1 field 'nodes': expected a positive integer, got number 0"},
    {"ClusterNotATable", "lk.cluster(5)", "lk.cluster: argument 1: expected a table, got number 5"},
    {"ClusterUnknownField", "lk.cluster{ nodez = 2 }",
     "lk.cluster: argument 1 field 'nodez': unknown field (expected one of: platform, nodes"},
    {"ClusterBadTopology", "lk.cluster{ topology = 'ring' }",
     "lk.cluster: argument 1 field 'topology': expected \"switch\", \"chain\" or \"clos\", got \"ring\""},
    {"ClusterPlatformNotATable", "lk.cluster{ platform = 42 }",
     "lk.cluster: argument 1 field 'platform': expected a platform table (lk.platform) or a platform name, got number 42"},
    {"EditedPlatformIsChecked", "local p = lk.platform('vmmc'); p.link.latency_ns = 'slow'; lk.cluster{ platform = p }",
     "lk.cluster: argument 1 field 'platform': vmmc.lua: link.latency_ns: expected a number, got a string"},
    {"NodeIndexOutOfRange", "c:node(5)", "Cluster:node: argument 1: expected a Node or a node index in 0..1, got number 5"},
    {"MethodWithoutColon", "c.node(1)", "Cluster:node: expected a Cluster as self (call it with ':'), got number 1"},
    {"WrongUserdata", "c:node(0):load(c)", "Node:load: argument 1: expected a Firmware, got Cluster"},
    {"MissingSource", "lk.firmware{ sources = { 'nope.c' } }",
     "lk.firmware: argument 1 field 'sources[1]': no such file 'nope.c'"},
    {"BadOptLevel", "lk.firmware{ sources = 'firmware/echo/echo.c', opt = 'O9' }",
     "lk.firmware: argument 1 field 'opt': expected one of \"O0\", \"O1\", \"O2\", \"Os\", got \"O9\""},
    {"SramBytesBeyond32Bits", "lk.firmware{ sources = 'firmware/echo/echo.c', sram_bytes = 2^40 }",
     "lk.firmware: argument 1 field 'sram_bytes': expected a multiple of 4 up to 2 GiB (2147483648), got 1099511627776"},
    {"NegativeTime", "c:run{ until_ns = -1 }",
     "Cluster:run: argument 1 field 'until_ns': expected a non-negative time in ns up to 2^62 ps (about 53 days), got number -1"},
    {"TimeBeyondTheClock", "c:run{ for_ns = 2^80 }",
     "Cluster:run: argument 1 field 'for_ns': expected a non-negative time in ns up to 2^62 ps (about 53 days), got number"},
    {"AdvanceBeyondTheClock", "c:spawn(0, 'p', function(p) p:advance_ns(1e300) end); c:run{ for_ns = 10 }",
     "Process:advance_ns: argument 1: expected a non-negative time in ns up to 2^62 ps (about 53 days), got number"},
    {"AdvanceRepeatedlyBeyondTheClock", "c:spawn(0, 'p', function(p) for _ = 1, 5 do p:advance_ns(2e15) end end); c:run{ for_ns = 10 }",
     "process 'node0.p': advancing 2000000000000000000 ps from local time 4000000000000000000 ps passes the clock's end"},
    {"CsvRowWithAFieldTheHeaderLacks", "lk.write_csv('/nonexistent/x.csv', { { a = 1 }, { a = 2, b = 3 } })",
     "lk.write_csv: argument 2: row 2 has field 'b', which the first row (the header: a) lacks; pass the columns as argument 3"},
    {"CsvRowLongerThanTheHeader", "lk.write_csv('/nonexistent/x.csv', { { 1, 2, 3 } }, { 'a', 'b' })",
     "lk.write_csv: argument 2: row 1 has 3 values for 2 columns (a, b)"},
    {"SramOutOfRange", "c:node(0):sram_read32(0x40000)", "Node:sram_read32: argument 1: SRAM range [262144, 262148) is outside the chip's 262144 bytes"},
    {"NotAFunction", "c:spawn(0, 'p', 42)", "Cluster:spawn: argument 3: expected a function, got number 42"},
    {"ProbabilityOutOfRange", "c:node_tx(0):set_faults{ corrupt_probability = 2 }",
     "Link:set_faults: argument 1 field 'corrupt_probability': expected a probability in [0, 1], got number 2"},
    {"FaultListElement", "c:node_tx(0):set_faults{ drop = { 1, 'x' } }",
     "Link:set_faults: argument 1 field 'drop[2]': expected a non-negative integer, got string"},
    {"NoSuchLink", "c:link('nope')", "Cluster:link: argument 1: no link named 'nope'"},
    {"RngBadRange", "lk.rng(1):uniform(5, 1)", "Rng:uniform: argument 2: expected an integer >= argument 1 (5), got 1"},
    {"NoSuchPlatform", "lk.platform('atlantis')", "lk.platform: argument 1: no platform file"},
    // Recursive walks of Lua tables grow the Lua stack, stop at a depth and name cycles
    // (they wrote past the stack ~10 levels down: a segfault after the error came back).
    {"JsonCycle", "local t = { a = {} }; t.a.b = t; lk.write_json('/nonexistent/x.json', t)",
     "lk.write_json: argument 2: cycle at value.a.b: the table is value again"},
    {"JsonNestedTooDeep", "local t = {}; local c = t; for _ = 1, 150 do c[1] = {}; c = c[1] end; lk.write_json('/nonexistent/x.json', t)",
     "lk.write_json: argument 2: table nested deeper than 100 at value[1][1]"},
    {"PlatformCycle", "local p = lk.platform('vmmc'); p.pci.back = p; lk.cluster{ platform = p }",
     "lk.cluster: argument 1 field 'platform': cycle at pci.back: the table is the platform again"},
    {"PlatformNestedTooDeep", "local p = lk.platform('vmmc'); local c = p.pci; for _ = 1, 40 do c.x = {}; c = c.x end; lk.cluster{ platform = p }",
     "lk.cluster: argument 1 field 'platform': table nested deeper than 32 at pci.x.x.x"},
    {"RegisterName", "c:spawn(0, 'p', function(p) p:pio_write_reg('NOPE', 1) end); c:run{ for_ns = 10 }",
     "Process:pio_write_reg: argument 1: no register named 'NOPE'"},
    {"BlockingOutsideTheProcess", "local p = c:spawn(0, 'p', function(p) end); p:sync()",
     "Process:sync: must be called from the process's own function"},
    {"RunWithoutAnEnd", "c:run()", "Cluster:run: needs until_ns or for_ns"},
    {"Fnv1a32OfANumber", "lk.fnv1a32(5)", "lk.fnv1a32: argument 1: expected a string, got number 5"},
    {"Fnv1a32BasisBeyond32Bits", "lk.fnv1a32('x', 2^32)", "lk.fnv1a32: argument 2: expected a 32-bit unsigned integer"},
};

INSTANTIATE_TEST_SUITE_P(Lua, ArgumentErrors, testing::ValuesIn(kErrorCases),
                         [](const testing::TestParamInfo<ErrorCase>& i) { return std::string(i.param.name); });

// ---- lifetimes ------------------------------------------------------------------------------

TEST(Lifetimes, NodeOutlivesItsClusterVariable) {
  const Outcome out = run(R"(
    local n, l, proc
    do
      local c = lk.cluster{ nodes = 2 }
      n = c:node(1)
      l = c:node_tx(0)
      proc = c:spawn(0, "p", function(p) p:advance_ns(10); p:sync() end)
    end
    collectgarbage(); collectgarbage()
    n:sram_write32(0, 5)
    assert(n:sram_read32(0) == 5)
    assert(l:counters().packets_sent == 0)
    local c2 = n:cluster()
    c2:run{ for_ns = 1000 }
    assert(proc:done())
    n = nil; l = nil; proc = nil; c2 = nil
    collectgarbage(); collectgarbage()
  )");
  EXPECT_EQ(out.status, 0) << out.message;
}

TEST(Lifetimes, ClusterCollectedWhileProcessesWait) {
  // A process waiting forever keeps its cluster; closing the state with it still waiting
  // frees everything (ASan checks).
  Runtime rt(options());
  const Outcome out = rt.run_string(R"(
    local c = lk.cluster{ nodes = 2 }
    c:spawn(1, "waiter", function(p) p:wait_memory(function() return false end) end)
    c:spawn(0, "quick", function(p) p:sync() end)
    c:run{ for_ns = 5000, stop_when_processes_done = false }
    c = nil
    collectgarbage(); collectgarbage()
  )", "t.lua");
  EXPECT_EQ(out.status, 0) << out.message;
}

TEST(Lifetimes, FinishedProcessesLetTheClusterGo) {
  Runtime rt(options());
  const Outcome out = rt.run_string(R"(
    local c = lk.cluster{ nodes = 2 }
    c:spawn(0, "p", function(p) p:sync() end)
    c:run{ for_ns = 100 }
    first_hash = c:trace_hash()
    c = nil
    collectgarbage(); collectgarbage()
    assert(lk.trace_hash() == first_hash)
  )", "t.lua");
  EXPECT_EQ(out.status, 0) << out.message;
  auto box = rt.impl().clusters.at(0).box.lock();
  EXPECT_EQ(box, nullptr) << "the cluster should have been collected";
}

// ---- processes ------------------------------------------------------------------------------

TEST(Processes, PioReadTakesThePlatformsBusTime) {
  Runtime rt(options());
  const Outcome out = rt.run_string(R"(
    local c = lk.cluster{ platform = "vmmc", nodes = 2 }
    c:node(0):sram_write32(0x200, 0x01020304)
    c:spawn(0, "reader", function(p)
      p:advance_ns(1000)
      local t0 = p:now_ps()
      value = p:pio_read32(0x200)
      took_ps = p:now_ps() - t0
      local t1 = p:now_ps()
      isr = p:pio_read_reg("ISR")
      reg_ps = p:now_ps() - t1
    end)
    c:run{ for_ns = 10000 }
  )", "t.lua");
  ASSERT_EQ(out.status, 0) << out.message;
  lua_State* L = rt.state();
  lua_getglobal(L, "took_ps");
  EXPECT_EQ(lua_tointeger(L, -1), 422000); // PLATFORMS.md: "PIO over PCI: read 0.422 us"
  lua_getglobal(L, "value");
  EXPECT_EQ(lua_tointeger(L, -1), 0x01020304);
  lua_getglobal(L, "reg_ps");
  EXPECT_EQ(lua_tointeger(L, -1), 422000);
  lua_settop(L, 0);
}

int64_t global_field(lua_State* L, const char* table, const char* field) {
  lua_getglobal(L, table);
  lua_getfield(L, -1, field);
  const int64_t v = lua_tointeger(L, -1);
  lua_pop(L, 2);
  return v;
}

TEST(Processes, WaitMemoryWakesAtTheDmasTime) {
  // Node 1's process waits for the completion record the echo firmware DMAs into its host
  // memory; it must wake exactly when that DMA completes.
  Runtime rt(options());
  Outcome out = rt.run_string(R"(
    package.path = ")" + kScripts + R"(/?.lua;" .. package.path
    local E = require "echo_setup"
    c, bufs = E.cluster(2)
    c:spawn(0, "sender", function(p) E.send(p, 1, "ping") end)
    c:spawn(1, "waiter", function(p)
      p:wait_memory(function() return E.seq(c:node(1), bufs[1]) == 1 end)
      woke_ps = p:now_ps()
    end)
  )", "setup.lua");
  ASSERT_EQ(out.status, 0) << out.message;
  auto box = rt.impl().clusters.at(0).box.lock();
  ASSERT_NE(box, nullptr);
  std::vector<Time> dma_done;
  box->cluster->node(1).chip().on_event([&](const vm::ChipEventRecord& e) {
    if (e.kind == vm::ChipEvent::HostDmaDone) dma_done.push_back(e.time);
  });
  out = rt.run_string("c:run{ until_ns = 1e6 }", "run.lua");
  ASSERT_EQ(out.status, 0) << out.message;
  ASSERT_EQ(dma_done.size(), 2u); // payload, then the completion record
  lua_State* L = rt.state();
  lua_getglobal(L, "woke_ps");
  EXPECT_EQ(lua_tointeger(L, -1), dma_done.back());
  lua_settop(L, 0);
}

TEST(Processes, LuaEchoMatchesTheCppEchoExperiment) {
  // `lanaikit echo --sizes 4` and the Lua port must agree on the one-way latency (and, as
  // they do the same things in the same order, on the whole event trace).
  const Platform plat = load_platform(kSource + "/lua-scripts/platforms/vmmc.lua");
  EchoConfig config;
  config.cluster = cluster_params(plat, 2);
  config.sizes = {4};
  config.warmup = 2;
  config.iterations = 10;
  assembler::BuildOptions bo;
  bo.startup = Options::defaults().crt0;
  bo.runtime = Options::defaults().runtime_objects;
  bo.sram_size = config.cluster.node.chip.sram_bytes;
  auto image = assembler::build({kSource + "/firmware/echo/echo.c"}, bo);
  ASSERT_TRUE(bool(image)) << llvm::toString(image.takeError());
  const EchoResult cpp = run_echo(config, *image);

  Runtime rt(options());
  const Outcome out = rt.run_file(kScripts + "/echo_latency.lua", {"4", "2", "10"});
  ASSERT_EQ(out.status, 0) << out.message;
  EXPECT_EQ(global_field(rt.state(), "result", "median_ps"), cpp.sizes.at(0).median);
  EXPECT_GT(cpp.sizes.at(0).median, 0);
  // Same actions in the same order: the very same events.
  EXPECT_EQ(uint64_t(global_field(rt.state(), "result", "trace_hash")), cpp.trace_hash);
}

TEST(Processes, ErrorInsideAProcessStopsTheRunWithItsTraceback) {
  const Outcome out = run(R"(local c = lk.cluster{ nodes = 2 }
c:spawn(0, "bad", function(p)
  p:advance_ns(5)
  error("boom")
end)
c:run{ for_ns = 1000 }
error("not reached")
)");
  EXPECT_EQ(out.status, 1);
  EXPECT_NE(out.message.find("process 'node0.bad' failed"), std::string::npos) << out.message;
  EXPECT_NE(out.message.find("t.lua:4: boom"), std::string::npos) << out.message;
  EXPECT_NE(out.message.find("stack traceback"), std::string::npos) << out.message;
  EXPECT_EQ(out.message.find("not reached"), std::string::npos) << out.message;
}

TEST(Processes, ErrorInAWaitConditionIsTheProcessesError) {
  const Outcome out = run(R"(local c = lk.cluster{ nodes = 2 }
c:spawn(0, "cond", function(p)
  p:wait_memory(function() return nil + 1 end)
end)
c:run{ for_ns = 1000 }
)");
  EXPECT_EQ(out.status, 1);
  EXPECT_NE(out.message.find("process 'node0.cond' failed: in its wait_memory condition"), std::string::npos)
      << out.message;
  EXPECT_NE(out.message.find("t.lua:3:"), std::string::npos) << out.message;
}

TEST(Processes, CoroutineYieldInsideAProcessIsAnError) {
  const Outcome out = run(R"(local c = lk.cluster{ nodes = 2 }
c:spawn(0, "y", function(p) coroutine.yield() end)
c:run{ for_ns = 1000 }
)");
  EXPECT_EQ(out.status, 1);
  EXPECT_NE(out.message.find("coroutine.yield"), std::string::npos) << out.message;
}

TEST(Errors, FirmwareFaultStopsTheRunWithTheChipsReport) {
  const std::string src = temp_dir("fault-src");
  std::ofstream(src + "/fault.s") << "  .globl _start\n_start:\n  .long 0xffffffff\n";
  const Outcome out = run("local fw = lk.firmware{ sources = '" + src + "/fault.s', nostdlib = true }\n"
                          "local c = lk.cluster{ nodes = 2 }\n"
                          "c:load(fw); c:start()\n"
                          "c:run{ for_ns = 10000 }\n");
  EXPECT_EQ(out.status, 1);
  EXPECT_NE(out.message.find("the firmware of node0.chip faulted"), std::string::npos) << out.message;
  fs::remove_all(src);
}

// A recursion in firmware on a cluster node runs into the stack guard above the image's
// pinned globals: the run stops with "stack overflow" and a backtrace naming the function.
// The cluster option stack_guard = 0 removes the guard.
TEST(Errors, FirmwareStackOverflowIsNamedWithTheBacktrace) {
  const std::string src = temp_dir("overflow-src");
  std::ofstream(src + "/deep.fw")
      << "import \"debug.fw\";\n"
         "var box: u32[16] @ 0x8000;\n"
         "fn descend(n: u32) -> u32 {\n"
         "  box[n & 15] = n;\n"
         "  if n == 0 { return 0; }\n"
         "  return descend(n - 1) + box[n & 15];\n"
         "}\n"
         "fn main() -> i32 { return descend(1000000) as i32; }\n";
  auto script = [&](const std::string& guard) {
    return "local fw = lk.firmware{ sources = '" + src + "/deep.fw', debug = true }\n" +
           "local c = lk.cluster{ nodes = 2" + guard + " }\n" +
           "c:load(fw); c:start()\nc:run{ for_ns = 100000000 }\n";
  };
  Outcome out = run(script(""));
  EXPECT_EQ(out.status, 1);
  EXPECT_NE(out.message.find(".chip faulted at simulated time"), std::string::npos) << out.message;
  // The guard sits above the pinned global box ([0x8000, 0x8040)), not above the image.
  EXPECT_NE(out.message.find("fault: stack overflow (a store into the stack guard [00008040, 00008140)"),
            std::string::npos)
      << out.message;
  EXPECT_NE(out.message.find("in descend+0x"), std::string::npos) << out.message;
  EXPECT_NE(out.message.find("deep.fw:"), std::string::npos) << out.message;
  EXPECT_NE(out.message.find("the same frame"), std::string::npos) << out.message;
  out = run(script(", stack_guard = 0"));
  EXPECT_EQ(out.message.find("stack overflow"), std::string::npos) << out.message;
  out = run(script(", stack_guard = 6"));
  EXPECT_EQ(out.status, 1);
  EXPECT_NE(out.message.find("stack_guard"), std::string::npos) << out.message;
  fs::remove_all(src);
}

TEST(Errors, ScriptErrorHasFileAndLine) {
  const Outcome out = run("local x = 1\nlocal y = x + nil\n");
  EXPECT_EQ(out.status, 1);
  EXPECT_NE(out.message.find("t.lua:2:"), std::string::npos) << out.message;
  EXPECT_NE(out.message.find("stack traceback"), std::string::npos) << out.message;
}

TEST(Errors, LkAssertCarriesTheSimulatedTime) {
  const Outcome out = run("local c = lk.cluster{ nodes = 2 }\nc:run{ for_ns = 1500 }\nlk.assert(false, 'late')\n");
  EXPECT_EQ(out.status, 1);
  EXPECT_NE(out.message.find("t.lua:3: late (at simulated time 1.500 us)"), std::string::npos) << out.message;
}

// ---- limits ---------------------------------------------------------------------------------

TEST(Limits, SimulatedTimeLimitStopsWithExitStatus3) {
  Options o = options();
  o.time_limit = 20 * kMicrosecond;
  const Outcome out = run(R"(
    local c = lk.cluster{ nodes = 2 }
    local ok = pcall(c.run, c, { until_ns = 1e9 }) -- caught or not, the limit sticks
  )", o);
  EXPECT_EQ(out.status, 3);
  EXPECT_EQ(out.kind, Outcome::Limit);
  EXPECT_NE(out.message.find("simulated-time limit of 0.02 ms"), std::string::npos) << out.message;
  EXPECT_NE(out.message.find("cluster 1 at simulated time 20.000 us"), std::string::npos) << out.message;
  EXPECT_NE(out.message.find("node0.chip"), std::string::npos) << out.message;
}

TEST(Limits, WallLimitStopsALuaLoop) {
  Options o = options();
  o.wall_limit_s = 0.2;
  const Outcome out = run("while true do end", o);
  EXPECT_EQ(out.status, 3);
  EXPECT_NE(out.message.find("wall-clock limit of 0.2 s"), std::string::npos) << out.message;
}

TEST(Limits, WallLimitStopsASimulationThatNeverEnds) {
  Options o = options();
  o.wall_limit_s = 0.3;
  const Outcome out = run(R"(
    local c = lk.cluster{ nodes = 2 }
    c:spawn(0, "spin", function(p) while true do p:advance_ns(1000); p:sync() end end)
    c:run{ stop_when_processes_done = true }
  )", o);
  EXPECT_EQ(out.status, 3);
  EXPECT_NE(out.message.find("wall-clock limit"), std::string::npos) << out.message;
  EXPECT_NE(out.message.find("where the chips are"), std::string::npos) << out.message;
}

TEST(Limits, WallLimitStopsAWaitConditionThatNeverReturns) {
  Options o = options();
  o.wall_limit_s = 0.2;
  const Outcome out = run(R"(
    local c = lk.cluster{ nodes = 2 }
    c:spawn(0, "w", function(p) p:wait_memory(function() while true do end end) end)
    c:run{ for_ns = 1000 }
  )", o);
  EXPECT_EQ(out.status, 3);
  EXPECT_NE(out.message.find("wall-clock limit"), std::string::npos) << out.message;
}

// ---- results --------------------------------------------------------------------------------

TEST(Results, CsvJsonAndSvgFilesAreWritten) {
  const std::string dir = temp_dir("results");
  const Outcome out = run("local d = '" + dir + R"('
    lk.write_csv(d .. '/t.csv', { { bytes = 4, us = 6.5 }, { bytes = 64, us = 9.25 } })
    lk.write_csv(d .. '/p.csv', { { 1, 'a' }, { 2, 'b,c' } }, { 'n', 's' })
    lk.write_json(d .. '/r.json', { name = 'echo', sizes = { 4, 64 }, ok = true, empty = {} })
    lk.plot_svg(d .. '/l.svg', { title = 'latency', x_label = 'bytes', y_label = 'us', log_x = true,
                                series = { { name = 'vmmc', points = { { 4, 6.5 }, { 64, 9.25 } } } } })
    lk.progress(1, 2, 'x'); lk.progress(2, 2, 'x')
    local ok, err = pcall(lk.write_json, d .. '/bad.json', { f = function() end })
    assert(not ok and err:find("lk.write_json: argument 2: at value.f: a function has no JSON form", 1, true), err)
  )");
  ASSERT_EQ(out.status, 0) << out.message;
  auto slurp = [](const std::string& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  EXPECT_EQ(slurp(dir + "/t.csv"), "bytes,us\r\n4,6.5\r\n64,9.25\r\n");
  EXPECT_EQ(slurp(dir + "/p.csv"), "n,s\r\n1,a\r\n2,\"b,c\"\r\n");
  const std::string json = slurp(dir + "/r.json");
  EXPECT_NE(json.find("\"empty\": []"), std::string::npos) << json;
  EXPECT_LT(json.find("\"empty\""), json.find("\"name\"")) << "keys are sorted: " << json;
  const nlohmann::json doc = nlohmann::json::parse(json);
  EXPECT_EQ(doc.at("name"), "echo");
  EXPECT_EQ(doc.at("sizes"), nlohmann::json({4, 64}));
  EXPECT_EQ(doc.at("ok"), true);
  EXPECT_NE(slurp(dir + "/l.svg").find("<svg"), std::string::npos);
  fs::remove_all(dir);
}

// lk.fnv1a32: the published FNV-1a test vectors, chaining, and the loop scripts wrote in Lua
// before (vmmc/stress.lua's checksum) on every byte value.
TEST(Results, Fnv1a32IsFnv1a) {
  const Outcome out = run(R"(
    assert(lk.fnv1a32('') == 0x811c9dc5)
    assert(lk.fnv1a32('a') == 0xe40c292c)
    assert(lk.fnv1a32('foobar') == 0xbf9cf968)
    assert(lk.fnv1a32('bar', lk.fnv1a32('foo')) == lk.fnv1a32('foobar'))
    local t = {}
    for b = 0, 255 do t[#t + 1] = string.char(b, 255 - b) end
    local s = table.concat(t)
    local h = 12345
    for n = 1, #s do h = ((h ~ s:byte(n)) * 16777619) & 0xFFFFFFFF end
    assert(lk.fnv1a32(s, 12345) == h, ('%x %x'):format(lk.fnv1a32(s, 12345), h))
  )");
  EXPECT_EQ(out.status, 0) << out.message;
}

// ---- determinism ----------------------------------------------------------------------------

TEST(Determinism, SameScriptSameTraceHashWhateverThePauses) {
  uint64_t hashes[3] = {};
  const uint64_t steps[3] = {4096, 1, 333};
  for (int i = 0; i < 3; ++i) {
    Options o = options();
    o.first_steps = steps[i];
    Runtime rt(o);
    const Outcome out = rt.run_file(kScripts + "/echo_latency.lua", {"16", "1", "3"});
    ASSERT_EQ(out.status, 0) << out.message;
    hashes[i] = uint64_t(global_field(rt.state(), "result", "trace_hash"));
  }
  EXPECT_NE(hashes[0], 0u);
  EXPECT_EQ(hashes[0], hashes[1]);
  EXPECT_EQ(hashes[0], hashes[2]);
}

// c:run pauses to read the wall clock (after Options::first_steps events, at first); a pause
// at the goal's instant is not its end: every event due then still runs.
TEST(Determinism, APauseAtTheGoalsInstantIsNotTheEnd) {
  Options o = options();
  o.first_steps = 1;
  Runtime rt(o);
  const Outcome out = rt.run_string(R"(
    local c = lk.cluster{ nodes = 3 }
    done = 0
    for i = 1, 300 do -- the pauses (after 1, 2, 4, ... steps) fall among their events
      c:spawn(i % 3, "p" .. i, function(p) p:advance_ns(1000); p:sync(); done = done + 1 end)
    end
    c:run{ until_ns = 1000 }
    assert(done == 300, ("%d of 300 processes ran at the goal's instant"):format(done))
  )", "t.lua");
  EXPECT_EQ(out.status, 0) << out.message;
}

// ---- firmware cache -------------------------------------------------------------------------

TEST(FirmwareCache, SecondBuildOfAnUnchangedSourceDoesNotCompile) {
  const std::string dir = temp_dir("cache");
  const std::string src = temp_dir("cache-src");
  {
    std::ofstream(src + "/prog.c") << "#include \"value.h\"\nint main(void) { return VALUE; }\n";
    std::ofstream(src + "/value.h") << "#define VALUE 3\n";
  }
  const std::string script = "fw = lk.firmware{ sources = { '" + src + "/prog.c' } }\n"
                             "fw2 = lk.firmware{ sources = { '" + src + "/prog.c' } }\n";
  std::string key;
  fs::file_time_type mtime;
  {
    Runtime rt(options(dir));
    const Outcome out = rt.run_string(script, "t.lua");
    ASSERT_EQ(out.status, 0) << out.message;
    EXPECT_EQ(rt.cache_stats().misses, 1u); // built once
    EXPECT_EQ(rt.cache_stats().hits, 1u);   // then found in memory
    key = rt.impl().firmware_cache().key({src + "/prog.c"}, [&] {
      assembler::BuildOptions bo;
      bo.startup = Options::defaults().crt0;
      bo.runtime = Options::defaults().runtime_objects;
      return bo;
    }());
    ASSERT_TRUE(fs::exists(rt.impl().firmware_cache().path_for(key)));
    mtime = fs::last_write_time(rt.impl().firmware_cache().path_for(key));
  }
  {
    Runtime rt(options(dir));
    const Outcome out = rt.run_string(script + "local s = lk.firmware_cache_stats()\n"
                                                "assert(s.hits == 2 and s.misses == 0)\n", "t.lua");
    ASSERT_EQ(out.status, 0) << out.message;
    EXPECT_EQ(rt.cache_stats().misses, 0u) << "an unchanged source was compiled again";
    EXPECT_EQ(fs::last_write_time(rt.impl().firmware_cache().path_for(key)), mtime);
  }
  // Changing an included header changes the key.
  std::ofstream(src + "/value.h") << "#define VALUE 4\n";
  {
    Runtime rt(options(dir));
    const Outcome out = rt.run_string(script, "t.lua");
    ASSERT_EQ(out.status, 0) << out.message;
    EXPECT_EQ(rt.cache_stats().misses, 1u) << "a changed header must rebuild";
  }
  fs::remove_all(dir);
  fs::remove_all(src);
}

// Two builds that differ only in a -D of a firmware-language build option never share an
// image, in memory or on disk; fw:constant reads the value each was built with.
TEST(FirmwareCache, DefinesAreInTheKey) {
  const std::string dir = temp_dir("cache-defines");
  const std::string src = temp_dir("cache-defines-src");
  std::ofstream(src + "/opt.fw") << "option const DEPTH: u32 = 4;\nconst WIDTH = 8;\n"
                                    "fn main() -> i32 { return DEPTH as i32; }\n";
  const std::string fw = "{ sources = { '" + src + "/opt.fw' }";
  const std::string script =
      "local a = lk.firmware" + fw + ", defines = { DEPTH = 16 } }\n"
      "local b = lk.firmware" + fw + ", defines = { DEPTH = 32 } }\n"
      "local c = lk.firmware" + fw + " }\n"
      "local d = lk.firmware" + fw + ", defines = { DEPTH = '0x10' } }\n"
      "assert(a:constant('DEPTH') == 16 and b:constant('DEPTH') == 32)\n"
      "assert(c:constant('DEPTH') == 4 and d:constant('DEPTH') == 16)\n"
      "assert(a:constants().WIDTH == 8 and a:constants().DEPTH == 16)\n";
  Runtime rt(options(dir));
  const Outcome out = rt.run_string(script, "t.lua");
  ASSERT_EQ(out.status, 0) << out.message;
  EXPECT_EQ(rt.cache_stats().misses, 4u) << "builds with different defines shared an image";
  const Outcome missing = rt.run_string("lk.firmware" + fw + " }:constant('NOPE')", "m.lua");
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.message.find("no constant 'NOPE' in the image's layout table (it has: "),
            std::string::npos)
      << missing.message;
  EXPECT_NE(missing.message.find("DEPTH"), std::string::npos) << missing.message;
  const Outcome bad = rt.run_string("lk.firmware" + fw + ", defines = { DEPTH = {} } }", "b.lua");
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.message.find("defines.DEPTH"), std::string::npos) << bad.message;
  fs::remove_all(dir);
  fs::remove_all(src);
}

// The key is XXH3-128 (libxxhash) of a length-prefixed stream: the empty stream gives the
// published XXH3-128 of no bytes, and moving a byte between two strings changes the key.
TEST(FirmwareCache, KeyHashIsXxh3With128BitsOverLengthPrefixedStrings) {
  EXPECT_EQ(KeyHash().hex(), "99aa06d3014798d86001c324468d497f");
  KeyHash a, b;
  a.str("ab");
  a.str("c");
  b.str("a");
  b.str("bc");
  EXPECT_NE(a.hex(), b.hex());
  EXPECT_EQ(a.hex().size(), 32u);
}

TEST(FirmwareCache, CachedImageEqualsAFreshBuild) {
  const std::string dir = temp_dir("cache-eq");
  const std::string echo = kSource + "/firmware/echo/echo.c";
  assembler::BuildOptions bo;
  bo.startup = Options::defaults().crt0;
  bo.runtime = Options::defaults().runtime_objects;
  FirmwareCache a(dir, "test");
  auto built = a.get({echo}, bo);
  FirmwareCache b(dir, "test");
  auto read = b.get({echo}, bo);
  EXPECT_EQ(b.misses(), 0u);
  EXPECT_EQ(*built, *read);
  FirmwareCache c(dir, "another build");
  c.get({echo}, bo);
  EXPECT_EQ(c.misses(), 1u) << "another lanaikit build must not reuse the image";
  fs::remove_all(dir);
}

TEST(FirmwareCache, BuildErrorsReachTheScript) {
  const std::string src = temp_dir("bad-src");
  std::ofstream(src + "/bad.c") << "int main(void) { return undeclared; }\n";
  const Outcome out = run("lk.firmware{ sources = '" + src + "/bad.c' }");
  EXPECT_EQ(out.status, 1);
  EXPECT_NE(out.message.find("lk.firmware: build failed"), std::string::npos) << out.message;
  EXPECT_NE(out.message.find("undeclared"), std::string::npos) << out.message;
  fs::remove_all(src);
}

} // namespace
} // namespace lanaikit::sim::lua
