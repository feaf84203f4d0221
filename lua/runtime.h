// The Lua 5.4 scripting runtime behind `lanaikit run script.lua`: a Lua state with the
// `lk` table (also `require "lanaikit"`), the script's `arg`, limits, and the outcome of a
// run (exit status and message). /work/notes/lua_api.md is the API; docs/scripting.md
// the user documentation.
//
// Everything a script does goes through the C++ API underneath (sim::Cluster, sim::Node,
// host::Process, assembler::build), so C++ tests can check the same behaviour directly.
#pragma once

#include "event/time.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct lua_State;

namespace lanaikit::sim::lua {

struct Options {
  std::string source_dir;  // firmware/ and lua-scripts/: the source tree or the installed share dir
  std::string cache_dir;   // firmware cache; "" = no disk cache (memory only)
  std::string crt0;        // startup object and runtime library for lk.firmware
  std::vector<std::string> runtime_objects;
  std::optional<Time> time_limit; // simulated time no cluster may pass (--time-limit-ms)
  double wall_limit_s = 600;      // wall-clock limit of the whole run (--wall-limit-s)
  // How many events and agent batches c:run runs before it first looks at the wall clock
  // (it then adapts to about 50 ms of wall time between looks). Never changes results,
  // not even the event trace; tests vary it.
  uint64_t first_steps = 4096;

  // The defaults (assembler/locations.h): the data dir and runtime objects of the build
  // tree or the installed prefix, and the cache directory ($LANAIKIT_CACHE, else
  // <build dir>/lk-cache, or ~/.cache/lanaikit when installed).
  static Options defaults();
};

// How a run ended; `status` is what `lanaikit run` exits with.
struct Outcome {
  enum Kind { Ok, ScriptError, Limit };
  Kind kind = Ok;
  int status = 0;      // 0, 1 (script or process error), 3 (a limit)
  std::string message; // the traceback or the limit report ("" when Ok)
};

struct CacheStats {
  uint64_t hits = 0;   // images found (in this run's memory or on disk)
  uint64_t misses = 0; // images built (the compiler ran)
};

class Runtime {
public:
  explicit Runtime(Options options = Options::defaults());
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Runs a script file with its arguments (arg[0] = path, arg[1..] = args).
  Outcome run_file(const std::string& path, const std::vector<std::string>& args = {});
  // Runs a chunk of Lua source; `chunkname` appears in messages ("test.lua:3: ...").
  Outcome run_string(const std::string& source, const std::string& chunkname = "chunk");

  lua_State* state();
  const Options& options() const;
  CacheStats cache_stats() const;
  // The trace hash of the clusters created so far (docs/scripting.md, lk.trace_hash).
  uint64_t trace_hash() const;

  struct Impl;
  Impl& impl() { return *impl_; }

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace lanaikit::sim::lua
