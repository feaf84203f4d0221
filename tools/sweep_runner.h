// Runs points of a sweep on this machine (docs/sweep.md): each point is a child process,
// `lanaikit run [run options] SCRIPT [ARGS...] --name value ...` (the same binary,
// /proc/self/exe), so a point that crashes or hangs cannot take the sweep down; up to
// `jobs` at once. A point's stdout and stderr go to DIR/points/STEM.out and .err; its
// result (lua-scripts/lib/sweep.lua writes it to the file named by the environment
// variable LANAIKIT_SWEEP_RESULT) becomes DIR/points/STEM.json once the run has exited 0
// and the result checks out. A point whose .json exists and checks out is not run again.
#pragma once

#include "tools/sweep_grid.h"
#include "tools/sweep_merge.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lanaikit::tools::sweep {

// The environment variable that names a point's result file.
inline constexpr const char* kResultVariable = "LANAIKIT_SWEEP_RESULT";

struct RunConfig {
  std::string exe;                      // the lanaikit binary (/proc/self/exe)
  std::vector<std::string> run_options; // passed to `lanaikit run` before the script
  std::string script;
  std::vector<std::string> script_args; // before each point's --name value pairs
  std::string out_dir;
  unsigned jobs = 1;
  std::string progress_label; // "" = no progress bar
};

struct RunStats {
  uint64_t reused = 0; // points whose result was already there
  uint64_t ran = 0;    // points run now (successful or not)
};

// The points_dir of an output directory: DIR/points.
std::string points_dir(const std::string& out_dir);

// Runs the points `indices` of `grid` (skipping those already done); the outcomes come
// back in the order of `indices`. Throws std::runtime_error when the output directory
// cannot be made or a child cannot be started at all.
std::vector<Outcome> run_points(const Grid& grid, const RunConfig& config, const std::vector<uint64_t>& indices,
                                RunStats& stats);

} // namespace lanaikit::tools::sweep
