// Turning sources into ELF32 Lanai relocatable objects, in memory.
//   - `.s`: assembled in process with LLVM MC (triple "lanai").
//   - `.c`: compiled by running clang-14 (--target=lanai -c, never through -S text: clang's
//     Lanai assembly output does not always re-assemble).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "llvm/Support/Error.h"

namespace lanaikit::assembler {

// An ELF32 big-endian Lanai relocatable object held in memory. `name` is what the linker
// uses in messages (normally the source or object path).
struct Object {
  std::string name;
  std::string data;
  std::string warnings; // diagnostics of a successful compile (clang warnings), if any
};

enum class OptLevel { O0, O1, O2, Os };

// "-O0", "-O1", "-O2", "-Os".
std::string_view opt_flag(OptLevel level);

// The SRAM of a LANai 4 board, the default everywhere an image must fit.
inline constexpr uint32_t kDefaultSramSize = 256 * 1024;

struct AssembleOptions {
  // Emit DWARF line info for the assembly source itself (like `llvm-mc -g`), so that the
  // line table maps instructions back to the .s lines.
  bool debug = false;
  // Bounds what the source may ask for before MC runs (assembler/asm_limits.h): fills,
  // reservations, alignments and `.incbin` larger than this are errors.
  uint32_t sram_size = kDefaultSramSize;
  // Directives and instructions MC may parse, expansions of macros and `.rept` included
  // (assembler/mc_guard.h); past it the assembly stops with an error.
  uint64_t max_statements = 1'000'000;
};

// Assembles Lanai assembly text. `name` appears in diagnostics and becomes the object name.
// On failure the error holds every diagnostic exactly as LLVM's SourceMgr prints them
// ("name:line:col: error: msg", the source line and a caret); nothing goes to stderr.
llvm::Expected<Object> assemble(std::string_view source, std::string_view name,
                                const AssembleOptions& options = {});

// Reads and assembles a .s file.
llvm::Expected<Object> assemble_file(const std::string& path,
                                     const AssembleOptions& options = {});

struct CompileOptions {
  OptLevel opt = OptLevel::O2;
  bool debug = false;                    // -g
  std::vector<std::string> include_dirs; // -I
  std::vector<std::string> defines;      // -D (as "NAME" or "NAME=VALUE")
  std::vector<std::string> extra_flags;  // passed verbatim, after the defaults
};

// The clang-14 the library was configured with (CMake's LANAIKIT_CLANG).
std::string clang_path();

// The full clang command line compile_c runs (argv[0] is the clang path), for messages
// and for tests.
std::vector<std::string> compile_command(const std::string& path, const std::string& output,
                                         const CompileOptions& options);

// Compiles a C file (or a .S assembly file needing the preprocessor) with clang into an
// object in memory. On failure the error carries clang's diagnostics verbatim.
llvm::Expected<Object> compile_c(const std::string& path, const CompileOptions& options = {});

// Reads a prebuilt relocatable object (.o) after checking that it is ELF32 Lanai.
llvm::Expected<Object> read_object(const std::string& path);

} // namespace lanaikit::assembler
