// Turning a vm::Profiler's per-word counts into what a firmware writer reads: costs per
// function and per source line (through the image's symbols and DWARF line table), the
// per-handler distributions, and a plain-text report. The callgrind-format file
// (callgrind_annotate, KCachegrind) is written from the same tables.
#pragma once

#include "assembler/image.h"
#include "vm/profiler.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace lanaikit::sim {

struct FunctionCost {
  std::string name; // "?" for code outside any symbol
  std::string file; // the source file of its first line with a location, if any
  uint64_t instructions = 0, cycles = 0;
};

struct LineCost {
  std::string file; // "" without -g
  uint32_t line = 0;
  std::string function;
  uint64_t instructions = 0, cycles = 0;
};

struct ProfileTables {
  std::vector<FunctionCost> functions; // by instructions, descending (then name)
  std::vector<LineCost> lines;         // by file, then line
  uint64_t instructions = 0, cycles = 0;
};

ProfileTables profile_tables(const assembler::FirmwareImage& image, const vm::Profiler& profiler);

// The text report: handler distributions, top functions, hottest lines (with the source
// text when the file can be read). `top` limits the function and line lists.
std::string format_profile(const assembler::FirmwareImage& image, const vm::Profiler& profiler,
                           const std::string& title, size_t top = 15);

// The callgrind-format profile (events Ir and Cycles, per file/function/line).
void write_callgrind_profile(std::ostream& out, const std::string& command,
                             const ProfileTables& tables);

} // namespace lanaikit::sim
