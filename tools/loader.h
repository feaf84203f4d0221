// Puts a linked image into a chip's SRAM (zeroing bss) and points the CPU at its entry.
#pragma once

#include "assembler/image.h"
#include "vm/cpu.h"
#include "vm/mmio.h"
#include "vm/sram.h"

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

namespace lanaikit::tools {

// A bare machine for `exec` and `debug`: SRAM, the bare-ABI page (program output echoed to
// stdout) and the CPU, with an image loaded.
struct BareMachine {
  BareMachine(uint32_t sram_size, vm::CostModel costs)
      : sram(sram_size), io(sram_size), cpu(sram, io, costs) {
    io.echo_to(stdout);
  }
  vm::Sram sram;
  vm::BareIo io;
  vm::Cpu cpu;
};

// Checks an --sram-size value (throws UsageError).
void check_sram_size(uint64_t bytes);

// Loads `image` (read from `path`) into a new bare machine; on failure prints
// "lanaikit COMMAND: path: why" and returns null.
std::unique_ptr<BareMachine> load_bare(const char* command, const std::string& path,
                                       const assembler::FirmwareImage& image, uint64_t sram_size,
                                       vm::CostModel costs = {});

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
