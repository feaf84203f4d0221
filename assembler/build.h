// The `lanaikit build` pipeline: sources -> objects -> linked FirmwareImage.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "assembler/assemble.h"
#include "assembler/image.h"
#include "assembler/link.h"
#include "llvm/Support/Error.h"

namespace lanaikit::assembler {

struct BuildOptions {
  OptLevel opt = OptLevel::O2; // -O0/-O1/-O2/-Os for .c and .fw inputs
  bool debug = false;          // -g: line table (.c via clang, .fw via DIBuilder, .s via MC)
  uint32_t sram_size = kDefaultSramSize; // also bounds pinned .fw globals
  bool zero_bss = false; // see LinkOptions::zero_bss
  // The startup object (defines _start, zeroes bss, calls main, halts). A .o, .s, .S or .c
  // path; always linked first unless `nostdlib`.
  std::string startup;
  // Runtime library objects (.o/.s/.S/.c), linked with archive semantics unless `nostdlib`.
  std::vector<std::string> runtime;
  // Link only the inputs: no startup object, no runtime (the inputs must define _start).
  bool nostdlib = false;
  std::vector<std::string> include_dirs; // -I for .c/.S inputs, import dirs for .fw
  // The firmware library (firmware/lib: lanai.fw, debug.fw, lanai.h, ...), searched after
  // include_dirs, so `import "lanai.fw"` and `#include "lanai.h"` need no -I. Empty: none.
  std::string library_dir;
  // include_dirs, then library_dir: the search path .fw imports and clang's -I use.
  std::vector<std::string> search_dirs() const {
    std::vector<std::string> d = include_dirs;
    if (!library_dir.empty()) d.push_back(library_dir);
    return d;
  }
  // -D NAME=VALUE: sets the `option const NAME` of .fw inputs (docs/language.md, "Build
  // options") and is passed to clang for .c/.S inputs. See constant_overrides().
  std::vector<std::string> defines;
  std::vector<std::string> extra_cflags; // more clang flags for .c/.S inputs
};

// The -D list as .fw constant overrides (name -> value as written; a later -D of a name
// wins). `c_inputs`: the build also compiles .c/.S inputs, so a -D without a value is a
// macro for them only. Otherwise every -D must be NAME=VALUE with NAME an identifier; a
// malformed one is an error quoting it.
llvm::Expected<std::map<std::string, std::string>>
constant_overrides(const std::vector<std::string>& defines, bool c_inputs);

// Turns one input into an object according to its extension: .c and .S through clang,
// .fw through the firmware-language compiler (assembler/fw/compile.h), .s through the
// in-process assembler, .o read as is. Anything else is an error naming the
// accepted kinds.
llvm::Expected<Object> load_input(const std::string& path, const BuildOptions& options);

// Builds a firmware image from the inputs. Every input is compiled even if an earlier one
// fails, and the error carries all diagnostics (compiler, assembler and linker) at once.
// A -D that names no constant of any .fw module is an error unless the inputs include .c
// or .S files (then it may be a macro of theirs).
// Warnings of successful steps (clang warnings, line-table problems) go to `warnings` if
// given.
llvm::Expected<FirmwareImage> build(const std::vector<std::string>& inputs,
                                    const BuildOptions& options,
                                    std::vector<std::string>* warnings = nullptr);

} // namespace lanaikit::assembler
