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

#include "event/fifo.h"
#include "event/time.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace lanaikit::sim {

// A move-only `void()` callable with inline storage: what the kernel runs, and what timed
// models keep for their completions. A callable of up to kInlineBytes that moves without
// throwing lives in the object itself (a lambda capturing `this` and a few values, or a
// whole std::function), so creating, moving and running one allocates nothing; a larger
// one goes to the heap. An empty std::function or null function pointer makes an empty
// Callback.
class Callback {
public:
  static constexpr size_t kInlineBytes = 40;

  Callback() noexcept = default;
  Callback(std::nullptr_t) noexcept {}
  template <class F, class D = std::decay_t<F>,
            std::enable_if_t<!std::is_same_v<D, Callback> && std::is_invocable_r_v<void, D&>,
                             int> = 0>
  Callback(F&& f) { // NOLINT: implicit, like std::function's
    emplace<D>(std::forward<F>(f));
  }
  Callback(Callback&& o) noexcept { take(o); }
  Callback& operator=(Callback&& o) noexcept {
    if (this != &o) {
      reset();
      take(o);
    }
    return *this;
  }
  Callback(const Callback&) = delete;
  Callback& operator=(const Callback&) = delete;
  ~Callback() { reset(); }

  // Replaces the callable (assign(Callback&&) moves, anything else is built in place).
  template <class F> void assign(F&& f) {
    using D = std::decay_t<F>;
    if constexpr (std::is_same_v<D, Callback>) {
      static_assert(!std::is_lvalue_reference_v<F>, "a Callback is moved in: std::move it");
      *this = std::move(f);
    } else {
      reset();
      emplace<D>(std::forward<F>(f));
    }
  }

  explicit operator bool() const noexcept { return ops_ != nullptr; }
  void operator()() { ops_->invoke(buf_); }
  void reset() noexcept {
    if (ops_) {
      if (ops_->destroy) ops_->destroy(buf_);
      ops_ = nullptr;
    }
  }

private:
  struct Ops {
    void (*invoke)(void* buf);
    void (*relocate)(void* to, void* from) noexcept; // null: the bytes are the object
    void (*destroy)(void* buf) noexcept;             // null: nothing to do
  };

  template <class D> static constexpr bool kInline =
      sizeof(D) <= kInlineBytes && alignof(D) <= alignof(std::max_align_t) &&
      std::is_nothrow_move_constructible_v<D>;
  template <class D> static constexpr bool kTrivial =
      std::is_trivially_copyable_v<D> && std::is_trivially_destructible_v<D>;

  template <class D> static constexpr Ops kInlineOps{
      [](void* b) { (*std::launder(static_cast<D*>(b)))(); },
      kTrivial<D> ? nullptr
                  : +[](void* to, void* from) noexcept {
                      D* f = std::launder(static_cast<D*>(from));
                      ::new (to) D(std::move(*f));
                      f->~D();
                    },
      kTrivial<D> ? nullptr
                  : +[](void* b) noexcept { std::launder(static_cast<D*>(b))->~D(); }};
  template <class D> static constexpr Ops kHeapOps{
      [](void* b) { (**static_cast<D**>(b))(); }, nullptr,
      [](void* b) noexcept { delete *static_cast<D**>(b); }};

  template <class D, class F> void emplace(F&& f) {
    if constexpr (std::is_pointer_v<D> || std::is_member_pointer_v<D>) {
      if (f == nullptr) return;
    } else if constexpr (std::is_same_v<D, std::function<void()>>) {
      if (!f) return;
    }
    if constexpr (kInline<D>) {
      ::new (static_cast<void*>(buf_)) D(std::forward<F>(f));
      ops_ = &kInlineOps<D>;
    } else {
      *reinterpret_cast<D**>(buf_) = new D(std::forward<F>(f));
      ops_ = &kHeapOps<D>;
    }
  }
  void take(Callback& o) noexcept {
    if (!o.ops_) return;
    if (o.ops_->relocate) o.ops_->relocate(buf_, o.buf_);
    else std::memcpy(buf_, o.buf_, kInlineBytes);
    ops_ = o.ops_;
    o.ops_ = nullptr;
  }

