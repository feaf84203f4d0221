// A progress bar for long runs and sweeps, drawn only on a terminal.
//
// When `out` is a terminal (isatty(fileno(out))) the bar is redrawn in place (carriage
// return, then the line, then "erase to end of line") at most ten times per second by the
// wall clock, plus once at finish(); on anything else (a file, a pipe, CI logs) Progress
// writes nothing at all. Wall-clock time only paces the drawing and the ETA: it never
// reaches a simulation, so results do not depend on it.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace lanaikit::report {

class Progress {
public:
  Progress(std::string label, uint64_t total, std::FILE* out = stderr);
  ~Progress(); // ends the line if the bar was drawn and finish() was not called
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // `done` units of `total` are complete (values above total count as total).
  void update(uint64_t done);
  // Draws the final state (100% if update never got there) and ends the line.
  void finish();

  bool active() const { return tty_; }
  uint64_t redraws() const { return redraws_; }

  // One line of the bar: "label [#########-----------]  45.0%  450/1000  ETA 0:12"
  // (ETA as m:ss or h:mm:ss, "?" before any progress; "done in 0:03" when finished).
  static std::string format_line(const std::string& label, uint64_t done, uint64_t total,
                                 double elapsed_s, bool finished);

private:
  void draw(bool finished);

  std::string label_;
  uint64_t total_;
  std::FILE* out_;
  bool tty_;
  bool finished_ = false;
  uint64_t done_ = 0;
  uint64_t redraws_ = 0;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

} // namespace lanaikit::report
