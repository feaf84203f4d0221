#include "event/kernel.h"

#include <algorithm>
#include <stdexcept>

namespace lanaikit::sim {

Kernel::Queue::Queue() {
  heap.reserve(64);
  for (int r = 0; r < kRuns; ++r) {
    run_front[r] = ~Key(0);
    run_back[r] = 0;
    front_slot[r] = 0;
    rank[r] = uint8_t(r);
  }
}

Kernel::Kernel() = default;

void Kernel::scheduled_in_the_past(Time at) const {
  throw std::logic_error("event scheduled in the past: at " + std::to_string(at) + " ps, now " +
                         std::to_string(now_) + " ps");
}

void Kernel::add_block() {
  const uint32_t first = uint32_t(blocks_.size()) * kBlockSlots;
  if (first + kBlockSlots > kMaxSlots)
    throw std::length_error("kernel: more than " + std::to_string(kMaxSlots) +
                            " events pending at once");
  blocks_.push_back(std::make_unique<Slot[]>(kBlockSlots));
  free_.reserve(first + kBlockSlots); // so freeing a slot never allocates
  // Handed out lowest first.
  for (uint32_t i = kBlockSlots; i-- > 0;) free_.push_back(first + i);
}

void Kernel::Queue::push(const Entry& e) {
  const Key k = key_of(e);
  // A new earliest entry ends up at the front of its run (so the run was empty) or at the
  // heap's top.
  const bool earliest = top_at < 0 || k < key_of(top);
  int to = kHeap;
  // The run whose last entry is the latest before e (an empty one, last key 0, only if
  // none fits): the first in rank order that ends before e.
  for (int i = 0; i < kRuns; ++i) {
    const int r = rank[i];
    if (run_back[r] < k) {
      if (run_back[r] == 0) {
        run_front[r] = k;
        front_slot[r] = e.slot;
        ++used;
      }
      runs[r].push_back(e);
      run_back[r] = k;
      to = r;
      break;
    }
  }
  if (to == kHeap) heap_push(e);
  if (earliest) {
    top = e;
    top_src = to;
    top_at = e.at;
  }
}

void Kernel::Queue::heap_push(const Entry& e) {
  size_t i = heap.size();
  heap.push_back(e);
  Entry* h = heap.data();
  while (i > 0) {
    const size_t parent = (i - 1) / 2;
    if (!before(e, h[parent])) break;
    h[i] = h[parent];
    i = parent;
  }
  h[i] = e;
}

// Removes the heap's top: the hole it leaves goes down to a leaf along the smaller
// children, then the last entry fills it from there upwards (it usually belongs near the
// bottom).
void Kernel::Queue::heap_pop() {
  const Entry last = heap.back();
  heap.pop_back();
  const size_t n = heap.size();
  if (n == 0) return;
  Entry* h = heap.data();
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && before(h[c + 1], h[c])) ++c;
    h[i] = h[c];
    i = c;
  }
  while (i > 0) {
    const size_t parent = (i - 1) / 2;
    if (!before(last, h[parent])) break;
    h[i] = h[parent];
    i = parent;
  }
  h[i] = last;
}

void Kernel::Queue::find_top() {
  Key m = heap.empty() ? ~Key(0) : key_of(heap.front());
  int src = kHeap;
  for (int i = 0; i < used; ++i) {
    const int r = rank[i];
    if (run_front[r] < m) {
      m = run_front[r];
      src = r;
    }
  }
  top_src = src;
  if (src == kHeap && heap.empty()) {
    top_at = -1;
    return;
  }
  if (src == kHeap) {
    top = heap.front();
  } else {
    top.at = Time(uint64_t(m >> 64));
    top.key = uint64_t(m);
    top.slot = front_slot[src];
  }
  top_at = top.at;
}

void Kernel::Queue::pop_min() {
  if (top_src == kHeap) {
    heap_pop();
  } else {
    Fifo<Entry>& run = runs[top_src];
    run.pop_front();
    if (run.empty()) {
      run_front[top_src] = ~Key(0);
      run_back[top_src] = 0;
      // It goes to the end of the rank order, after the runs still in use.
      int i = 0;
      while (rank[i] != top_src) ++i;
      for (; i + 1 < kRuns; ++i) rank[i] = rank[i + 1];
      rank[kRuns - 1] = uint8_t(top_src);
      --used;
    } else {
      const Entry& f = run.front();
      run_front[top_src] = key_of(f);
      front_slot[top_src] = f.slot;
    }
  }
  find_top();
}