  alignas(std::max_align_t) unsigned char buf_[kInlineBytes];
  const Ops* ops_ = nullptr;
};

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
  // A dozing agent (Kernel::doze) is brought to now() and made runnable (by wake()): the
  // kernel calls it when a run ends, so that whatever reads the agent's state afterwards
  // sees it as if it had run all along.
  virtual void settle() {}
};

// Unique per kernel among any 2^40 consecutively scheduled events; 0 is never used.
using EventId = uint64_t;

class Kernel {
public:
  using Callback = sim::Callback;

  Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  Time now() const { return now_; }

  // How soon an event can change what an agent reads. Near: at once (the default). Distant:
  // not sooner than distant_reach() after its time, whatever it does (a switch's inner
  // events: everything they start reaches a chip over a link); an agent's batch may then
  // run past it by that much. Neither changes the order events run in.
  enum class Reach : uint8_t { Near, Distant };

  // Runs `fn` (anything a Callback holds) at time `at` (>= now). `tag` names the kind of
  // event in the trace hash.
  template <class F>
  EventId schedule_at(Time at, F&& fn, uint32_t tag = 0, int8_t order = 0, Reach reach = Reach::Near) {
    if (at < now_) [[unlikely]] scheduled_in_the_past(at);
    return place(at, 0, std::forward<F>(fn), tag, order, reach);
  }

  // An event held back (a chunk arriving at a switch while it waits, net/link.h): its
  // place in the order is taken now, as schedule_at would take it, but nothing is queued.
  // Either its owner does its work later, from another event, once has_passed() says the
  // kernel is past that place, or it becomes a real event with schedule_reserved(). Every
  // other event keeps the sequence number it would have had, so the order is unchanged.
  // Its time `at` still keeps the run going as the event would have (idle(), next_time(),
  // run() reach it), without bounding agents' batches or counting as an event.
  uint64_t reserve_seq(Time at) {
    held_times_.push_back(at);
    std::push_heap(held_times_.begin(), held_times_.end(), std::greater<Time>());
    return next_seq_++;
  }
  // True when an event at (at, order, seq) would already have run: inside an event, it
  // comes before the running one; between runs, the last run went past it.
  bool has_passed(Time at, uint64_t seq, int8_t order = 0) const {
    return (Key(uint64_t(at)) << 64 | key_for(order, seq)) < done_;
  }
  // Schedules a held-back event at the place reserve_seq() gave it. That place must still
  // be ahead (!has_passed); otherwise it throws std::logic_error.
  template <class F>
  EventId schedule_reserved(Time at, uint64_t seq, F&& fn, uint32_t tag = 0, int8_t order = 0,
                            Reach reach = Reach::Near) {
    if (seq == 0 || seq >= next_seq_ || at < now_ || has_passed(at, seq, order)) [[unlikely]]
      reserved_out_of_place(at, seq);
    return place(at, seq, std::forward<F>(fn), tag, order, reach);
  }
  template <class F>
  EventId schedule_in(Time delay, F&& fn, uint32_t tag = 0, int8_t order = 0, Reach reach = Reach::Near) {
    return schedule_at(now_ + delay, std::forward<F>(fn), tag, order, reach);
  }
  // The least time in which a distant event can change what an agent reads (the cluster
  // sets it to the smallest link latency); 0, the default, makes distant events near.
  void set_distant_reach(Time t) { distant_reach_ = t; }
  Time distant_reach() const { return distant_reach_; }
  // Cancels a pending event; returns false if it already ran, was cancelled or never was.
  bool cancel(EventId id);

