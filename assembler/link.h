// The linker: ELF32 Lanai relocatable objects -> FirmwareImage laid out in SRAM from 0.
//
// Layout (docs/image.md has the details):
//   0            the text section holding _start (the reset vector), then the rest of the
//                startup object's text, then every other .text* in input order
//   __text_end   .rodata* sections
//   __data_start .data* sections
//   __bss_start  .bss* sections and COMMON symbols (4-byte aligned start and end)
//   __bss_end == _end
// Every section is placed at the alignment it asks for.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "assembler/assemble.h"
#include "assembler/image.h"
#include "llvm/Support/Error.h"

namespace lanaikit::assembler {

// kDefaultSramSize (256 KiB) comes from assemble.h.

struct LinkOptions {
  uint32_t sram_size = kDefaultSramSize; // the image (up to _end) must fit
  // false (default): bss is a segment with no bytes that the loader zero-fills (the
  // startup code zeroes it as well). true: the bss segment carries explicit zero bytes.
  bool zero_bss = false;
  // If set, receives non-fatal problems (e.g. unreadable DWARF line info).
  std::vector<std::string>* warnings = nullptr;
};

struct LinkInputs {
  // Always linked, first. Normally it defines _start.
  std::optional<Object> startup;
  // Always linked, in order.
  std::vector<Object> objects;
  // Linked with archive semantics: a library object is included only if it defines a
  // symbol that is undefined at that point; repeated until nothing more is pulled in.
  std::vector<Object> libraries;
};

// Links the inputs. Errors name every problem at once: each undefined symbol with every
// object referring to it, each duplicate definition with every object defining it,
// relocation overflows with the symbol, object and place, and SRAM overflow with the
// number of bytes by which the image is too large.
llvm::Expected<FirmwareImage> link(const LinkInputs& inputs, const LinkOptions& options = {});

// Names of the symbols the linker defines (unless an object defines them itself).
inline constexpr const char* kLinkerSymbols[] = {"__text_end", "__data_start", "__bss_start",
                                                 "__bss_end", "_end"};

} // namespace lanaikit::assembler
