// lanaikit sweep: one Lua script over a grid of parameter values, the points run as
// independent child processes on this machine (-j N) or shared among MPI ranks, the
// results merged into one CSV and one JSON table (docs/sweep.md).
#include "tools/commands.h"
#include "tools/run_limits.h"
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

struct Sweep {
  Grid grid;
  RunConfig run;
  RunLimits limits;
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
int finish(const Sweep& cmd, std::vector<Outcome> outcomes, const std::string& how) {
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

int run_local(Sweep& cmd) {
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

int run_mpi(Sweep& cmd) {
  std::unique_ptr<MpiWorld> world;
  try {
    world = std::make_unique<MpiWorld>(nullptr, nullptr); // MPI-2: the arguments are optional
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

int run_sweep(Sweep& cmd) {
  std::error_code ec;
  if (cmd.grid.parameters.empty()) throw UsageError("no --grid given");
  if (!fs::is_regular_file(cmd.run.script, ec)) throw UsageError("no script file '" + cmd.run.script + "'");
  cmd.run.run_options = cmd.limits.arguments();
  if (cmd.run.out_dir.empty()) cmd.run.out_dir = "sweep-" + fs::path(cmd.run.script).stem().string();
  cmd.run.exe = fs::read_symlink("/proc/self/exe", ec).string();
  if (ec) {
    std::fprintf(stderr, "lanaikit sweep: cannot find its own binary (/proc/self/exe): %s\n", ec.message().c_str());
    return 1;
  }
  if (launched_by_mpi()) return run_mpi(cmd);
  return run_local(cmd);
}

} // namespace

Command add_sweep(CLI::App& app) {
  CLI::App* sub = add_command(
      app, "sweep", "run a Lua script over a grid of parameters, locally (-j N) or under mpirun",
      "Runs a Lua script once per point of a grid: every combination of the --grid values,\n"
      "the last --grid varying fastest. A point is `lanaikit run SCRIPT ARGS... --NAME VALUE\n"
      "...` in a child process of its own; the script reports its result with\n"
      "require(\"sweep\").result{name = value, ...} (lua-scripts/lib/sweep.lua). The results\n"
      "are merged, in point order, into DIR/results.csv and DIR/results.json, with the\n"
      "point's values as the first columns. See docs/sweep.md. The options go before SCRIPT;\n"
      "everything after it goes to every point's script, options too.\n"
      "\n"
      "Under mpirun (Open MPI: `mpirun -n 4 lanaikit sweep ...`, with --hostfile across\n"
      "machines), rank r runs the points whose index is r modulo the number of ranks, and\n"
      "rank 0 gathers the results and writes the merged files: the same bytes as one\n"
      "machine's run.\n"
      "\n"
      "exit status: 0 every point has a result; 1 some points failed (they are listed on\n"
      "stderr; the merged files hold the others); 2 a usage error.");
  auto cmd = std::make_shared<Sweep>();
  sub->add_option_function<std::vector<std::string>>(
         "--grid",
         [cmd](const std::vector<std::string>& grids) {
           for (const std::string& g : grids) add_parameter(cmd->grid, parse_parameter(g));
         },
         "a parameter and its values (repeat for more parameters)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->option_text("NAME=V1,V2,... (repeatable)");
  add_count(
      *sub, "-j,--jobs",
      [cmd](uint64_t j) {
        if (j == 0 || j > 1024) throw UsageError("-j must be between 1 and 1024");
        cmd->run.jobs = unsigned(j);
      },
      "run N points at once (default 1; under mpirun, per rank)");
  sub->add_option("-o,--out", cmd->run.out_dir,
                  "output directory (default sweep-<script name>); a point's\n"
                  "stdout, stderr and result are in DIR/points/, and a point whose\n"
                  "result is there already is not run again")
      ->type_name("DIR");
  add_run_limits(*sub, cmd->limits);
  for (const char* name : {"--time-limit-ms", "--wall-limit-s", "--cache", "--no-cache"})
    sub->get_option(name)->group("passed to each point's `lanaikit run` (see its --help)");
  add_positional(*sub, "SCRIPT", cmd->run.script, "the Lua script")->required();
  add_positional(*sub, "ARGS", cmd->run.script_args, "arguments for every point's script, as they are");
  sub->positionals_at_end(); // after SCRIPT, `--nodes 4` is the script's
  Command command{[cmd] { return run_sweep(*cmd); }};
  // Under mpirun every rank finds the same mistake; one message is enough.
  command.report_usage_errors = !launched_by_mpi() || mpi_rank_from_environment() == 0;
  return command;
}

} // namespace lanaikit::tools
