// lanaikit: build, run and inspect firmware for a LANai-style NIC processor.
#include "tools/commands.h"

#include "assembler/locations.h"

#include <cstdio>
#include <cstring>
#include <string_view>

namespace {

void usage(std::FILE* out) {
  std::fputs("usage: lanaikit <command> [options]\n"
             "\n"
             "commands:\n"
             "  build    compile and link .fw/.c/.s sources into a Lanai ELF image\n"
             "  exec     run an image on the emulated NIC processor\n"
             "  disasm   disassemble the executable segments of an image\n"
             "  debug    run an image under the debugger (breakpoints, watchpoints, stepping)\n"
             "  echo     run the two-node echo experiment on a simulated cluster\n"
             "  run      run a Lua script (clusters, firmware, host processes)\n"
             "  sweep    run a Lua script over a grid of parameters, locally (-j N) or under mpirun\n"
             "  dissector  write a Wireshark plugin for a firmware's packet header\n"
             "  compare  run the echo experiment with two builds of a control program: what an edit bought\n"
             "\n"
             "Run 'lanaikit <command> --help' for the options of a command;\n"
             "'lanaikit --version' for the version and where its files are.\n",
             out);
}

// The version, and where this executable finds its own files (assembler/locations.h): what
// to look at first when an installed copy does not find its firmware library.
void version() {
  const lanaikit::assembler::Locations& l = lanaikit::assembler::locations();
  std::printf("lanaikit %s\n", LANAIKIT_VERSION);
  std::printf("layout:   %s\n", l.installed ? "installed" : "build tree");
  std::printf("data:     %s\n", l.data_dir.c_str());
  std::printf("runtime:  %s\n", l.crt0.c_str());
  std::printf("cache:    %s\n", l.cache_dir.empty() ? "(memory only)" : l.cache_dir.c_str());
}

} // namespace

int main(int argc, char** argv) {
  using namespace lanaikit::tools;
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const std::string_view cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    usage(stdout);
    return 0;
  }
  if (cmd == "--version" || cmd == "version") {
    version();
    return 0;
  }
  if (cmd == "build") return cmd_build(argc, argv);
  if (cmd == "exec") return cmd_exec(argc, argv);
  if (cmd == "disasm") return cmd_disasm(argc, argv);
  if (cmd == "echo") return cmd_echo(argc, argv);
  if (cmd == "debug") return cmd_debug(argc, argv);
  if (cmd == "run") return cmd_run(argc, argv);
  if (cmd == "dissector") return cmd_dissector(argc, argv);
  if (cmd == "sweep") return cmd_sweep(argc, argv);
  if (cmd == "compare") return cmd_compare(argc, argv);
  std::fprintf(stderr, "lanaikit: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}
