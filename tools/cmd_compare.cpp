// lanaikit compare: the echo experiment run with two builds of a control program, and what
// the edit between them changed (sim/profile_compare.h).
#include "tools/args.h"
#include "tools/commands.h"
#include "tools/echo_options.h"

#include "assembler/build.h"
#include "assembler/locations.h"
#include "sim/echo_experiment.h"
#include "sim/platform.h"
#include "sim/profile_compare.h"

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>

namespace lanaikit::tools {

namespace {

const char* const kHelp =
    "usage: lanaikit compare BEFORE AFTER [--platform NAME|FILE] [--sizes N,N,...]\n"
    "                        [--iterations N] [--warmup N] [--handlers A,B] [--lines N]\n"
    "\n"
    "Runs the echo experiment (see 'lanaikit echo --help') twice on the same platform, once\n"
    "with each build of the control program, both profiled, and prints what the edit\n"
    "bought: the one-way latency and bandwidth per size, each handler's instructions and\n"
    "cycles per call, and the source lines whose executed instructions changed most. The\n"
    "two builds' lines are matched by their text, so code added above a line does not make\n"
    "it a different line. BEFORE and AFTER are one source or a comma-separated list\n"
    "(.fw, .c, .s), paired in order for the line comparison; both are built with -O2 -g.\n"
    "\n"
    "options:\n"
    "  --platform P     a platform file, or a name in lua-scripts/platforms (default vmmc)\n"
    "  --sizes LIST     message sizes in bytes (default 4,64,1024)\n"
    "  --iterations N   measured round trips per size (default 10)\n"
    "  --warmup N       unmeasured round trips first (default 2)\n"
    "  --handlers A,B   symbols profiled as handlers (default send_message,deliver)\n"
    "  --lines N        changed source lines listed (default 20)\n";

// Absolute paths, as the image's line table names its files.
std::vector<std::string> sources(const std::string& list, const char* which) {
  std::vector<std::string> out;
  for (const std::string& s : split_list(list)) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(s, ec)) throw UsageError(std::string(which) + ": no file '" + s + "'");
    out.push_back(std::filesystem::absolute(s).lexically_normal().string());
  }
  if (out.empty()) throw UsageError(std::string(which) + ": no source given");
  return out;
}

} // namespace

int cmd_compare(int argc, char** argv) {
  sim::EchoConfig config;
  config.sizes = {4, 64, 1024};
  config.profile = true;
  std::string platform = "vmmc";
  std::vector<std::string> before, after;
  size_t lines = 20;
  try {
    Args args(argc, argv, 2);
    std::vector<std::string> positional;
    while (!args.empty()) {
      const std::string a = args.next();
      if (a == "--help" || a == "-h") {
        std::fputs(kHelp, stdout);
        return 0;
      } else if (echo_option(args, a, config, platform)) {
      } else if (a == "--lines") lines = size_t(parse_count(a, args.value_for(a)));
      else if (!a.empty() && a[0] == '-') throw UsageError("unknown argument '" + a + "'");
      else positional.push_back(a);
    }
    if (positional.size() != 2) throw UsageError("expected two builds, BEFORE and AFTER");
    before = sources(positional[0], "BEFORE");
    after = sources(positional[1], "AFTER");
    check_echo_options(config);
  } catch (const UsageError& e) {
    return report_usage_error("compare", e);
  }
  try {
    assembler::BuildOptions bo = echo_setup(config, echo_platform(platform));
    bo.opt = assembler::OptLevel::O2;
    bo.debug = true; // line tables for the per-line comparison
    sim::EchoResult results[2];
    const std::vector<std::string>* builds[2] = {&before, &after};
    for (int i = 0; i < 2; ++i) {
      auto image = assembler::build(*builds[i], bo);
      if (!image) {
        std::fprintf(stderr, "lanaikit compare: %s: %s\n", i ? "AFTER" : "BEFORE",
                     llvm::toString(image.takeError()).c_str());
        return 1;
      }
      results[i] = sim::run_echo(config, *image);
    }
    std::vector<std::pair<std::string, std::string>> pairs;
    for (size_t i = 0; i < before.size() && i < after.size(); ++i) pairs.emplace_back(before[i], after[i]);
    auto name = [](const std::vector<std::string>& v) {
      std::string s;
      for (const auto& f : v) s += (s.empty() ? "" : ", ") + f;
      return s;
    };
    std::fputs(sim::format_comparison(results[0], results[1], name(before), name(after), pairs, lines).c_str(),
               stdout);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lanaikit compare: %s\n", e.what());
    return 1;
  }
  return 0;
}

} // namespace lanaikit::tools
