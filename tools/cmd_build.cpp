// lanaikit build: sources -> linked Lanai ELF image, with the bare-program startup code and
// runtime library (firmware/lib) linked in unless -nostdlib.
#include "tools/args.h"
#include "tools/commands.h"

#include "assembler/build.h"
#include "assembler/elf.h"

#include "llvm/Support/Error.h"

#include <cstdio>
#include <sstream>

namespace lanaikit::tools {

namespace {

const char* const kHelp =
    "usage: lanaikit build [-O0|-O1|-O2|-Os] [-g] -o OUT.elf INPUTS...\n"
    "\n"
    "Compiles .c (clang-14 --target=lanai) and assembles .s (LLVM MC, in process), then\n"
    "links them with the startup code and runtime library into a Lanai ELF executable.\n"
    "\n"
    "options:\n"
    "  -O0 -O1 -O2 -Os     optimisation level for .c inputs (default -O2)\n"
    "  -g                  emit a line table (DWARF from clang/MC, kept in the image)\n"
    "  -o FILE             output image (required)\n"
    "  --sram-size BYTES   SRAM the image must fit in (default 256K)\n"
    "  -I DIR, -D NAME[=V] passed to clang for .c inputs\n"
    "  -nostdlib           link only the inputs (they must define _start)\n";

std::vector<std::string> split_list(const char* list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ';'))
    if (!item.empty()) out.push_back(item);
  return out;
}

} // namespace

int cmd_build(int argc, char** argv) {
  assembler::BuildOptions options;
  options.startup = LANAIKIT_CRT0;
  options.runtime = split_list(LANAIKIT_RUNTIME_OBJECTS);
  std::string output;
  std::vector<std::string> inputs;
  try {
    Args args(argc, argv, 2);
    while (!args.empty()) {
      const std::string a = args.next();
      if (a == "--help" || a == "-h") {
        std::fputs(kHelp, stdout);
        return 0;
      } else if (a == "-O0") options.opt = assembler::OptLevel::O0;
      else if (a == "-O1") options.opt = assembler::OptLevel::O1;
      else if (a == "-O2") options.opt = assembler::OptLevel::O2;
      else if (a == "-Os") options.opt = assembler::OptLevel::Os;
      else if (a == "-g") options.debug = true;
      else if (a == "-o") output = args.value_for(a);
      else if (a == "--sram-size") {
        const uint64_t size = parse_count(a, args.value_for(a));
        if (size == 0 || size % 4 != 0 || size > 0x80000000ull)
          throw UsageError("--sram-size must be a non-zero multiple of 4 up to 2G");
        options.sram_size = uint32_t(size);
      } else if (a == "-nostdlib") options.nostdlib = true;
      else if (a == "-I") options.include_dirs.push_back(args.value_for(a));
      else if (a.rfind("-I", 0) == 0) options.include_dirs.push_back(a.substr(2));
      else if (a == "-D") options.defines.push_back(args.value_for(a));
      else if (a.rfind("-D", 0) == 0) options.defines.push_back(a.substr(2));
      else if (!a.empty() && a[0] == '-') throw UsageError("unknown option '" + a + "'");
      else inputs.push_back(a);
    }
    if (output.empty()) throw UsageError("no output file: use -o OUT.elf");
    if (inputs.empty()) throw UsageError("no input files");
  } catch (const UsageError& e) {
    return report_usage_error("build", e);
  }

  std::vector<std::string> warnings;
  auto image = assembler::build(inputs, options, &warnings);
  for (const auto& w : warnings) std::fprintf(stderr, "%s\n", w.c_str());
  if (!image) {
    std::fprintf(stderr, "%s\n", llvm::toString(image.takeError()).c_str());
    return 1;
  }
  if (auto err = assembler::write_elf(*image, output)) {
    std::fprintf(stderr, "lanaikit build: %s\n", llvm::toString(std::move(err)).c_str());
    return 1;
  }
  return 0;
}

} // namespace lanaikit::tools
