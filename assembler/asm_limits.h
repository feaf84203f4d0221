// Bounds on assembly source, checked before LLVM MC sees it (issue 17).
//
// MC runs in process and trusts its input: `.fill 0x40000000, 4, 0` or `.incbin "/dev/zero"`
// end in "LLVM ERROR: out of memory" and an abort, an `.include` of itself recurses until
// memory runs out, and `.rept 100000000` expands for minutes. MC offers no hook to stop
// any of them, so this scan reads the source (and what it includes) first and rejects,
// with file:line:col, what cannot fit the chip:
//   - `.include` nested deeper than kMaxIncludeDepth, or including a file already being
//     included (a cycle: the scan runs before conditionals are evaluated, so an include
//     guard does not make one acceptable);
//   - `.incbin` of something that is not a regular file, or of more bytes than SRAM holds;
//   - `.fill`, `.space`, `.skip`, `.zero`, `.org`, `.align`, `.balign`, `.p2align` whose
//     size, evaluated from integer literals, exceeds SRAM;
//   - `.rept`, `.irp` and `.irpc` blocks (nested ones multiply) that expand to more than
//     kMaxExpandedStatements statements in all.
// Sizes written with symbols (`.fill N, 4`) are not evaluated here: in a .s file the
// guarded parser evaluates them as MC does (assembler/mc_guard.h). The firmware language's
// `asm` statements reach MC through LLVM's backend, without that parser, so for them
// (asm_limit_problems) sizes and counts must be integer literals and `.macro` is refused.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "llvm/Support/Error.h"

namespace lanaikit::assembler {

inline constexpr int kMaxIncludeDepth = 16;
inline constexpr uint64_t kMaxExpandedStatements = 1'000'000;

// Checks `source` (named `name`; `.include`/`.incbin` paths resolve as MC resolves them:
// as written, relative to the working directory). `sram_bytes` bounds every size. The error
// holds every problem as "file:line:col: error: ..." with the source line and a caret.
llvm::Error check_asm_limits(std::string_view source, std::string_view name, uint64_t sram_bytes);

// The same checks for a caller with its own diagnostics (the firmware language's `asm`
// statements): each problem's message without a location, and where it is in `source`
// (a problem inside an included file names that file in its message and sits at the
// `.include`).
struct AsmLimitProblem {
  size_t offset;
  std::string message;
};
std::vector<AsmLimitProblem> asm_limit_problems(std::string_view source, uint64_t sram_bytes);

} // namespace lanaikit::assembler
