// lanaikit build: sources -> linked Lanai ELF image, with the bare-program startup code and
// runtime library (firmware/lib) linked in unless -nostdlib.
#include "tools/args.h"
#include "tools/commands.h"

#include "assembler/build.h"
#include "assembler/elf.h"
#include "assembler/fw/compile.h"
#include "assembler/locations.h"

#include "llvm/Support/Error.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>

namespace lanaikit::tools {

namespace {

const char* const kHelp =
    "usage: lanaikit build [-O0|-O1|-O2|-Os] [-g] -o OUT.elf INPUTS...\n"
    "       lanaikit build --emit=ast|ir|asm|obj [options] [-o OUT] FILE.fw\n"
    "\n"
    "Compiles .fw (the firmware language, docs/language.md) and .c (clang-14\n"
    "--target=lanai), assembles .s (LLVM MC, in process), then links them with the startup\n"
    "code and runtime library into a Lanai ELF executable.\n"
    "\n"
    "options:\n"
    "  -O0 -O1 -O2 -Os     optimisation level for .fw and .c inputs (default -O2)\n"
    "  -g                  emit a line table (DWARF from the compilers/MC, kept in the image)\n"
    "  -o FILE             output image (required unless --emit prints to stdout)\n"
    "  --sram-size BYTES   SRAM the image (and pinned .fw globals) must fit in (default 256K)\n"
    "  -I DIR              import directory for .fw, include directory for .c inputs\n"
    "                      (searched before the firmware library, firmware/lib, which\n"
    "                      needs no -I: import \"lanai.fw\", #include \"lanai.h\")\n"
    "  -D NAME=VALUE       sets the .fw constant declared 'option const NAME' (every .fw\n"
    "                      input and import that declares it); also passed to clang for .c\n"
    "                      and .S inputs, where -D NAME alone is a macro too\n"
    "  --emit=STAGE        compile one .fw file only and write that stage: ast (syntax\n"
    "                      tree), ir (LLVM IR after optimisation), asm (Lanai assembly) or\n"
    "                      obj (the relocatable object; needs -o)\n"
    "  -nostdlib           link only the inputs (they must define _start)\n";

// --emit: one .fw file through the compiler, stopping after the requested stage.
int emit_stage(const std::string& input, const std::string& stage,
               const assembler::BuildOptions& options, const std::string& output) {
  fw::CompileOptions fo;
  fo.opt = options.opt;
  fo.debug = options.debug;
  fo.import_dirs = options.search_dirs();
  fo.sram_size = options.sram_size;
  auto overrides = assembler::constant_overrides(options.defines, false);
  if (!overrides) {
    std::fprintf(stderr, "%s\n", llvm::toString(overrides.takeError()).c_str());
    return 1;
  }
  fo.overrides = *overrides;
  const fw::Emit what = stage == "ast"  ? fw::Emit::Ast
                        : stage == "ir" ? fw::Emit::Ir
                        : stage == "asm" ? fw::Emit::Asm
                                         : fw::Emit::Obj;
  fw::CompileResult r = fw::emit_text(input, what, fo);
  std::fputs(r.diagnostics.c_str(), stderr);
  if (!r.ok) return 1;
  for (const auto& [name, value] : fo.overrides)
    if (std::find(r.constants.begin(), r.constants.end(), name) == r.constants.end()) {
      std::fprintf(stderr, "-D %s=%s: no constant '%s' in %s or its imports\n", name.c_str(),
                   value.c_str(), name.c_str(), input.c_str());
      return 1;
    }
  const std::string& bytes = what == fw::Emit::Obj ? r.object.data : r.text;
  if (output.empty() || output == "-") {
    std::fwrite(bytes.data(), 1, bytes.size(), stdout);
    return 0;
  }
  std::FILE* f = std::fopen(output.c_str(), "wb");
  if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() || std::fclose(f) != 0) {
    std::fprintf(stderr, "lanaikit build: cannot write %s\n", output.c_str());
    return 1;
  }
  return 0;
}

} // namespace

int cmd_build(int argc, char** argv) {
  assembler::BuildOptions options;
  const assembler::Locations& where = assembler::locations();
  options.startup = where.crt0;
  options.runtime = where.runtime_objects;
  options.library_dir = where.firmware_lib();
  std::string output;
  std::string emit;
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
      else if (a.rfind("--emit=", 0) == 0) {
        emit = a.substr(7);
        if (emit != "ast" && emit != "ir" && emit != "asm" && emit != "obj")
          throw UsageError("--emit must be ast, ir, asm or obj");
      }
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
    if (!emit.empty()) {
      if (inputs.size() != 1 || inputs[0].size() < 3 ||
          inputs[0].compare(inputs[0].size() - 3, 3, ".fw") != 0)
        throw UsageError("--emit takes exactly one .fw input");
      if (emit == "obj" && output.empty()) throw UsageError("--emit=obj needs -o FILE");
    } else if (output.empty()) {
      throw UsageError("no output file: use -o OUT.elf");
    }
    if (inputs.empty()) throw UsageError("no input files");
    // Writing the image over a source loses the source (compilers refuse this too).
    if (!output.empty() && output != "-")
      for (const std::string& in : inputs) {
        std::error_code ec;
        if (std::filesystem::equivalent(in, output, ec) && !ec)
          throw UsageError("the output '" + output + "' is the input '" + in + "': it would be overwritten");
      }
  } catch (const UsageError& e) {
    return report_usage_error("build", e);
  }

  if (!emit.empty()) return emit_stage(inputs[0], emit, options, output);

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
