// The discrete-event kernel: one queue of timed callbacks, deterministic by construction.
//
// Order of execution: by time; at equal times by `order` (a small integer a component
// chooses for its kind of event, lower first); at equal time and order, in the order the
// events were scheduled (FIFO). Nothing else — no pointer values, no hash order — decides,
// so the same inputs give the same run, bit for bit.
//
// Every executed event folds (time, order, sequence number, tag) into a running 64-bit
// trace hash, and components may fold in values of their own (Kernel::trace): two runs
// agree iff their hashes agree, which is what the determinism tests compare.
#pragma once

#include "sim/time.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

namespace lanaikit::sim {

using EventId = uint64_t; // unique per kernel; 0 is never used

class Kernel {
public:
  using Callback = std::function<void()>;

  Time now() const { return now_; }

  // Runs `fn` at time `at` (>= now). `tag` names the kind of event in the trace hash.
  EventId schedule_at(Time at, Callback fn, uint32_t tag = 0, int8_t order = 0);
  EventId schedule_in(Time delay, Callback fn, uint32_t tag = 0, int8_t order = 0) {
    return schedule_at(now_ + delay, std::move(fn), tag, order);
  }
  // Cancels a pending event; returns false if it already ran, was cancelled or never was.
  bool cancel(EventId id);

  // Runs events until none is left at or before `limit`; then now() == limit (if the
  // queue reached it) or the time of the last event run. Returns the number run.
  uint64_t run_until(Time limit);
  // Runs every event (until the queue is empty or stop() is called).
  uint64_t run();
  // Makes run()/run_until() return after the current event.
  void stop() { stop_ = true; }

  bool idle() const { return live_ == 0; }
  size_t pending() const { return live_; }
  // Time of the next pending event, or -1 if none.
  Time next_time();

  uint64_t events_run() const { return events_run_; }
  uint64_t trace_hash() const { return hash_; }
  void trace(uint64_t value) { mix(value); }

private:
  struct Entry {
    Time at;
    int8_t order;
    uint64_t seq; // also the EventId
    bool operator>(const Entry& o) const {
      if (at != o.at) return at > o.at;
      if (order != o.order) return order > o.order;
      return seq > o.seq;
    }
  };
  struct Pending {
    Callback fn;
    uint32_t tag = 0;
    bool live = false;
  };

  void mix(uint64_t v) {
    // FNV-1a over the 8 bytes of the value.
    for (int i = 0; i < 8; ++i) hash_ = (hash_ ^ ((v >> (8 * i)) & 0xFF)) * 0x100000001b3ull;
  }
  bool pop_live(Entry& out);
  bool is_live(uint64_t seq) const;

  Time now_ = 0;
  uint64_t next_seq_ = 1;
  std::vector<Entry> heap_;         // min-heap by (at, order, seq)
  std::deque<Pending> pending_;     // indexed by seq - base_seq_; dead front entries dropped
  uint64_t base_seq_ = 1;
  size_t live_ = 0;
  uint64_t events_run_ = 0;
  uint64_t hash_ = 0xcbf29ce484222325ull;
  bool stop_ = false;
};

} // namespace lanaikit::sim
