// lanaikit run: a Lua 5.4 script on the simulation (lua/runtime.h, docs/scripting.md).
#include "tools/args.h"
#include "tools/commands.h"

#include "lua/runtime.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace lanaikit::tools {

namespace {

const char* const kHelp =
    "usage: lanaikit run [options] SCRIPT.lua [ARGS...]\n"
    "\n"
    "Runs a Lua 5.4 script with the lanaikit API: the global table `lk` (also\n"
    "require \"lanaikit\") builds firmware, clusters of simulated nodes, host processes\n"
    "(Lua coroutines) and runs them; `arg` holds the script's arguments (arg[0] = SCRIPT).\n"
    "See docs/scripting.md.\n"
    "\n"
    "options (before SCRIPT; everything after it goes to the script):\n"
    "  --time-limit-ms N  no cluster runs past N simulated milliseconds (default: no limit)\n"
    "  --wall-limit-s N   stop after N seconds of wall-clock time (default 600)\n"
    "  --cache DIR        firmware cache directory (default $LANAIKIT_CACHE, else\n"
    "                     <build dir>/lk-cache); --no-cache keeps images in memory only\n"
    "\n"
    "exit status: 0 the script finished; 1 a Lua error in the script or in one of its\n"
    "processes (the traceback is on stderr); 2 a usage error; 3 a time limit stopped the\n"
    "run (the message says which, the simulated time, and where each chip was).\n";

} // namespace

int cmd_run(int argc, char** argv) {
  sim::lua::Options options = sim::lua::Options::defaults();
  std::string script;
  std::vector<std::string> script_args;
  try {
    Args args(argc, argv, 2);
    while (!args.empty()) {
      const std::string a = args.next();
      if (a == "--help" || a == "-h") {
        std::fputs(kHelp, stdout);
        return 0;
      } else if (a == "--time-limit-ms") {
        options.time_limit = sim::Time(parse_count(a, args.value_for(a))) * sim::kMillisecond;
      } else if (a == "--wall-limit-s") {
        const uint64_t s = parse_count(a, args.value_for(a));
        if (s == 0) throw UsageError("--wall-limit-s must be at least 1");
        options.wall_limit_s = double(s);
      } else if (a == "--cache") {
        options.cache_dir = args.value_for(a);
      } else if (a == "--no-cache") {
        options.cache_dir.clear();
      } else if (a.size() > 1 && a[0] == '-' && script.empty()) {
        throw UsageError("unknown option '" + a + "'");
      } else {
        script = a;
        while (!args.empty()) script_args.push_back(args.next());
      }
    }
    if (script.empty()) throw UsageError("no script given");
    std::error_code ec;
    if (!std::filesystem::is_regular_file(script, ec)) throw UsageError("no script file '" + script + "'");
  } catch (const UsageError& e) {
    return report_usage_error("run", e);
  }
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

} // namespace lanaikit::tools