void Kernel::Queue::rerank() {
  for (int r = 0; r < kRuns; ++r) rank[r] = uint8_t(r);
  std::sort(rank, rank + kRuns, [this](uint8_t a, uint8_t b) { return run_back[a] > run_back[b]; });
  used = 0;
  for (int r = 0; r < kRuns; ++r) used += run_back[r] != 0;
}

void Kernel::drop_dead_now() {
  while (!now_fifo_.empty() && !live(now_fifo_.front())) {
    now_fifo_.pop_front();
    --dead_;
  }
}

void Kernel::drop_dead_entries(Queue& q) {
  while (q.top_at >= 0 && !live(q.top)) {
    q.pop_min();
    --dead_;
  }
}

// Dead entries are the majority: keep only the live ones. The order events run in is a
// function of their keys alone, so where an entry sits does not matter.
void Kernel::compact() {
  std::vector<Entry> keep;
  for (Queue* q : {&near_, &distant_}) {
    std::erase_if(q->heap, [this](const Entry& e) { return !live(e); });
    std::make_heap(q->heap.begin(), q->heap.end(), [](const Entry& a, const Entry& b) { return before(b, a); });
    for (int r = 0; r < kRuns; ++r) {
      Fifo<Entry>& run = q->runs[r];
      keep.clear();
      for (; !run.empty(); run.pop_front())
        if (live(run.front())) keep.push_back(run.front());
      for (const Entry& e : keep) run.push_back(e);
      q->run_front[r] = run.empty() ? ~Key(0) : key_of(run.front());
      q->front_slot[r] = run.empty() ? 0 : run.front().slot;
      q->run_back[r] = run.empty() ? 0 : key_of(run.back());
    }
    q->rerank();
    q->find_top();
  }
  keep.clear();
  for (; !now_fifo_.empty(); now_fifo_.pop_front())
    if (live(now_fifo_.front())) keep.push_back(now_fifo_.front());
  for (const Entry& e : keep) now_fifo_.push_back(e);
  dead_ = 0;
}

bool Kernel::cancel(EventId id) {
  const uint64_t low = id & ((uint64_t(1) << kSlotBits) - 1);
  if (low == 0 || low > uint64_t(blocks_.size()) * kBlockSlots) return false;
  const uint32_t index = uint32_t(low - 1);
  Slot& s = slot(index);
  if (s.seq == 0 || (s.seq << kSlotBits) != (id & ~((uint64_t(1) << kSlotBits) - 1))) return false;
  s.seq = 0;
  s.fn.reset();
  free_.push_back(index);
  --live_;
  ++dead_;
  drop_dead_now();
  drop_dead_top(near_);
  drop_dead_top(distant_);
  if (dead_ > 64 && dead_ > live_) compact();
  return true;
}

size_t Kernel::add_agent(Agent* agent) {
  agents_.push_back(AgentState{agent, -1});
  return agents_.size() - 1;
}

void Kernel::ready_up(size_t i, Ready r) {
  while (i > 0) {
    const size_t parent = (i - 1) / 2;
    if (!(r < ready_[parent])) break;
    ready_place(i, ready_[parent]);
    i = parent;
  }
  ready_place(i, r);
}

void Kernel::ready_down(size_t i, Ready r) {
  const size_t n = ready_.size();
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && ready_[c + 1] < ready_[c]) ++c;
    if (!(ready_[c] < r)) break;
    ready_place(i, ready_[c]);
    i = c;
  }
  ready_place(i, r);
}

void Kernel::set_resume(size_t index, Time t) {
  AgentState& a = agents_[index];
  const Time old = a.resume;
  a.resume = t;
  if (a.slot < 0) {
    if (t < 0) return;
    ready_.push_back(Ready{t, uint32_t(index)});
    ready_up(ready_.size() - 1, Ready{t, uint32_t(index)});
  } else if (t < 0) {
    const size_t i = size_t(a.slot);
    a.slot = -1;
    const Ready last = ready_.back();
    ready_.pop_back();
    if (i < ready_.size()) { // the last entry fills the hole, up or down
      if (i > 0 && last < ready_[(i - 1) / 2]) ready_up(i, last);
      else ready_down(i, last);
    }
  } else if (t < old) {
    ready_up(size_t(a.slot), Ready{t, uint32_t(index)});
  } else if (t > old) {
    ready_down(size_t(a.slot), Ready{t, uint32_t(index)});
  }
}

