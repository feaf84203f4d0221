// libFuzzer target over the Lua API (`lk`, docs/scripting.md): the input's bytes choose a
// short Lua script of calls of lk's functions and of methods of whatever they returned,
// with arguments of every kind (integers and floats at their limits, NaN and infinities,
// strings short and long, nested tables with the API's own keys, nil, booleans, functions
// that call more of the API, tables holding themselves). Every call is wrapped in pcall:
// it must work or raise a Lua error. The script runs in the runtime `lanaikit run` uses
// (lua/runtime.h) with a small simulated-time limit and a wall-clock limit; a crash, a
// sanitizer report, a hang or running out of memory is a bug.
//
// The process works in a temporary directory (scripts may write result files anywhere
// relative); firmware paths resolve against the source tree; images are cached on disk
// (the build's lk-cache) so each source compiles once.
//
// Built only with -DLANAIKIT_FUZZ=ON and clang; run with scripts/fuzz.sh lua [seconds].
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "lua/runtime.h"

namespace {

namespace lk = lanaikit::sim::lua;

// lk's functions (docs/scripting.md).
const char* const kFunctions[] = {
    "platform", "firmware", "cluster", "rng", "write_csv", "write_json", "plot_svg",
    "progress", "assert", "trace_hash", "firmware_cache_stats", "host_costs", "list_dir",
    "vmmc", "bip"};

// Methods of the objects they return (lua/*.cpp method tables).
const char* const kMethods[] = {
    "addr", "advance_ns", "alloc", "best_packet", "break_at", "breakdown", "choice", "clear",
    "cluster", "constant", "constants", "continue", "costs", "counters", "debugger", "detach",
    "done", "endpoint", "entry", "exponential", "export", "fields", "finish", "globals",
    "handlers", "host_alloc", "host_read", "host_read32", "host_write", "host_write32", "id",
    "import", "index", "info", "invocations", "irecv", "isend", "layout", "limits", "link",
    "links", "load", "message_trace", "model_time", "mynode", "name", "next_notification",
    "nic", "node", "node_rx", "node_tx", "now_ns", "now_ps", "numnodes", "on_break",
    "on_notification", "open", "paused", "peek", "pio_read32", "pio_read_reg", "pio_write",
    "pio_write32", "pio_write_reg", "poke", "posted", "powered", "probe", "profile", "read",
    "read32", "real", "recv", "recv_done", "ref", "registers", "report", "route", "run",
    "running", "seen", "send", "send_done", "sends_in_flight", "set_faults", "set_powered",
    "size", "span", "spawn", "sram_read", "sram_read32", "sram_write", "sram_write32",
    "start", "stats", "step", "stop", "summary", "symbol", "sync", "test", "timeline",
    "trace_hash", "uniform", "utilisation", "wait", "wait_interrupt", "wait_memory",
    "wait_recv", "wait_send", "wait_word", "wait_words", "waited_ns", "watch", "write", "write32",
    "write_callgrind", "write_routes", "symbol", "wait"};

// Table keys and string values the API reads (lua/*.cpp field names, platform names).
const char* const kWords[] = {
    "vmmc", "bip", "dart", "udm", "hamlyn", "switch", "chain", "clos", "O0", "O2", "Os",
    "platform", "nic", "nodes", "topology", "nodes_per_switch", "spines", "max_batch",
    "host_pages", "stop_on_fault", "stop_when_processes_done", "sources", "opt", "debug",
    "defines", "include", "nostdlib", "sram_bytes", "cflags", "seed", "until_ns", "for_ns",
    "corrupt_probability", "drop_probability", "delay_probability", "extra_delay_ns",
    "corrupt", "drop", "delay", "async", "notify", "allow", "last", "title", "x_label",
    "y_label", "log_x", "log_y", "width", "height", "series", "points", "name", "link",
    "latency_ns", "clock_hz", "cost", "base", "load_use", "mmio", "pci", "host", "costs",
    "from", "to", "handler", "handlers", "sample_every", "max_events", "max_invocations",
    "window_ns", "start_ns", "end_ns", "ISR", "EIMR", "HOST_SIG", "RTC", "raw", "echo",
    "firmware/raw/raw.fw", "firmware/echo/echo.c", "firmware/vmmc/vmmc.fw",
    "firmware/bip/bip.fw", "raw.sendq[3].len", "raw.routes[2]", "vmmc.go", "vmmc",
    "vmmc_routes", "main", "_start", "PACKET_BYTES=64", "X=1", "node0->switch0.0",
    "switch0.0->node0", "lua-scripts/platforms/vmmc.lua", "/nonexistent/x", ".", "",
    "results.csv", "out.json", "plot.svg", "prof.callgrind"};

// Numbers at the edges.
const char* const kNumbers[] = {
    "0", "1", "-1", "2", "3", "7", "64", "4096", "65536", "262144", "0x7fffffff",
    "0xffffffff", "0x100000000", "-0x80000000", "math.maxinteger", "math.mininteger",
    "(2^53)", "(2^63)", "(-2^63)", "(1/0)", "(-1/0)", "(0/0)", "0.5", "-0.5", "1e308",
    "1e-308", "1e9", "1e12", "(2^62)", "1000", "100000"};

// Reads the input a byte at a time (zeros past its end).
struct Src {
  const uint8_t* p;
  size_t n;
  uint8_t byte() {
    if (!n) return 0;
    --n;
    return *p++;
  }
  uint32_t below(uint32_t k) { return k ? byte() % k : 0; }
  bool more() const { return n > 0; }
  template <size_t N> const char* pick(const char* const (&a)[N]) { return a[below(N)]; }
};

// Appends to the script one piece at a time: each draw from the input is its own
// statement, so the script is the same whatever order a compiler evaluates operands in
// (the replay in the normal build is compiled by gcc, the fuzzer by clang).
struct Gen {
  Src in;
  std::string out;