  // Runs events until none is left at or before `limit`; then now() == limit (if the
  // queue reached it) or the time of the last event run. Returns the number run. Dozing
  // agents are settled at the end, also when an event or agent throws.
  uint64_t run_until(Time limit);
  // The same, paused after `max_steps` events and agent batches: for a caller that looks
  // at the wall clock now and then. A pause is not an end: it settles no dozing agent and
  // bounds no batch, so what the run does does not depend on where it pauses (dozes, and
  // what the network holds back while chips doze, follow). Returns whether the run reached
  // the limit (or stop() was called); call it again to go on, then run_until() or settle()
  // to end.
  bool run_steps(Time limit, uint64_t max_steps);
  // Brings dozing agents to now (what the end of run_until() does).
  void settle() {
    if (dozing_ > 0) settle_dozing();
  }
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
  // Like sleep(), but the agent is logically still running (an idle chip whose CPU repeats
  // a loop it can account for arithmetically, vm/doze.h): it does not bound the others'
  // horizons, something that changes what it reads wakes it, and the end of run_until()
  // settles it (Agent::settle). wake() ends the doze.
  void doze(size_t index);
  bool dozing(size_t index) const { return agents_.at(index).dozing; }
  Time resume_time(size_t index) const { return agents_.at(index).resume; }
  void set_lookahead(Time t) { lookahead_ = t; }
  Time lookahead() const { return lookahead_; }
  uint64_t agent_batches() const { return agent_batches_; }
  // What bounded the agents' batches: the horizon each batch was given came from the run's
  // limit, the next near event, a distant event plus distant_reach(), or another runnable
  // agent's resume time plus lookahead() (whichever is earliest; at a tie, the first).
  // A batch may end sooner (an access at its exact time, a doze); this counts what it was
  // allowed. docs/sim.md, "Cluster speed", part 8, reads a stress run with it.
  struct BatchBounds {
    uint64_t limit = 0, near_event = 0, distant_event = 0, other_agent = 0;
  };
  const BatchBounds& batch_bounds() const { return batch_bounds_; }
  // With the census on, the events that bounded batches are also counted by tag (which
  // component's events end the batches); off, the default, it costs a branch per batch.
  void set_bound_census(bool on) { census_on_ = on; }
  bool bound_census_on() const { return census_on_; }
  // (key, batches) in the order first seen: the key is a near event's tag, or a distant
  // event's tag | kCensusDistant.
  static constexpr uint64_t kCensusDistant = uint64_t(1) << 32;
  const std::vector<std::pair<uint64_t, uint64_t>>& bound_census() const { return census_; }

  // True while an event's callback runs and no pending event would run before an event
  // scheduled now, at now(), with `order`: such an event would be the very next thing the
  // kernel runs (events at an instant run before agents at it). A component whose event
  // ends by scheduling a zero-delay follow-up may then do the follow-up's work in place,
  // exactly as the follow-up would have (the order of everything else is unchanged; only
  // the event count and trace hash differ): net::Link::sink_ready_last. Held-back events
  // (reserve_seq) are not seen here: a follow-up done in place must not read the state of
  // a held event's owner (a switch input's link reads only its own, and checks its own).
  bool next_in_line(int8_t order = 0) const {
    if (!in_event_ || (order >= 0 && !now_fifo_.empty())) return false;
    auto after = [&](const Queue& q) { return q.top_at != now_ || order_of(q.top) > order; };
    return after(near_) && after(distant_);
  }

  // No events pending (runnable agents do not count: a polling CPU is never idle).
  // (Held-back events, reserve_seq, count as pending for idle() and next_time().)
  bool idle() const { return live_ == 0 && held_times_.empty(); }
  size_t pending() const { return live_; }
  // Time of the next pending event, or -1 if none.
  Time next_time() const {
    const Time t = now_fifo_.empty() ? earliest().top_at : now_;
    if (held_times_.empty()) return t;
    return t < 0 ? held_times_.front() : std::min(t, held_times_.front());
  }

  uint64_t events_run() const { return events_run_; }
  uint64_t trace_hash() const { return hash_; }
  void trace(uint64_t value) { mix(value); }

private:
  // The queue holds small entries; the callbacks stay put in slots (in blocks that never
  // move, so a callback runs where it was built and may schedule more). An entry's key is
  // (order, sequence number) in one word, so (at, key) orders events exactly as (time,
  // order, FIFO). Entries go to one of kRuns runs, FIFOs whose entries are in increasing
  // order (an entry joins the run with the latest last entry before it, or an empty one),
  // or, when none fits, to a binary min-heap: most components schedule at increasing times
  // (a host posting PIO words, a link's chunks, a bus's transactions), so the runs take
  // nearly everything in O(1) and the heap stays small. The earliest entry is the least of
  // the runs' fronts and the heap's top. A slot holds the sequence number of its pending
  // event, or 0; an entry whose slot no longer holds its number is a cancelled event,
  // dropped when it becomes the earliest (which is always live) or when dead entries are
  // the majority.
  static constexpr unsigned kSeqBits = 56;
  static constexpr uint64_t kSeqMask = (uint64_t(1) << kSeqBits) - 1;
  static constexpr unsigned kSlotBits = 24; // EventId: sequence number << 24 | slot + 1
  static constexpr uint32_t kMaxSlots = (uint32_t(1) << kSlotBits) - 1;
  static constexpr unsigned kBlockBits = 8;
  static constexpr uint32_t kBlockSlots = uint32_t(1) << kBlockBits;

