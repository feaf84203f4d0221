#include "report/chrome_trace.h"

#include "report/json.h"

#include <ostream>
#include <stdexcept>

namespace lanaikit::report {

std::string trace_timestamp_us(sim::Time ps) {
  const bool neg = ps < 0;
  const uint64_t a = neg ? uint64_t(0) - uint64_t(ps) : uint64_t(ps);
  std::string s = std::to_string(a / 1'000'000);
  uint64_t frac = a % 1'000'000;
  if (frac) {
    std::string f = std::to_string(frac);
    f = std::string(6 - f.size(), '0') + f;
    while (f.back() == '0') f.pop_back();
    s += "." + f;
  }
  if (neg) s.insert(s.begin(), '-');
  return s;
}

namespace {
void write_args(JsonWriter& w, const TraceArgs& args) {
  if (args.empty()) return;
  w.key("args").begin_object();
  for (const auto& [k, v] : args) {
    w.key(k);
    std::visit([&](const auto& x) { w.value(x); }, v);
  }
  w.end_object();
}
} // namespace

TraceWriter::TraceWriter(std::ostream& out, TraceLimits limits) : out_(out), limits_(limits) {
  if (limits_.sample_every == 0) limits_.sample_every = 1;
  out_ << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
}

TraceWriter::~TraceWriter() {
  if (!finished_) {
    try {
      finish();
    } catch (...) {
    }
  }
}

void TraceWriter::check_open() const {
  if (finished_) throw std::logic_error("TraceWriter: event after finish()");
}

void TraceWriter::begin_event() {
  out_ << (first_ ? "\n" : ",\n");
  first_ = false;
}

const TraceWriter::Track& TraceWriter::get(int track) const {
  if (track < 0 || size_t(track) >= tracks_.size())
    throw std::out_of_range("TraceWriter: unknown track " + std::to_string(track));
  return tracks_[size_t(track)];
}

int TraceWriter::track(const std::string& process, const std::string& thread) {
  check_open();
  const auto key = std::make_pair(process, thread);
  if (auto it = track_ids_.find(key); it != track_ids_.end()) return it->second;
  auto meta = [&](const char* name, int pid, int tid, const char* arg, auto value) {
    begin_event();
    JsonWriter w(out_);
    w.begin_object().member("name", name).member("ph", "M").member("pid", pid).member("tid", tid);
    w.key("args").begin_object().member(arg, value).end_object();
    w.end_object();
  };
  int pid;
  if (auto it = pids_.find(process); it != pids_.end()) {
    pid = it->second;
  } else {
    pid = int(pids_.size()) + 1;
    pids_.emplace(process, pid);
    threads_per_pid_.push_back(0);
    meta("process_name", pid, 0, "name", process);
    meta("process_sort_index", pid, 0, "sort_index", pid);
  }
  const int tid = ++threads_per_pid_[size_t(pid - 1)];
  meta("thread_name", pid, tid, "name", thread);
  meta("thread_sort_index", pid, tid, "sort_index", tid);
  const int id = int(tracks_.size());
  tracks_.push_back({pid, tid});
  track_ids_.emplace(key, id);
  return id;
}

bool TraceWriter::admit(sim::Time begin, sim::Time end) {
  const bool inside = begin == end ? begin >= limits_.window_begin && begin < limits_.window_end
                                   : end > limits_.window_begin && begin < limits_.window_end;
  if (!inside) {
    ++stats_.dropped_window;
    return false;
  }
  if (in_window_++ % limits_.sample_every != 0) {
    ++stats_.dropped_sampling;
    return false;
  }
  if (stats_.kept >= limits_.max_events) {
    ++stats_.dropped_budget;
    return false;
  }
  ++stats_.kept;
  return true;
}

void TraceWriter::span(int track, std::string_view name, sim::Time begin, sim::Time end, const TraceArgs& args) {
  check_open();
  const Track& t = get(track);
  if (end < begin)
    throw std::invalid_argument("TraceWriter: span \"" + std::string(name) + "\" ends (" + std::to_string(end) +
                                " ps) before it begins (" + std::to_string(begin) + " ps)");
  if (!admit(begin, end)) return;
  begin_event();
  JsonWriter w(out_);
  w.begin_object().member("name", name).member("ph", "X");
  w.key("ts").raw_value(trace_timestamp_us(begin));
  w.key("dur").raw_value(trace_timestamp_us(end - begin));
  w.member("pid", t.pid).member("tid", t.tid);
  write_args(w, args);
  w.end_object();
}

void TraceWriter::instant(int track, std::string_view name, sim::Time time, const TraceArgs& args) {
  check_open();
  const Track& t = get(track);
  if (!admit(time, time)) return;
  begin_event();
  JsonWriter w(out_);
  w.begin_object().member("name", name).member("ph", "i").member("s", "t");
  w.key("ts").raw_value(trace_timestamp_us(time));
  w.member("pid", t.pid).member("tid", t.tid);
  write_args(w, args);
  w.end_object();
}

void TraceWriter::counter(int track, std::string_view name, sim::Time time, double value) {
  check_open();
  const Track& t = get(track);
  const std::string v = json_number(value); // throws for NaN/Inf before anything is counted
  if (!admit(time, time)) return;
  begin_event();
  JsonWriter w(out_);
  w.begin_object().member("name", name).member("ph", "C");
  w.key("ts").raw_value(trace_timestamp_us(time));
  w.member("pid", t.pid).member("tid", t.tid);
  w.key("args").begin_object().key(name).raw_value(v).end_object();
  w.end_object();
}

void TraceWriter::finish() {
  check_open();
  finished_ = true;
  auto counts = [&](JsonWriter& w) {
    w.member("kept_events", stats_.kept)
        .member("dropped_events", stats_.dropped())
        .member("dropped_outside_window", stats_.dropped_window)
        .member("dropped_by_sampling", stats_.dropped_sampling)
        .member("dropped_over_budget", stats_.dropped_budget)
        .member("max_events", limits_.max_events)
        .member("sample_every", uint64_t(limits_.sample_every));
    w.key("window_begin_us").raw_value(trace_timestamp_us(limits_.window_begin));
    w.key("window_end_us").raw_value(trace_timestamp_us(limits_.window_end));
  };
  begin_event();
  {
    JsonWriter w(out_);
    w.begin_object().member("name", "lanaikit_dropped").member("ph", "M").member("pid", 0).member("tid", 0);
    w.key("args").begin_object();
    counts(w);
    w.end_object().end_object();
  }
  out_ << "\n],\n\"otherData\":";
  JsonWriter w(out_);
  w.begin_object().member("generator", "lanaikit").member("time_unit", "us");
  counts(w);
  w.end_object();
  out_ << "}\n";
  out_.flush();
}

} // namespace lanaikit::report
