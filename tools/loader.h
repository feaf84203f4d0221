// Puts a linked image into a chip's SRAM (zeroing bss) and points the CPU at its entry.
#pragma once

#include "assembler/image.h"
#include "sim/backtrace.h"
#include "vm/cpu.h"
#include "vm/mmio.h"
#include "vm/sram.h"

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace lanaikit::tools {

using sim::format_backtrace;
using sim::where;

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

// The machine options `exec` and `debug` share: --sram-size and --stack-guard.
struct BareOptions {
  uint64_t sram_size = 256 * 1024;
  uint32_t stack_guard = vm::kDefaultStackGuardBytes;
};

// Adds them to `cmd`, with their checks, read into `options`.
void add_bare_options(CLI::App& cmd, BareOptions& options);

// Loads `image` (read from `path`) into a new bare machine; on failure prints
// "lanaikit COMMAND: path: why" and returns null.
std::unique_ptr<BareMachine> load_bare(const char* command, const std::string& path,
                                       const assembler::FirmwareImage& image, uint64_t sram_size,
                                       vm::CostModel costs = {},
                                       uint32_t stack_guard = vm::kDefaultStackGuardBytes);

// Copies the image into SRAM, resets the CPU at its entry and puts `stack_guard` bytes of
// stack guard above the image's data (vm::Cpu::set_stack_guard). Returns an error message,
// or "" on success.
std::string load_image(const assembler::FirmwareImage& image, vm::Cpu& cpu,
                       uint32_t stack_guard = vm::kDefaultStackGuardBytes);

// Reads a Lanai ELF image; on failure prints "lanaikit COMMAND: why" and returns nullopt.
std::optional<assembler::FirmwareImage> read_image(const char* command, const std::string& path);

} // namespace lanaikit::tools
