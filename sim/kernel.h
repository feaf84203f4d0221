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

// A component that runs ahead of the event queue in batches: a chip's CPU. Agents are not
// events: they never enter the queue or the trace hash, so how far one runs per batch
// cannot change anything observable (docs/sim.md, "Run-ahead agents").
class Agent {
public:
  virtual ~Agent() = default;
  // Called with Kernel::now() equal to the agent's resume time. Runs the agent while its
  // local time is before `horizon`; everything it does that another component can see is
  // done with now() equal to the time it happens (an agent stops and asks to be resumed at
  // that time first). Returns the agent's new resume time (>= now), or -1 when it has
  // nothing to do until Kernel::wake() is called for it.
  virtual Time advance(Time horizon) = 0;
};

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

  // Run-ahead agents. The kernel resumes the agent with the earliest resume time (ties: the
  // one added first) whenever that time is before the next event; events at a time run
  // before agents at that time. The horizon it gets is the earliest of: the next event,
  // every other agent's resume time + lookahead(), and the run_until limit. The lookahead
  // is the shortest time in which one agent's action can reach another (the cluster sets
  // it from the network); 0 keeps agents in lock step with each other.
  size_t add_agent(Agent* agent);
  // Makes agent `index` runnable at time `at` (>= now), or moves its resume time.
  void wake(size_t index, Time at);
  // The agent no longer runs until woken.
  void sleep(size_t index);
  Time resume_time(size_t index) const { return agents_.at(index).resume; }
  void set_lookahead(Time t) { lookahead_ = t; }
  Time lookahead() const { return lookahead_; }
  uint64_t agent_batches() const { return agent_batches_; }

  // No events pending (runnable agents do not count: a polling CPU is never idle).
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

  struct AgentState {
    Agent* agent;
    Time resume = -1; // -1: asleep
  };
  // The runnable agent with the earliest resume time (ties: lowest index), or -1.
  int next_agent() const;
  void run_agent(size_t index, Time limit);
  std::vector<AgentState> agents_;
  Time lookahead_ = 0;
  uint64_t agent_batches_ = 0;
};

} // namespace lanaikit::sim
