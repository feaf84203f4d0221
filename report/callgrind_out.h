// Profiles in the callgrind format (valgrind's "Callgrind Format Specification", format
// version 1), so callgrind_annotate and KCachegrind show firmware costs per source line,
// per function and along call arcs.
//
// Two events: Ir (instructions executed) and Cycles (chip cycles, stalls included).
// Positions are source lines. Cost lines are grouped by (file, function) in order of
// first appearance, so output is a pure function of the input; repeated (file, function,
// line) entries are written as given (the format adds them up). File and function names
// are compressed ("fl=(1) name" the first time, "fl=(1)" after) unless disabled. The
// header's "summary:" and the final "totals:" line are the sums of the self costs.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace lanaikit::report {

// Self cost of one source line of one function.
struct CostLine {
  std::string file;
  std::string function;
  uint32_t line = 0;
  uint64_t instructions = 0, cycles = 0;
};

// Calls from a line of one function to another function, with the callee's inclusive
// cost over those calls (callee_line: the line the call enters, 0 if unknown).
struct CallArc {
  std::string caller_function, caller_file;
  uint32_t caller_line = 0;
  std::string callee_function, callee_file;
  uint64_t calls = 0;
  uint64_t inclusive_instructions = 0, inclusive_cycles = 0;
  uint32_t callee_line = 0;
};

struct CallgrindOptions {
  bool compress_names = true;
  std::string creator = "lanaikit";
};

// `command` goes to the "cmd:" line (newlines become spaces). Names containing a newline
// are rejected with std::invalid_argument.
void write_callgrind(std::ostream& out, const std::string& command, const std::vector<CostLine>& costs,
                     const std::vector<CallArc>& calls = {}, const CallgrindOptions& options = {});

} // namespace lanaikit::report
