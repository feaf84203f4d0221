// Puts a linked image into a chip's SRAM (zeroing bss) and points the CPU at its entry.
#pragma once

#include "assembler/image.h"
#include "vm/cpu.h"

#include <optional>
#include <string>

namespace lanaikit::tools {

// Returns an error message, or "" on success.
std::string load_image(const assembler::FirmwareImage& image, vm::Cpu& cpu);

// Reads a Lanai ELF image; on failure prints "lanaikit COMMAND: why" and returns nullopt.
std::optional<assembler::FirmwareImage> read_image(const char* command, const std::string& path);

} // namespace lanaikit::tools