void Kernel::wake(size_t index, Time at) {
  if (at < now_)
    throw std::logic_error("agent woken in the past: at " + std::to_string(at) + " ps, now " +
                           std::to_string(now_) + " ps");
  set_resume(index, at);
  end_doze(agents_.at(index));
}

void Kernel::sleep(size_t index) {
  set_resume(index, -1);
  end_doze(agents_.at(index));
}

void Kernel::end_doze(AgentState& a) {
  if (!a.dozing) return;
  a.dozing = false;
  --dozing_;
}

void Kernel::doze(size_t index) {
  AgentState& a = agents_.at(index);
  set_resume(index, -1);
  if (!a.dozing) {
    a.dozing = true;
    ++dozing_;
  }
}

void Kernel::settle_dozing() {
  for (size_t i = 0; i < agents_.size() && dozing_ > 0; ++i) {
    if (!agents_[i].dozing) continue;
    agents_[i].agent->settle();
    if (agents_[i].dozing) throw std::logic_error("kernel: a dozing agent did not wake when settled");
  }
}

void Kernel::count_census(uint64_t key) {
  for (auto& [k, n] : census_)
    if (k == key) {
      ++n;
      return;
    }
  census_.emplace_back(key, 1);
}

void Kernel::run_agent(size_t index, Time horizon) {
  AgentState& a = agents_[index];
  now_ = a.resume;
  ++agent_batches_;
  const Time resume = a.agent->advance(horizon);
  // The agent may have slept, dozed or woken itself (or been woken by what it did); its
  // return value is the final word on its resume time.
  if (resume >= 0 && resume < now_)
    throw std::logic_error("agent resumes in the past: " + std::to_string(resume) + " ps");
  if (resume >= 0) wake(index, resume);
  else set_resume(index, -1);
}

// A run that throws (a chip's fault, a model's error) still brings dozing agents to now(),
// so that the report of the failure (every chip's pc, counters, profile) reads them as if
// they had run. Best effort: the error being thrown is the one that matters, so an agent
// that cannot settle is left as it is.
void Kernel::settle_after_failure() noexcept {
  try {
    if (dozing_ > 0) settle_dozing();
  } catch (...) {
  }
}

void Kernel::drop_held_times(Time up_to) {
  while (!held_times_.empty() && held_times_.front() <= up_to) {
    std::pop_heap(held_times_.begin(), held_times_.end(), std::greater<Time>());
    held_times_.pop_back();
  }
}

void Kernel::reserved_out_of_place(Time at, uint64_t seq) const {
  throw std::logic_error("sim::Kernel: schedule_reserved at t=" + std::to_string(at) +
                         " ps, seq " + std::to_string(seq) +
                         ": that place in the order has passed or was never reserved");
}

uint64_t Kernel::run_until(Time limit) {
  uint64_t ran = 0;
  try {
    ran = run_events(limit);
  } catch (...) {
    settle_after_failure();
    throw;
  }
  if (dozing_ > 0) settle_dozing();
  return ran;
}

