// lanaikit run: a Lua 5.4 script on the simulation (lua/runtime.h, docs/scripting.md).
#include "tools/commands.h"
#include "tools/run_limits.h"

#include "lua/runtime.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace lanaikit::tools {

namespace {

struct Options {
  RunLimits limits;
  std::string script;
  std::vector<std::string> script_args;
};

int run(const Options& o) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(o.script, ec)) throw UsageError("no script file '" + o.script + "'");
  sim::lua::Options options = sim::lua::Options::defaults();
  o.limits.apply(options);
  const std::string& script = o.script;
  const std::vector<std::string>& script_args = o.script_args;
  try {
    sim::lua::Runtime runtime(options);
    const sim::lua::Outcome out = runtime.run_file(script, script_args);
    std::fflush(stdout);
    if (out.status != 0) std::fprintf(stderr, "lanaikit run: %s\n", out.message.c_str());
    return out.status;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lanaikit run: %s\n", e.what());
    return 1;
  }
}

} // namespace

Command add_run(CLI::App& app) {
  CLI::App* cmd = add_command(
      app, "run", "run a Lua script (clusters, firmware, host processes)",
      "Runs a Lua 5.4 script with the lanaikit API: the global table `lk` (also\n"
      "require \"lanaikit\") builds firmware, clusters of simulated nodes, host processes\n"
      "(Lua coroutines) and runs them; `arg` holds the script's arguments (arg[0] = SCRIPT).\n"
      "See docs/scripting.md. The options go before SCRIPT; everything after it goes to the\n"
      "script, options too.\n"
      "\n"
      "exit status: 0 the script finished; 1 a Lua error in the script or in one of its\n"
      "processes (the traceback is on stderr); 2 a usage error; 3 a time limit stopped the\n"
      "run (the message says which, the simulated time, and where each chip was).");
  auto o = std::make_shared<Options>();
  add_run_limits(*cmd, o->limits);
  add_positional(*cmd, "SCRIPT", o->script, "the Lua script")->required();
  add_positional(*cmd, "ARGS", o->script_args, "the script's arguments, as they are");
  cmd->positionals_at_end(); // after SCRIPT, `--nodes 4` is the script's
  return {[o] { return run(*o); }};
}

} // namespace lanaikit::tools
