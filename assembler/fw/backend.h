// IR -> optimised IR -> Lanai object or assembly, in memory (LLVM's new pass manager for
// the optimisation pipeline, the Lanai TargetMachine for code generation).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "assembler/fw/compile.h"
#include "assembler/fw/diagnostics.h"
#include "assembler/fw/sema.h"

namespace lanaikit::fw {

struct BackendOptions {
  assembler::OptLevel opt = assembler::OptLevel::O2;
  bool debug = false;
  Emit emit = Emit::Obj;
  std::string object_name;
  std::vector<uint8_t> layout; // encode_layout() bytes
};

// Generates code for the checked module. Fills `out.object` (Emit::Obj) or `out.text`
// (Emit::Ir, Emit::Asm). Backend problems (inline assembly that does not assemble, an
// internal error) become diagnostics; returns false then.
bool run_backend(Module& m, const BackendOptions& options, Diagnostics& diag,
                 CompileResult& out);

} // namespace lanaikit::fw
