// lanaikit sweep: one Lua script over a grid of parameter values, the points run as
// independent child processes on this machine (-j N) or shared among MPI ranks, the
// results merged into one CSV and one JSON table (docs/sweep.md).
#include "tools/args.h"
#include "tools/commands.h"
#include "tools/sweep_grid.h"
#include "tools/sweep_merge.h"
#include "tools/sweep_mpi.h"
#include "tools/sweep_runner.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace lanaikit::tools {

namespace {

namespace fs = std::filesystem;
using namespace sweep;

const char* const kHelp =
    "usage: lanaikit sweep [options] --grid NAME=V1,V2,... [--grid ...] SCRIPT.lua [ARGS...]\n"
    "\n"
    "Runs a Lua script once per point of a grid: every combination of the --grid values,\n"
    "the last --grid varying fastest. A point is `lanaikit run SCRIPT ARGS... --NAME VALUE\n"
    "...` in a child process of its own; the script reports its result with\n"
    "require(\"sweep\").result{name = value, ...} (lua-scripts/lib/sweep.lua). The results\n"
    "are merged, in point order, into DIR/results.csv and DIR/results.json, with the\n"
    "point's values as the first columns. See docs/sweep.md.\n"
    "\n"
    "options (before SCRIPT; everything after it goes to every point's script):\n"
    "  --grid NAME=V1,V2,...  a parameter and its values (repeat for more parameters)\n"
    "  -j N               run N points at once (default 1; under mpirun, per rank)\n"
    "  -o DIR, --out DIR  output directory (default sweep-<script name>); a point's\n"
    "                     stdout, stderr and result are in DIR/points/, and a point whose\n"
    "                     result is there already is not run again\n"
    "  --time-limit-ms N, --wall-limit-s N, --cache DIR, --no-cache\n"
    "                     passed to each point's `lanaikit run` (see its --help)\n"
    "\n"
    "Under mpirun (Open MPI: `mpirun -n 4 lanaikit sweep ...`, with --hostfile across\n"
    "machines), rank r runs the points whose index is r modulo the number of ranks, and\n"
    "rank 0 gathers the results and writes the merged files: the same bytes as one\n"
    "machine's run.\n"
    "\n"
    "exit status: 0 every point has a result; 1 some points failed (they are listed on\n"
    "stderr; the merged files hold the others); 2 a usage error.\n";

struct Command {
  Grid grid;
  RunConfig run;
};

bool write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  return bool(out);
}

// The rank a launcher gave this process, before MPI_Init (0 if it says nothing).
int mpi_rank_from_environment() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (const char* v = std::getenv(name)) return std::atoi(v);
  return 0;
}

// Writes the merged files and lists the failures; returns the exit status.
int finish(const Command& cmd, std::vector<Outcome> outcomes, const std::string& how) {
  std::sort(outcomes.begin(), outcomes.end(), [](const Outcome& a, const Outcome& b) { return a.index < b.index; });
  const std::string csv = cmd.run.out_dir + "/results.csv", json = cmd.run.out_dir + "/results.json";
  if (!write_text(csv, merged_csv(cmd.grid, outcomes)) || !write_text(json, merged_json(cmd.grid, outcomes))) {
    std::fprintf(stderr, "lanaikit sweep: cannot write the merged results in '%s'\n", cmd.run.out_dir.c_str());
    return 1;
  }
  size_t failed = 0;
  for (const Outcome& o : outcomes) failed += !o.ok;
  std::fprintf(stderr, "lanaikit sweep: %zu points (%s), %zu failed; results in %s and %s\n", outcomes.size(),
               how.c_str(), failed, csv.c_str(), json.c_str());
  if (failed == 0) return 0;
  std::fprintf(stderr, "lanaikit sweep: %zu of %zu points failed:\n", failed, outcomes.size());
  for (const Outcome& o : outcomes)
    if (!o.ok) std::fprintf(stderr, "  %s: %s\n", cmd.grid.stem(o.index).c_str(), o.failure.c_str());
  return 1;
}

// Failed outcomes for points a rank could not run at all (so that no rank leaves the
// others waiting in the gather).
std::vector<Outcome> all_failed(const std::vector<uint64_t>& indices, const std::string& why) {
  std::vector<Outcome> out;
  for (const uint64_t i : indices) {
    Outcome o;
    o.index = i;
    o.failure = why;
    out.push_back(std::move(o));
  }
  return out;
}

