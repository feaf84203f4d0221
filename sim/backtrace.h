// Where a stopped CPU is, in the image's terms: an address as symbol+offset (and source
// line with -g), and the call stack. Used by every fault report that knows the image:
// `lanaikit exec` and `debug`, and a cluster node's report (Node::report).
#pragma once

#include "assembler/image.h"
#include "vm/cpu.h"

#include <cstdint>
#include <string>

namespace lanaikit::sim {

// "main+0x10 (prog.c:12)": symbol and, with -g, source line; "?" outside any symbol.
std::string where(const assembler::FirmwareImage& image, uint32_t addr);

// The call stack of a stopped CPU, one "#i 0x... in where" line per frame (vm::backtrace,
// plus the caller of a function stopped at its first instruction). A chain longer than the
// frames shown (a runaway recursion) ends with a line saying how many more there are.
std::string format_backtrace(const assembler::FirmwareImage& image, const vm::Cpu& cpu);

} // namespace lanaikit::sim