uint64_t Kernel::run_events(Time limit) {
  stop_ = false;
  uint64_t ran = 0;
  while (!stop_) {
    Queue& q = earliest();
    const Time next = now_fifo_.empty() ? q.top_at : now_;
    // The runnable agent with the earliest resume time (ties: the lowest index), and the
    // earliest resume time of the others (-1: none): the heap's top and its smaller child.
    size_t best = 0;
    Time best_resume = -1, others = -1;
    if (!ready_.empty()) {
      best = ready_[0].agent;
      best_resume = ready_[0].resume;
      if (ready_.size() > 1) {
        others = ready_[1].resume;
        if (ready_.size() > 2 && ready_[2].resume < others) others = ready_[2].resume;
      }
    }
    // Agents strictly before the next event (and before the limit) go first; at equal
    // times the event runs first.
    if (best_resume >= 0 && best_resume < limit && (next < 0 || best_resume < next)) {
      // The next event bounds the batch, unless it is distant: then it can change nothing
      // the agent reads sooner than distant_reach_ after its time (the agent may compute
      // past it, but stops before anything others see, so the event still runs first).
      // (No event is due at now() here: an agent runs only before the next event, and
      // now_fifo_'s events are at now(). So the next near event is near_'s top.)
      Time horizon = limit;
      uint64_t* bound = &batch_bounds_.limit;
      if (near_.top_at >= 0 && near_.top_at < horizon) {
        horizon = near_.top_at;
        bound = &batch_bounds_.near_event;
      }
      if (distant_.top_at >= 0 && distant_.top_at + distant_reach_ < horizon) {
        horizon = distant_.top_at + distant_reach_;
        bound = &batch_bounds_.distant_event;
      }
      if (others >= 0 && others + lookahead_ < horizon) {
        horizon = others + lookahead_;
        bound = &batch_bounds_.other_agent;
      }
      ++*bound;
      if (census_on_) [[unlikely]] {
        if (bound == &batch_bounds_.near_event) count_census(slot(near_.top.slot).tag);
        if (bound == &batch_bounds_.distant_event)
          count_census(slot(distant_.top.slot).tag | kCensusDistant);
      }
      // Every event at or before the agent's time has run (the agent goes only strictly
      // before the next one): so have held-back events, for what the agent reads.
      const Key start = Key(uint64_t(best_resume)) << 64 | ~uint64_t(0);
      if (start > done_) done_ = start;
      run_agent(best, horizon);
      if (--steps_left_ == 0) [[unlikely]] {
        paused_ = true;
        break;
      }
      continue;
    }
    if (next < 0 || next > limit) {
      if (limit > now_) now_ = limit;
      // Nothing at or before the limit is left: everything up to it has run.
      const Key all = Key(uint64_t(limit)) << 64 | ~uint64_t(0);
      if (limit >= 0 && all > done_) done_ = all;
      if (!held_times_.empty()) drop_held_times(limit);
      break;
    }
    // The earliest of the three queues' fronts (each is live).
    Entry e;
    if (!now_fifo_.empty() && (q.top_at < 0 || key_of(now_fifo_.front()) < key_of(q.top))) {
      e = now_fifo_.front();
      now_fifo_.pop_front();
      drop_dead_now();
    } else {
      e = q.top;
      q.pop_min();
      drop_dead_top(q);
    }
    Slot& s = slot(e.slot);
    const uint64_t seq = s.seq;
    const uint32_t tag = s.tag;
    s.seq = 0;
    --live_;
    now_ = e.at;
    done_ = key_of(e);
    // Held-back events before this instant have passed (those at it may come after it).
    if (!held_times_.empty() && held_times_.front() < e.at) drop_held_times(e.at - 1);
    mix(uint64_t(e.at));
    mix((uint64_t(uint8_t(uint8_t(e.key >> kSeqBits) ^ 0x80u)) << 32) | tag);
    mix(seq);
    ++events_run_;
    ++ran;
    // The callback runs in its slot (which no one else can take until it is freed here),
    // then goes, even if it throws.
    struct Release {
      Kernel& k;
      Slot& s;
      uint32_t index;
      ~Release() {
        k.in_event_ = false;
        s.fn.reset();
        k.free_.push_back(index);
      }
    } release{*this, s, e.slot};
    in_event_ = true;
    s.fn();
    if (--steps_left_ == 0) [[unlikely]] {
      paused_ = true;
      break;
    }
  }
  return ran;
}

bool Kernel::run_steps(Time limit, uint64_t max_steps) {
  paused_ = false;
  steps_left_ = std::max<uint64_t>(max_steps, 1);
  struct Unlimited { // whatever happens, later runs are not paused
    uint64_t& steps;
    ~Unlimited() { steps = ~uint64_t(0); }
  } unlimited{steps_left_};
  try {
    run_events(limit);
  } catch (...) {
    settle_after_failure();
    throw;
  }
  return !paused_ || stop_; // a stop() in the last step is a stop, not a pause
}

uint64_t Kernel::run() {
  stop_ = false;
  uint64_t ran = 0;
  try {
    while (!stop_ && !idle()) ran += run_events(next_time());
  } catch (...) {
    settle_after_failure();
    throw;
  }
  if (dozing_ > 0) settle_dozing();
  return ran;
}

} // namespace lanaikit::sim