int run_local(Command& cmd) {
  std::vector<uint64_t> indices(cmd.grid.size());
  for (uint64_t i = 0; i < indices.size(); ++i) indices[i] = i;
  cmd.run.progress_label = "sweep";
  RunStats stats;
  std::vector<Outcome> outcomes;
  try {
    outcomes = run_points(cmd.grid, cmd.run, indices, stats);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lanaikit sweep: %s\n", e.what());
    return 1;
  }
  return finish(cmd, std::move(outcomes),
                std::to_string(stats.ran) + " run, " + std::to_string(stats.reused) + " done before");
}

int run_mpi(Command& cmd, int* argc, char*** argv) {
  std::unique_ptr<MpiWorld> world;
  try {
    world = std::make_unique<MpiWorld>(argc, argv);
  } catch (const std::exception& e) {
    if (mpi_rank_from_environment() == 0) std::fprintf(stderr, "lanaikit sweep: %s\n", e.what());
    return 2;
  }
  std::vector<uint64_t> shard; // round robin: neighbouring points often cost alike
  for (uint64_t i = uint64_t(world->rank()); i < cmd.grid.size(); i += uint64_t(world->size())) shard.push_back(i);
  if (world->rank() == 0) cmd.run.progress_label = "sweep (rank 0 of " + std::to_string(world->size()) + ")";
  RunStats stats;
  std::vector<Outcome> mine;
  try {
    mine = run_points(cmd.grid, cmd.run, shard, stats);
  } catch (const std::exception& e) {
    mine = all_failed(shard, "rank " + std::to_string(world->rank()) + ": " + e.what());
  }
  const std::string all = world->gather(serialize_outcomes(mine));
  int status = 0;
  if (world->rank() == 0) {
    try {
      status = finish(cmd, parse_outcomes(all), std::to_string(world->size()) + " MPI ranks");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "lanaikit sweep: %s\n", e.what());
      status = 1;
    }
  }
  return world->broadcast(status);
}

} // namespace

int cmd_sweep(int argc, char** argv) {
  Command cmd;
  try {
    Args args(argc, argv, 2);
    while (!args.empty()) {
      const std::string a = args.next();
      if (a == "--help" || a == "-h") {
        std::fputs(kHelp, stdout);
        return 0;
      } else if (a == "--grid") {
        add_parameter(cmd.grid, parse_parameter(args.value_for(a)));
      } else if (a == "-j" || a == "--jobs") {
        const uint64_t j = parse_count(a, args.value_for(a));
        if (j == 0 || j > 1024) throw UsageError(a + " must be between 1 and 1024");
        cmd.run.jobs = unsigned(j);
      } else if (a == "-o" || a == "--out") {
        cmd.run.out_dir = args.value_for(a);
      } else if (a == "--time-limit-ms" || a == "--wall-limit-s" || a == "--cache") {
        const std::string v = args.value_for(a);
        if (a != "--cache") parse_count(a, v);
        cmd.run.run_options.insert(cmd.run.run_options.end(), {a, v});
      } else if (a == "--no-cache") {
        cmd.run.run_options.push_back(a);
      } else if (a.size() > 1 && a[0] == '-') {
        throw UsageError("unknown option '" + a + "'");
      } else {
        cmd.run.script = a;
        while (!args.empty()) cmd.run.script_args.push_back(args.next());
      }
    }
    if (cmd.run.script.empty()) throw UsageError("no script given");
    if (cmd.grid.parameters.empty()) throw UsageError("no --grid given");
    std::error_code ec;
    if (!fs::is_regular_file(cmd.run.script, ec)) throw UsageError("no script file '" + cmd.run.script + "'");
  } catch (const UsageError& e) {
    // Under mpirun every rank finds the same mistake; one message is enough.
    if (launched_by_mpi() && mpi_rank_from_environment() != 0) return 2;
    return report_usage_error("sweep", e);
  }
  if (cmd.run.out_dir.empty()) cmd.run.out_dir = "sweep-" + fs::path(cmd.run.script).stem().string();
  std::error_code ec;
  cmd.run.exe = fs::read_symlink("/proc/self/exe", ec).string();
  if (ec) {
    std::fprintf(stderr, "lanaikit sweep: cannot find its own binary (/proc/self/exe): %s\n", ec.message().c_str());
    return 1;
  }
  if (launched_by_mpi()) return run_mpi(cmd, &argc, &argv);
  return run_local(cmd);
}

} // namespace lanaikit::tools
