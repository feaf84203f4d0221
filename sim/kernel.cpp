#include "sim/kernel.h"

#include <algorithm>
#include <stdexcept>

namespace lanaikit::sim {

EventId Kernel::schedule_at(Time at, Callback fn, uint32_t tag, int8_t order) {
  if (at < now_)
    throw std::logic_error("event scheduled in the past: at " + std::to_string(at) +
                           " ps, now " + std::to_string(now_) + " ps");
  const uint64_t seq = next_seq_++;
  pending_.push_back(Pending{std::move(fn), tag, true});
  heap_.push_back(Entry{at, order, seq});
  std::push_heap(heap_.begin(), heap_.end(), std::greater<Entry>{});
  ++live_;
  return seq;
}

bool Kernel::cancel(EventId id) {
  if (id < base_seq_ || id >= next_seq_) return false;
  Pending& p = pending_[id - base_seq_];
  if (!p.live) return false;
  p.live = false;
  p.fn = nullptr;
  --live_;
  return true;
}

// A heap entry's event is live unless it ran or was cancelled; the bookkeeping of events
// older than base_seq_ is gone, and those are all dead.
bool Kernel::is_live(uint64_t seq) const {
  return seq >= base_seq_ && pending_[seq - base_seq_].live;
}

// Pops heap entries until one whose event is still live.
bool Kernel::pop_live(Entry& out) {
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<Entry>{});
    const Entry e = heap_.back();
    heap_.pop_back();
    if (is_live(e.seq)) {
      out = e;
      return true;
    }
  }
  return false;
}

Time Kernel::next_time() {
  while (!heap_.empty() && !is_live(heap_.front().seq)) {
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<Entry>{});
    heap_.pop_back();
  }
  return heap_.empty() ? -1 : heap_.front().at;
}

size_t Kernel::add_agent(Agent* agent) {
  agents_.push_back(AgentState{agent, -1});
  return agents_.size() - 1;
}

void Kernel::wake(size_t index, Time at) {
  if (at < now_)
    throw std::logic_error("agent woken in the past: at " + std::to_string(at) + " ps, now " +
                           std::to_string(now_) + " ps");
  agents_.at(index).resume = at;
}

void Kernel::sleep(size_t index) { agents_.at(index).resume = -1; }

int Kernel::next_agent() const {
  int best = -1;
  for (size_t i = 0; i < agents_.size(); ++i) {
    const Time r = agents_[i].resume;
    if (r >= 0 && (best < 0 || r < agents_[size_t(best)].resume)) best = int(i);
  }
  return best;
}

void Kernel::run_agent(size_t index, Time limit) {
  AgentState& a = agents_[index];
  now_ = a.resume;
  Time horizon = limit;
  const Time next = next_time();
  if (next >= 0 && next < horizon) horizon = next;
  for (size_t i = 0; i < agents_.size(); ++i) {
    const Time r = agents_[i].resume;
    if (i != index && r >= 0 && r + lookahead_ < horizon) horizon = r + lookahead_;
  }
  ++agent_batches_;
  const Time resume = a.agent->advance(horizon);
  // The agent may have slept or woken itself (or been woken by what it did); its return
  // value is the final word.
  if (resume >= 0 && resume < now_)
    throw std::logic_error("agent resumes in the past: " + std::to_string(resume) + " ps");
  agents_[index].resume = resume;
}

uint64_t Kernel::run_until(Time limit) {
  stop_ = false;
  uint64_t ran = 0;
  while (!stop_) {
    const Time next = next_time();
    // Agents strictly before the next event (and before the limit) go first; at equal
    // times the event runs first.
    const int ai = next_agent();
    if (ai >= 0) {
      const Time r = agents_[size_t(ai)].resume;
      if (r < limit && (next < 0 || r < next)) {
        run_agent(size_t(ai), limit);
        continue;
      }
    }
    if (next < 0 || next > limit) {
      if (limit > now_) now_ = limit;
      break;
    }
    Entry e;
    pop_live(e);
    Pending& p = pending_[e.seq - base_seq_];
    Callback fn = std::move(p.fn);
    const uint32_t tag = p.tag;
    p.live = false;
    p.fn = nullptr;
    --live_;
    while (!pending_.empty() && !pending_.front().live) {
      pending_.pop_front();
      ++base_seq_;
    }
    now_ = e.at;
    mix(uint64_t(e.at));
    mix((uint64_t(uint8_t(e.order)) << 32) | tag);
    mix(e.seq);
    ++events_run_;
    ++ran;
    fn();
  }
  return ran;
}

uint64_t Kernel::run() {
  stop_ = false;
  uint64_t ran = 0;
  while (!stop_ && !idle()) ran += run_until(next_time());
  return ran;
}

} // namespace lanaikit::sim
