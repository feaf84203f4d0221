// What `lanaikit echo` and `lanaikit compare` share: the echo experiment's options
// (--platform, --sizes, --iterations, --warmup, --handlers), their checks, and the cluster
// and build options the experiment runs with on the chosen platform.
#pragma once

#include "tools/cli.h"

#include "assembler/build.h"
#include "assembler/locations.h"
#include "sim/echo_experiment.h"
#include "sim/platform.h"

#include <string>

namespace lanaikit::tools {

// Adds the shared options to `cmd`, read into `config` and `platform`. `default_sizes` is
// what --help says --sizes defaults to.
inline void add_echo_options(CLI::App& cmd, sim::EchoConfig& config, std::string& platform,
                             const std::string& default_sizes) {
  cmd.add_option("--platform", platform, "a platform file, or a name in lua-scripts/platforms (default vmmc)")
      ->type_name("NAME|FILE");
  cmd.add_option_function<std::string>(
         "--sizes",
         [&config](const std::string& list) {
           config.sizes.clear();
           for (const auto& s : split_list(list)) config.sizes.push_back(uint32_t(parse_count("--sizes", s)));
           if (config.sizes.empty()) throw UsageError("--sizes needs at least one size");
         },
         "message sizes in bytes (default " + default_sizes + ")")
      ->type_name("N,N,...");
  add_count(cmd, "--iterations", config.iterations, "measured round trips per size (default 10)");
  add_count(cmd, "--warmup", config.warmup, "unmeasured round trips first (default 2)");
  cmd.add_option_function<std::string>(
         "--handlers", [&config](const std::string& list) { config.handlers = split_list(list); },
         "symbols profiled as handlers (default send_message,deliver)")
      ->type_name("A,B");
}

// The checks once every option is read.
inline void check_echo_options(const sim::EchoConfig& config) {
  if (config.iterations == 0) throw UsageError("--iterations must be at least 1");
  for (uint32_t s : config.sizes)
    if (s > 65536) throw UsageError("--sizes: at most 65536 bytes");
}

// The --platform option's platform.
inline sim::Platform echo_platform(const std::string& platform) {
  return sim::load_platform(assembler::locations().platform_file(platform));
}

// Puts the platform's two-node cluster into `config` and returns the options firmware for
// it is built with: lanaikit's startup code and runtime library, its SRAM size.
inline assembler::BuildOptions echo_setup(sim::EchoConfig& config, const sim::Platform& platform) {
  const assembler::Locations& where = assembler::locations();
  config.cluster = sim::cluster_params(platform, 2);
  assembler::BuildOptions bo;
  bo.startup = where.crt0;
  bo.runtime = where.runtime_objects;
  bo.library_dir = where.firmware_lib();
  bo.sram_size = config.cluster.node.chip.sram_bytes;
  return bo;
}

} // namespace lanaikit::tools
