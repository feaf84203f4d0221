// What `lanaikit echo` and `lanaikit compare` share: the echo experiment's options
// (--platform, --sizes, --iterations, --warmup, --handlers), their checks, and the cluster
// and build options the experiment runs with on the chosen platform.
#pragma once

#include "tools/args.h"

#include "assembler/build.h"
#include "assembler/locations.h"
#include "sim/echo_experiment.h"
#include "sim/platform.h"

#include <string>

namespace lanaikit::tools {

// Takes `a` (with its value from `args`) if it is one of the shared options; false if not.
inline bool echo_option(Args& args, const std::string& a, sim::EchoConfig& config, std::string& platform) {
  if (a == "--platform") platform = args.value_for(a);
  else if (a == "--iterations") config.iterations = uint32_t(parse_count(a, args.value_for(a)));
  else if (a == "--warmup") config.warmup = uint32_t(parse_count(a, args.value_for(a)));
  else if (a == "--handlers") config.handlers = split_list(args.value_for(a));
  else if (a == "--sizes") {
    config.sizes.clear();
    for (const auto& s : split_list(args.value_for(a))) config.sizes.push_back(uint32_t(parse_count(a, s)));
    if (config.sizes.empty()) throw UsageError("--sizes needs at least one size");
  } else return false;
  return true;
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
