// The options of `lanaikit run` that `lanaikit sweep` hands on to every point's `lanaikit
// run` (time limits, the firmware cache): declared once, so both commands accept, check and
// document the same.
#pragma once

#include "tools/cli.h"

#include "lua/runtime.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lanaikit::tools {

struct RunLimits {
  std::optional<uint64_t> time_limit_ms, wall_limit_s;
  std::optional<std::string> cache_dir;
  bool no_cache = false;

  void apply(sim::lua::Options& options) const {
    if (time_limit_ms) options.time_limit = sim::Time(*time_limit_ms) * sim::kMillisecond;
    if (wall_limit_s) options.wall_limit_s = double(*wall_limit_s);
    if (cache_dir) options.cache_dir = *cache_dir;
    if (no_cache) options.cache_dir.clear();
  }

  // The same options for a child `lanaikit run`.
  std::vector<std::string> arguments() const {
    std::vector<std::string> out;
    if (time_limit_ms) out.insert(out.end(), {"--time-limit-ms", std::to_string(*time_limit_ms)});
    if (wall_limit_s) out.insert(out.end(), {"--wall-limit-s", std::to_string(*wall_limit_s)});
    if (cache_dir) out.insert(out.end(), {"--cache", *cache_dir});
    if (no_cache) out.push_back("--no-cache");
    return out;
  }
};

inline void add_run_limits(CLI::App& cmd, RunLimits& limits) {
  add_count(cmd, "--time-limit-ms", [&limits](uint64_t ms) { limits.time_limit_ms = ms; },
            "no cluster runs past N simulated milliseconds (default: no limit)");
  add_count(
      cmd, "--wall-limit-s",
      [&limits](uint64_t s) {
        if (s == 0) throw UsageError("--wall-limit-s must be at least 1");
        limits.wall_limit_s = s;
      },
      "stop after N seconds of wall-clock time (default 600)");
  CLI::Option* cache = cmd.add_option_function<std::string>(
      "--cache", [&limits](const std::string& dir) { limits.cache_dir = dir; },
      "firmware cache directory (default $LANAIKIT_CACHE, else\n<build dir>/lk-cache)");
  cache->type_name("DIR");
  cmd.add_flag("--no-cache", limits.no_cache, "keep firmware images in memory only (over --cache)");
}

} // namespace lanaikit::tools
