// lanaikit compare: the echo experiment run with two builds of a control program, and what
// the edit between them changed (sim/profile_compare.h).
#include "tools/commands.h"
#include "tools/echo_options.h"

#include "assembler/build.h"
#include "assembler/locations.h"
#include "sim/echo_experiment.h"
#include "sim/platform.h"
#include "sim/profile_compare.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>

namespace lanaikit::tools {

namespace {

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

struct Options {
  sim::EchoConfig config;
  std::string platform = "vmmc";
  std::string before, after;
  size_t lines = 20;
};

int compare(Options& o) {
  const std::vector<std::string> before = sources(o.before, "BEFORE"), after = sources(o.after, "AFTER");
  check_echo_options(o.config);
  sim::EchoConfig& config = o.config;
  const std::string& platform = o.platform;
  const size_t lines = o.lines;
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

} // namespace

Command add_compare(CLI::App& app) {
  CLI::App* cmd = add_command(
      app, "compare", "run the echo experiment with two builds of a control program: what an edit bought",
      "Runs the echo experiment (see 'lanaikit echo --help') twice on the same platform, once\n"
      "with each build of the control program, both profiled, and prints what the edit\n"
      "bought: the one-way latency and bandwidth per size, each handler's instructions and\n"
      "cycles per call, and the source lines whose executed instructions changed most. The\n"
      "two builds' lines are matched by their text, so code added above a line does not make\n"
      "it a different line. BEFORE and AFTER are one source or a comma-separated list\n"
      "(.fw, .c, .s), paired in order for the line comparison; both are built with -O2 -g.");
  auto o = std::make_shared<Options>();
  o->config.sizes = {4, 64, 1024};
  o->config.profile = true;
  add_positional(*cmd, "BEFORE", o->before, "the control program before the edit: a source or a list")->required();
  add_positional(*cmd, "AFTER", o->after, "the control program after the edit: a source or a list")->required();
  add_echo_options(*cmd, o->config, o->platform, "4,64,1024");
  add_count(*cmd, "--lines", o->lines, "changed source lines listed (default 20)");
  return {[o] { return compare(*o); }};
}

} // namespace lanaikit::tools
