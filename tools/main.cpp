// lanaikit: build, run and inspect firmware for a LANai-style NIC processor.
#include "tools/commands.h"

#include "assembler/locations.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace {

// The version, and where this executable finds its own files (assembler/locations.h): what
// to look at first when an installed copy does not find its firmware library.
std::string version() {
  const lanaikit::assembler::Locations& l = lanaikit::assembler::locations();
  return std::string("lanaikit ") + LANAIKIT_VERSION +                       //
         "\nlayout:   " + (l.installed ? "installed" : "build tree") +        //
         "\ndata:     " + l.data_dir +                                         //
         "\nruntime:  " + l.crt0 +                                             //
         "\ncache:    " + (l.cache_dir.empty() ? "(memory only)" : l.cache_dir);
}

} // namespace

int main(int argc, char** argv) {
  using namespace lanaikit::tools;
  CLI::App app("lanaikit: build, run and inspect firmware for a LANai-style NIC processor", "lanaikit");
  configure_app(app, version);
  // In the order `lanaikit --help` lists them.
  std::map<std::string, Command> commands;
  commands["build"] = add_build(app);
  commands["exec"] = add_exec(app);
  commands["disasm"] = add_disasm(app);
  commands["debug"] = add_debug(app);
  commands["echo"] = add_echo(app);
  commands["run"] = add_run(app);
  commands["sweep"] = add_sweep(app);
  commands["dissector"] = add_dissector(app);
  commands["compare"] = add_compare(app);
  app.footer("Run 'lanaikit <command> --help' for the options of a command;\n"
             "'lanaikit --version' for the version and where its files are.");

  if (argc < 2) {
    std::fputs(app.help().c_str(), stderr);
    return 2;
  }
  const std::string first = argv[1];
  if (first == "help") {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  }
  if (first == "version") {
    std::printf("%s\n", version().c_str());
    return 0;
  }
  const auto command = commands.find(first);
  if (command == commands.end() && first[0] != '-') {
    std::fprintf(stderr, "lanaikit: unknown command '%s'\n", first.c_str());
    std::fputs(app.help().c_str(), stderr);
    return 2;
  }
  const std::string name = command == commands.end() ? "" : first;
  const bool report = command == commands.end() || command->second.report_usage_errors;

  // CLI11 reads its arguments last first.
  std::vector<std::string> args(argv + 1, argv + argc);
  if (command != commands.end())
    for (std::string& a : args)
      for (const auto& [spelling, meaning] : command->second.spellings)
        if (a == spelling) a = meaning;
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
    return command->second.run();
  } catch (const CLI::Success& e) { // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const CLI::App* cmd = name.empty() ? &app : app.get_subcommand(name);
    return report ? report_usage_error(name, usage_message(e, *cmd)) : 2;
  } catch (const UsageError& e) {
    return report ? report_usage_error(name, e.what()) : 2;
  }
}