  struct Entry {
    Time at;
    uint64_t key; // (order ^ 0x80) << 56 | sequence number
    uint32_t slot;
  };
  using Key = unsigned __int128; // (at, key): every entry's is > 0
  static Key key_of(const Entry& e) { return Key(uint64_t(e.at)) << 64 | e.key; }
  static uint64_t key_for(int8_t order, uint64_t seq) {
    return (uint64_t(uint8_t(order) ^ 0x80u) << kSeqBits) | seq;
  }
  [[noreturn]] void reserved_out_of_place(Time at, uint64_t seq) const;
  // Queues `fn` at `at` with sequence number `seq`, or the next one if `seq` is 0.
  template <class F>
  EventId place(Time at, uint64_t seq, F&& fn, uint32_t tag, int8_t order, Reach reach) {
    const uint32_t index = take_slot();
    Slot& s = slot(index);
    try {
      s.fn.assign(std::forward<F>(fn));
    } catch (...) {
      free_.push_back(index);
      throw;
    }
    const bool fresh = seq == 0;
    if (fresh) seq = next_seq_++;
    s.seq = seq;
    s.tag = tag;
    const Entry e{at, key_for(order, seq), index};
    // now_fifo_ only ever grows at its back, so a reserved (older) number goes to a queue.
    if (fresh && at == now_ && order == 0) now_fifo_.push_back(e); // see now_fifo_
    else if (reach == Reach::Near) near_.push(e);
    else distant_.push(e);
    ++live_;
    return (seq << kSlotBits) | (index + 1);
  }
  static int8_t order_of(const Entry& e) { return int8_t(uint8_t(e.key >> kSeqBits) ^ 0x80u); }
  static bool before(const Entry& a, const Entry& b) { return key_of(a) < key_of(b); }
  struct Slot {
    Callback fn;
    uint64_t seq = 0; // of the pending event in this slot; 0: none
    uint32_t tag = 0;
  };

  Slot& slot(uint32_t index) { return blocks_[index >> kBlockBits][index & (kBlockSlots - 1)]; }
  bool live(const Entry& e) { return slot(e.slot).seq == (e.key & kSeqMask); }
  uint32_t take_slot() {
    if (free_.empty()) [[unlikely]] add_block();
    const uint32_t index = free_.back();
    free_.pop_back();
    return index;
  }
  void add_block();
  static constexpr int kRuns = 4;
  static constexpr int kHeap = -1;
  // Two queues of timed entries, near and distant events (Reach), each of runs and a heap;
  // the next event is the least of their earliest entries and now_fifo_'s front.
  struct Queue {
    Fifo<Entry> runs[kRuns]; // each in increasing (at, key) order
    Key run_front[kRuns];    // key of each run's first entry; ~0: empty
    uint32_t front_slot[kRuns]; // and its slot (the front is rebuilt from these two, so
                                // finding the top reads no run's buffer)
    Key run_back[kRuns];     // key of each run's last entry; 0: empty
    std::vector<Entry> heap; // min-heap by (at, key)
    Entry top{};             // the earliest entry, if top_at >= 0 (kept live)
    int top_src = kHeap;     // where it is
    Time top_at = -1;        // its time; -1: no entry
    // The runs by their last keys, latest first, the empty ones (used .. kRuns-1) last. A
    // push goes to the first run in this order whose last key is before the entry's: the
    // runs ahead of it end later than the entry, the runs behind it earlier than that
    // run's old last key, so the order still holds afterwards and a push scans no further
    // than the run it picks (usually the first). Only a run that empties moves (to the end).
    uint8_t rank[kRuns];
    int used = 0; // non-empty runs
    Queue();
    void push(const Entry& e);
    void heap_push(const Entry& e);
    void heap_pop();
    void pop_min();  // removes the earliest entry
    void find_top(); // sets top_src, top_at
    void rerank();   // rank and used from scratch (after compact)
  };
  // The queue (near or distant) whose earliest entry comes first; either when both are empty.
  const Queue& earliest() const {
    if (near_.top_at < 0) return distant_;
    return distant_.top_at < 0 || key_of(near_.top) < key_of(distant_.top) ? near_ : distant_;
  }
  Queue& earliest() { return const_cast<Queue&>(std::as_const(*this).earliest()); }
  // Keeps a queue's earliest entry live (an inline test: it nearly always is).
  void drop_dead_top(Queue& q) {
    if (q.top_at >= 0 && !live(q.top)) [[unlikely]] drop_dead_entries(q);
  }
  void drop_dead_entries(Queue& q);
  void compact();
  [[noreturn]] void scheduled_in_the_past(Time at) const;