  void word(const char* w) {
    out += '"';
    out += w;
    out += '"';
  }

  void value(int depth) {
    switch (in.below(depth > 2 ? 6 : 11)) {
    case 0: out += "nil"; break;
    case 1: out += in.pick(kNumbers); break;
    case 2: out += std::to_string(int(in.byte()) - 16); break;
    case 3: word(in.pick(kWords)); break;
    case 4:
      out += "V[";
      out += std::to_string(1 + in.below(8));
      out += "]";
      break;
    case 5: {
      // A float from eight bytes (hex, as Lua reads it; NaN and infinities as expressions).
      uint64_t bits = 0;
      for (int i = 0; i < 8; ++i) bits = bits << 8 | in.byte();
      double d;
      std::memcpy(&d, &bits, 8);
      char buf[64];
      if (std::isnan(d)) std::snprintf(buf, sizeof buf, "(0/0)");
      else if (std::isinf(d)) std::snprintf(buf, sizeof buf, d > 0 ? "(1/0)" : "(-1/0)");
      else std::snprintf(buf, sizeof buf, "(%a)", d);
      out += buf;
      break;
    }
    case 6: { // a table: list items and keyed fields, nested
      out += "{";
      const uint32_t k = in.below(6);
      for (uint32_t i = 0; i < k; ++i) {
        if (in.below(2)) {
          out += "[";
          word(in.pick(kWords));
          out += "]=";
        }
        value(depth + 1);
        out += ",";
      }
      out += "}";
      break;
    }
    case 7: { // a string of raw bytes, escaped
      out += "\"";
      const uint32_t k = in.below(24);
      for (uint32_t i = 0; i < k; ++i) {
        out += "\\";
        out += std::to_string(in.byte());
      }
      out += "\"";
      break;
    }
    case 8: out += in.below(2) ? "true" : "false"; break;
    case 9: // a long string, or a table holding itself
      if (in.below(2)) {
        out += "string.rep(\"a\", ";
        out += std::to_string(1 << in.below(18));
        out += ")";
      }
      else out += "(function() local t = {1, 2} t.t = t t[3] = t return t end)()";
      break;
    default: { // a function whose body calls more of the API with its arguments in V
      out += "function(...) local a = {...} for i = 1, #a do V[8 - i % 4] = a[i] end ";
      statements(depth + 1, 1 + in.below(3));
      out += in.below(2) ? "return V[1] end" : "error(\"fuzz\") end";
      break;
    }
    }
  }

  void arguments(int depth) {
    const uint32_t k = in.below(5);
    for (uint32_t i = 0; i < k; ++i) {
      out += ", ";
      value(depth);
    }
  }

  void statements(int depth, uint32_t count) {
    for (uint32_t s = 0; s < count && in.more(); ++s) {
      const std::string slot = std::to_string(1 + in.below(8));
      switch (in.below(4)) {
      case 0: // lk.f(args)
        out += "S(" + slot + ", pcall(lk.";
        out += in.pick(kFunctions);
        arguments(depth);
        out += "))\n";
        break;
      case 1: // o:m(args), o any value held so far
      case 2:
        out += "S(" + slot + ", pcall(function() local o = V[";
        out += std::to_string(1 + in.below(8));
        out += "] return o[";
        word(in.pick(kMethods));
        out += "](o";
        arguments(depth);
        out += ") end))\n";
        break;
      default: // o.key = value (platform tables are edited this way)
        out += "pcall(function() V[" + slot + "][";
        word(in.pick(kWords));
        out += "] = ";
        value(depth);
        out += " end)\n";
        break;
      }
    }
  }
};

std::string script(const uint8_t* data, size_t size) {
  Gen g{{data, size}, {}};
  g.out = "local V = {}\nlocal function S(k, ok, v) if ok then V[k] = v end end\n";
  // Two cheap starting points, so that the methods of clusters and platforms are in reach.
  const uint8_t prelude = g.in.byte();
  if (prelude & 1) g.out += "S(1, pcall(lk.cluster, {nodes = 2}))\n";
  if (prelude & 2) g.out += "S(2, pcall(lk.platform, \"vmmc\"))\n";
  if (prelude & 4) g.out += "S(3, pcall(lk.firmware, \"firmware/raw/raw.fw\"))\n";
  g.statements(0, 40);
  return g.out;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Result files the scripts write land in a fresh directory (corpus paths must be
  // absolute: scripts/fuzz.sh passes them so).
  static char dir[] = "/tmp/lua_fuzz.XXXXXX";
  if (!mkdtemp(dir) || chdir(dir) != 0) {
    std::perror("lua_fuzz: temporary directory");
    std::abort();
  }
  // Removed at a normal exit (a finding aborts and leaves it, with what the script wrote).
  std::atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string source = script(data, size);
  if (std::getenv("LUA_FUZZ_PRINT")) std::fprintf(stderr, "%s\n", source.c_str());
  lk::Options options = lk::Options::defaults();
  options.time_limit = 2 * lanaikit::sim::kMillisecond;
  options.wall_limit_s = 5;
  lk::Runtime runtime(options);
  const lk::Outcome out = runtime.run_string(source, "fuzz.lua");
  if (out.kind != lk::Outcome::Ok && out.message.empty()) {
    std::fprintf(stderr, "lua_fuzz: the run failed (status %d) without a message\n", out.status);
    std::abort();
  }
  return 0;
}
