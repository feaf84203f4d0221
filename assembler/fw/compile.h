// The firmware language compiler (docs/language.md): .fw source -> checked AST -> LLVM IR
// -> optimised -> Lanai ELF object in memory, with the module's layout table in
// `.lanaikit.layout`. Never crashes on any input: every problem is a diagnostic.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "assembler/assemble.h"
#include "assembler/link.h"

namespace lanaikit::fw {

enum class Emit { Ast, Ir, Asm, Obj };

struct CompileOptions {
  assembler::OptLevel opt = assembler::OptLevel::O2;
  bool debug = false;                     // -g
  std::vector<std::string> import_dirs;   // -I
  uint32_t sram_size = assembler::kDefaultSramSize; // for placement checks
  // -D NAME=VALUE: new values for `option const` declarations, name -> value as written
  // (assembler/fw/overrides.h). Names the module does not declare are ignored here; see
  // CompileResult::constants.
  std::map<std::string, std::string> overrides;
};

struct CompileResult {
  bool ok = false;
  std::string diagnostics;   // every error/warning/note, rendered
  assembler::Object object;  // when ok
  std::string text;          // for emit_text(): the AST dump, IR or assembly
  // Every top-level constant the file and its imports declare (once parsing succeeded), so
  // a build can tell a -D that names no constant anywhere.
  std::vector<std::string> constants;
};

// Compiles source text; `filename` is used in diagnostics and debug info; imports resolve
// relative to it.
CompileResult compile_source(std::string_view source, const std::string& filename,
                             const CompileOptions& options);
CompileResult compile_file(const std::string& path, const CompileOptions& options);
// Stops after the given stage and returns its text in `text` (Emit::Obj: same as
// compile_file).
CompileResult emit_text(const std::string& path, Emit what, const CompileOptions& options);

} // namespace lanaikit::fw