  void mix(uint64_t v) {
    // Word-wise: one multiply and a shift per value (it was FNV-1a over the value's bytes,
    // up to 8 steps): h = (h ^ v) * K, then the high half folded down so every bit of v
    // reaches every bit of the next fold. K is 2^64 / golden ratio (odd, so the multiply
    // is a bijection and no value is lost).
    const uint64_t h = (hash_ ^ v) * 0x9e3779b97f4a7c15ull;
    hash_ = h ^ (h >> 32);
  }

  Time now_ = 0;
  uint64_t next_seq_ = 1;
  Queue near_, distant_;
  Time distant_reach_ = 0;
  // Events scheduled for the current instant with order 0 (a process resumed, a posted
  // request, a zero-delay follow-up: a third of a stress run's events) skip the runs and the
  // heap: they are made in FIFO order at now(), so their keys only grow, and the next event
  // is the lesser of this queue's front and the earliest entry. Time never moves on while
  // it holds an entry (it is at now(), which comes first). Its front is kept live.
  Fifo<Entry> now_fifo_;
  void drop_dead_now();
  std::vector<std::unique_ptr<Slot[]>> blocks_; // kBlockSlots slots each
  std::vector<uint32_t> free_;                  // free slots, the last freed on top
  size_t live_ = 0;
  size_t dead_ = 0; // cancelled entries still queued
  uint64_t events_run_ = 0;
  uint64_t hash_ = 0xcbf29ce484222325ull;
  bool stop_ = false;
  bool paused_ = false;
  uint64_t steps_left_ = ~uint64_t(0); // run_steps: events and batches before a pause
  bool in_event_ = false; // an event's callback is running
  // How far the run has gone, as a (time, key): the running event's, or after a run the
  // last one's (everything up to the limit when the run reached it). has_passed() reads it.
  Key done_ = 0;
  // The times of held-back events (reserve_seq), a min-heap; those passed are dropped as
  // the run moves on (drop_held_times).
  std::vector<Time> held_times_;
  void drop_held_times(Time up_to); // those at or before up_to

  struct AgentState {
    Agent* agent;
    Time resume = -1; // -1: asleep
    bool dozing = false;
    int32_t slot = -1; // its place in ready_, or -1
  };
  // The runnable agents in a binary min-heap by (resume time, index), so the kernel's
  // choice (the earliest, ties to the lowest index) and the others' earliest time (one of
  // the top's children) cost O(1) per event and O(log n) per change, not a pass over every
  // agent each time: a 64-node cluster has 64 agents and tens of events per microsecond.
  struct Ready {
    Time resume;
    uint32_t agent;
    bool operator<(const Ready& o) const { return resume < o.resume || (resume == o.resume && agent < o.agent); }
  };
  std::vector<Ready> ready_;
  void set_resume(size_t index, Time t); // updates the heap
  void ready_place(size_t i, const Ready& r) {
    ready_[i] = r;
    agents_[r.agent].slot = int32_t(i);
  }
  void ready_up(size_t i, Ready r);   // r goes into the hole at i, moving up
  void ready_down(size_t i, Ready r); // r goes into the hole at i, moving down
  void settle_dozing();
  void settle_after_failure() noexcept;
  void end_doze(AgentState& a);
  size_t dozing_ = 0; // agents dozing
  void run_agent(size_t index, Time horizon);
  uint64_t run_events(Time limit); // run_until without settling
  std::vector<AgentState> agents_;
  Time lookahead_ = 0;
  uint64_t agent_batches_ = 0;
  BatchBounds batch_bounds_;
  bool census_on_ = false;
  std::vector<std::pair<uint64_t, uint64_t>> census_;
  void count_census(uint64_t key);
};

} // namespace lanaikit::sim
