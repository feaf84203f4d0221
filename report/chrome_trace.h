// Chrome trace-event JSON (the "JSON Object Format" that chrome://tracing, Perfetto's UI
// and speedscope open), streamed with bounded size.
//
// The file is {"displayTimeUnit":"ns","traceEvents":[ ... ],"otherData":{ ... }} with one
// event per line. Timestamps ("ts") and durations ("dur") are microseconds, as the format
// requires, written as exact decimals with up to six fractional digits, so the text is
// exact to the picosecond (1234567 ps -> 1.234567); a reader that converts them to double
// keeps that exactness up to 10^15 ps (about 16 simulated minutes) and rounds beyond.
//
// Tracks are (process, thread) pairs: a process gets pid 1, 2, ... in order of first use,
// a thread tid 1, 2, ... within its process; "process_name", "thread_name" and
// "*_sort_index" metadata events (ph "M") name them as they are created. Events are
// written in call order (viewers sort by ts).
//
// Bounded size: an event is dropped (and counted) when it lies outside [window_begin,
// window_end) (a span is kept if it overlaps the window; it is not clipped), when
// sampling skips it (of the events inside the window, every sample_every-th is kept,
// starting with the first), or when max_events events have already been kept. finish()
// closes the file with a metadata event "lanaikit_dropped" (pid 0, tid 0) whose args give
// the counts, repeated in "otherData".
#pragma once

#include "event/time.h"

#include <cstdint>
#include <iosfwd>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace lanaikit::report {

struct TraceLimits {
  uint64_t max_events = 1'000'000;
  sim::Time window_begin = 0, window_end = std::numeric_limits<sim::Time>::max();
  uint32_t sample_every = 1; // 0 counts as 1
};

using TraceArg = std::variant<int64_t, double, std::string>;
using TraceArgs = std::vector<std::pair<std::string, TraceArg>>;

struct TraceStats {
  uint64_t kept = 0;
  uint64_t dropped_window = 0, dropped_sampling = 0, dropped_budget = 0;
  uint64_t dropped() const { return dropped_window + dropped_sampling + dropped_budget; }
};

class TraceWriter {
public:
  explicit TraceWriter(std::ostream& out, TraceLimits limits = {});
  ~TraceWriter(); // finishes the file if finish() was not called
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // The track for (process, thread), created (and named in the file) on first use.
  int track(const std::string& process, const std::string& thread);

  // A complete event (ph "X") from begin to end (end >= begin, else
  // std::invalid_argument). An unknown track throws std::out_of_range.
  void span(int track, std::string_view name, sim::Time begin, sim::Time end, const TraceArgs& args = {});
  // An instant event (ph "i", thread scope).
  void instant(int track, std::string_view name, sim::Time t, const TraceArgs& args = {});
  // A counter sample (ph "C"): series `name` of the track's process takes `value` at t.
  // NaN/Inf throw std::invalid_argument.
  void counter(int track, std::string_view name, sim::Time t, double value);
  // Writes the drop record and closes the JSON; later calls throw std::logic_error.
  void finish();

  const TraceStats& stats() const { return stats_; }

private:
  struct Track {
    int pid, tid;
  };
  bool admit(sim::Time begin, sim::Time end);
  const Track& get(int track) const;
  void begin_event(); // separator before an event line
  void check_open() const;

  std::ostream& out_;
  TraceLimits limits_;
  TraceStats stats_;
  uint64_t in_window_ = 0;
  bool first_ = true, finished_ = false;
  std::vector<Track> tracks_;
  std::map<std::pair<std::string, std::string>, int> track_ids_;
  std::map<std::string, int> pids_;
  std::vector<int> threads_per_pid_;
};

// Picoseconds as exact decimal microseconds: 1234567 -> "1.234567", 5000000 -> "5".
std::string trace_timestamp_us(sim::Time ps);

} // namespace lanaikit::report
