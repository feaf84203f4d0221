// What an edit to a control program bought: two runs of the same experiment, one per build,
// compared per handler (instructions and cycles per call), per message size (latency and
// bandwidth) and per source line (executed instructions, the two builds' lines aligned by
// their text, so a line that moved because code was added above it is still the same line).
// `lanaikit compare` prints this for the echo experiment (tools/cmd_compare.cpp).
#pragma once

#include "sim/echo_experiment.h"
#include "sim/profile_report.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace lanaikit::sim {

// One source line's executed instructions in both builds. `line_a`/`line_b` are 0 where the
// line exists in only one build (removed or added by the edit).
struct LineChange {
  std::string file_a, file_b;
  uint32_t line_a = 0, line_b = 0;
  std::string text;           // the source line (from the build that has it), trimmed
  uint64_t insns_a = 0, insns_b = 0;
  int64_t delta() const { return int64_t(insns_b) - int64_t(insns_a); }
};

// Aligns the per-line costs of two builds. Files are paired by `pairs` (before, after:
// the sources the user named, in order) and otherwise by identical path (the firmware
// library). Within a pair the lines are matched by a longest common subsequence of their
// text when both files can be read, else by line number. Returns every line with a count
// in either build, in file order, then line order.
std::vector<LineChange> align_lines(const std::vector<LineCost>& a, const std::vector<LineCost>& b,
                                    const std::vector<std::pair<std::string, std::string>>& pairs);

// Matches line texts: for each line of `a` (0-based) the index of its partner in `b`, or -1.
// Exposed for tests.
std::vector<int> match_lines(const std::vector<std::string>& a, const std::vector<std::string>& b);

// The comparison as Markdown tables: latency and bandwidth per size, per-handler
// instructions and cycles per call (median, and mean over every call), and the `top_lines`
// lines whose executed instructions changed most. Names the builds `name_a` and `name_b`.
std::string format_comparison(const EchoResult& a, const EchoResult& b, const std::string& name_a,
                              const std::string& name_b,
                              const std::vector<std::pair<std::string, std::string>>& pairs,
                              size_t top_lines = 20);

} // namespace lanaikit::sim
