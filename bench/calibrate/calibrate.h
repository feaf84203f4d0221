// Shared bits of the calibration programs: finding the platform files, and printing
// markdown tables. These programs measure the *models* in simulated time, so their output
// is the same on every machine and every run.
#pragma once

#include "sim/platform.h"
#include "event/time.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace lanaikit::calibrate {

// The platform folder: --platforms DIR on the command line, else the source tree's.
inline std::string platforms_dir(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--platforms") == 0) return argv[i + 1];
  return std::string(LANAIKIT_SOURCE_DIR) + "/lua-scripts/platforms";
}

inline sim::Platform load(const std::string& dir, const std::string& name) {
  return sim::load_platform(dir + "/" + name + ".lua");
}

inline std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
// Microseconds with 3 decimals (the papers' precision), from picoseconds.
inline std::string us(sim::Time t) { return fmt("%.3f", double(t) / double(sim::kMicrosecond)); }
// MB/s (10^6 bytes per second) of `bytes` moved in `t` picoseconds.
inline double mb_per_s(uint64_t bytes, sim::Time t) { return double(bytes) * 1e6 / double(t); }
inline std::string mbs(uint64_t bytes, sim::Time t) { return fmt("%.1f", mb_per_s(bytes, t)); }
inline std::string size_name(uint64_t b) {
  if (b >= 1024 && b % 1024 == 0) return std::to_string(b / 1024) + " KB";
  return std::to_string(b) + " B";
}

// A markdown table: header row, then rows of cells.
class Table {
public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  void print() const {
    auto line = [](const std::vector<std::string>& cells) {
      std::string s = "|";
      for (const auto& c : cells) s += " " + c + " |";
      std::puts(s.c_str());
    };
    line(header_);
    std::string sep = "|";
    for (size_t i = 0; i < header_.size(); ++i) sep += "---|";
    std::puts(sep.c_str());
    for (const auto& r : rows_) line(r);
    std::puts("");
  }

private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

inline void heading(const std::string& h) { std::printf("%s\n\n", h.c_str()); }
inline void note(const std::string& n) { std::printf("%s\n\n", n.c_str()); }

} // namespace lanaikit::calibrate
