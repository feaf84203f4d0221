// Puts a linked image into a chip's SRAM (zeroing bss) and points the CPU at its entry.
#pragma once

#include "assembler/image.h"
#include "vm/cpu.h"

#include <optional>
#include <string>

namespace lanaikit::tools {

// Returns an error message, or "" on success.
std::string load_image(const assembler::FirmwareImage& image, vm::Cpu& cpu);

// Where an address is: "main+0x10 (prog.c:12)" (symbol and, with -g, source line).
std::string where(const assembler::FirmwareImage& image, uint32_t addr);

// The call stack of a stopped CPU, one "#i 0x... in where" line per frame (vm::backtrace,
// plus the caller of a function stopped at its first instruction).
std::string format_backtrace(const assembler::FirmwareImage& image, const vm::Cpu& cpu);

// Reads a Lanai ELF image; on failure prints "lanaikit COMMAND: why" and returns nullopt.
std::optional<assembler::FirmwareImage> read_image(const char* command, const std::string& path);

} // namespace lanaikit::tools
