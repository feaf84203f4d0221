// lanaikit build: sources -> linked Lanai ELF image, with the bare-program startup code and
// runtime library (firmware/lib) linked in unless -nostdlib.
#include "tools/commands.h"

#include "assembler/build.h"
#include "assembler/elf.h"
#include "assembler/fw/compile.h"
#include "assembler/locations.h"

#include "llvm/Support/Error.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>

namespace lanaikit::tools {

namespace {

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

struct Options {
  assembler::BuildOptions build;
  std::string output, emit;
  std::vector<std::string> inputs;
};

int build(Options& o) {
  const std::string& output = o.output;
  const std::string& emit = o.emit;
  const std::vector<std::string>& inputs = o.inputs;
  if (!emit.empty()) {
    if (inputs.size() != 1 || inputs[0].size() < 3 || inputs[0].compare(inputs[0].size() - 3, 3, ".fw") != 0)
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
  assembler::BuildOptions& options = o.build;
  const assembler::Locations& where = assembler::locations();
  options.startup = where.crt0;
  options.runtime = where.runtime_objects;
  options.library_dir = where.firmware_lib();

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

} // namespace

Command add_build(CLI::App& app) {
  CLI::App* cmd = add_command(
      app, "build", "compile and link .fw/.c/.s sources into a Lanai ELF image",
      "Compiles .fw (the firmware language, docs/language.md) and .c (clang-14\n"
      "--target=lanai), assembles .s (LLVM MC, in process), then links them with the startup\n"
      "code and runtime library into a Lanai ELF executable:\n"
      "  lanaikit build [-O0|-O1|-O2|-Os] [-g] -o OUT.elf INPUTS...\n"
      "With --emit, compiles one .fw file only and writes that stage:\n"
      "  lanaikit build --emit=ast|ir|asm|obj [options] [-o OUT] FILE.fw");
  auto o = std::make_shared<Options>();
  add_positional(*cmd, "INPUTS", o->inputs, ".fw, .c, .S and .s sources");
  cmd->add_option_function<std::string>(
         "-O",
         [o](const std::string& level) {
           using assembler::OptLevel;
           if (level == "0") o->build.opt = OptLevel::O0;
           else if (level == "1") o->build.opt = OptLevel::O1;
           else if (level == "2") o->build.opt = OptLevel::O2;
           else if (level == "s") o->build.opt = OptLevel::Os;
           else throw UsageError("unknown optimisation level '-O" + level + "' (-O0, -O1, -O2 or -Os)");
         },
         "optimisation level for .fw and .c inputs: -O0 -O1 -O2 -Os\n(default -O2)")
      ->type_name("LEVEL");
  cmd->add_flag("-g", o->build.debug, "emit a line table (DWARF from the compilers/MC, kept in the image)");
  cmd->add_option("-o", o->output, "output image (required unless --emit prints to stdout)")->type_name("FILE");
  add_count(
      *cmd, "--sram-size",
      [o](uint64_t size) {
        if (size == 0 || size % 4 != 0 || size > 0x80000000ull)
          throw UsageError("--sram-size must be a non-zero multiple of 4 up to 2G");
        o->build.sram_size = uint32_t(size);
      },
      "SRAM the image (and pinned .fw globals) must fit in (default 256K)", "BYTES");
  add_repeated(*cmd, "-I", o->build.include_dirs,
               "import directory for .fw, include directory for .c inputs\n"
               "(searched before the firmware library, firmware/lib, which\n"
               "needs no -I: import \"lanai.fw\", #include \"lanai.h\")",
               "DIR");
  add_repeated(*cmd, "-D", o->build.defines,
               "sets the .fw constant declared 'option const NAME' (every .fw\n"
               "input and import that declares it); also passed to clang for .c\n"
               "and .S inputs, where -D NAME alone is a macro too",
               "NAME=VALUE");
  cmd->add_option_function<std::string>(
         "--emit",
         [o](const std::string& stage) {
           if (stage != "ast" && stage != "ir" && stage != "asm" && stage != "obj")
             throw UsageError("--emit must be ast, ir, asm or obj");
           o->emit = stage;
         },
         "compile one .fw file only and write that stage: ast (syntax\n"
         "tree), ir (LLVM IR after optimisation), asm (Lanai assembly) or\n"
         "obj (the relocatable object; needs -o)")
      ->type_name("STAGE");
  cmd->add_flag("--nostdlib", o->build.nostdlib, "link only the inputs (they must define _start); also -nostdlib");
  return {[o] { return build(*o); }, {{"-nostdlib", "--nostdlib"}}};
}

} // namespace lanaikit::tools
