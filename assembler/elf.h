// FirmwareImage <-> Lanai ELF32 big-endian executable (EM_LANAI = 244, ET_EXEC).
// The file has a PT_LOAD program header per segment, section headers for
// .text/.rodata/.data/.bss, .symtab/.strtab, the line table in `.lanaikit.lines` and the
// layout table in `.lanaikit.layout` (formats in docs/image.md), so
// read_elf(write_elf(image)) == image. llvm-objdump-14 -d
// disassembles it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "assembler/image.h"
#include "llvm/Support/Error.h"

namespace lanaikit::assembler {

inline constexpr const char* kLinesSection = ".lanaikit.lines";

// Serialises the image as an ELF executable.
std::vector<uint8_t> elf_bytes(const FirmwareImage& image);

// Writes elf_bytes(image) to `path`.
llvm::Error write_elf(const FirmwareImage& image, const std::string& path);

// Parses an ELF executable produced by write_elf (or any Lanai ELF32 executable with
// PT_LOAD segments). `name` is used in messages. Non-ELF, non-Lanai, 64-bit,
// little-endian and relocatable inputs are rejected with a message saying which.
llvm::Expected<FirmwareImage> parse_elf(std::string_view data, std::string_view name);

// Reads and parses the file at `path`.
llvm::Expected<FirmwareImage> read_elf(const std::string& path);

} // namespace lanaikit::assembler
