#include "vm/doze.h"

#include "vm/cpu_instrumented.h"

#include <algorithm>
#include <stdexcept>

namespace lanaikit::vm {

void SpinWatch::begin(Instrument* inner, uint32_t max_instructions) {
  inner_ = inner;
  state_ = State::Watching;
  stopped_ = false;
  budget_ = max_instructions;
  restart();
  cpu_.set_load_log(&loads_);
}

void SpinWatch::stop() {
  state_ = State::Off;
  cpu_.set_load_log(nullptr);
}

// The CPU's current place is a candidate head too, compared whenever the CPU is back at
// it, not only after a backward transfer: a watch that starts inside an idle loop (a
// batch ended there) proves it after one iteration, not the rest of this one and the next.
void SpinWatch::restart() {
  have_last_ = false;
  for (Head& h : heads_) h.used = false;
  steps_.clear();
  loads_.clear();
  start_pc_ = cpu_.pc();
  heads_[0] = head_here(start_pc_, cpu_.snapshot());
  next_head_ = 1;
}

void SpinWatch::changing(uint32_t addr, uint32_t len) {
  for (const Cpu::LoadRecord& l : loads_)
    if (l.addr - addr < len || addr - l.addr < l.bytes) {
      restart();
      return;
    }
}

bool SpinWatch::arrive(uint32_t pc) {
  const Cpu::Snapshot now = cpu_.snapshot();
  const uint64_t epoch = inner_ ? inner_->epoch() : 0;
  for (Head& h : heads_) {
    if (!h.used || h.pc != pc) continue;
    if (h.at == now && h.epoch == epoch && cpu_.instructions() > h.instructions) {
      loop_.head = pc;
      loop_.instructions = cpu_.instructions() - h.instructions;
      loop_.stall_cycles = cpu_.stall_cycles() - h.stall_cycles;
      loop_.steps.assign(steps_.begin() + ptrdiff_t(h.step), steps_.end());
      loop_.loads.clear();
      for (size_t i = h.load; i < loads_.size(); ++i)
        if (std::find(loop_.loads.begin(), loop_.loads.end(), loads_[i]) == loop_.loads.end())
          loop_.loads.push_back(loads_[i]);
      if (loop_.steps.size() != loop_.instructions)
        throw std::logic_error("doze: an iteration's steps do not match its instruction count");
      return true;
    }
    h = head_here(pc, now);
    return false;
  }
  heads_[next_head_] = head_here(pc, now);
  next_head_ = (next_head_ + 1) % heads_.size();
  return false;
}

bool SpinWatch::before(uint32_t pc) {
  if (state_ == State::Off) return inner_ ? inner_->before(pc) : true;
  if (state_ == State::Watching) {
    // A loop is entered by a backward transfer: its target is a candidate head.
    if (have_last_ && (pc <= last_pc_ || pc == start_pc_) && arrive(pc)) state_ = State::Proven;
    else if (budget_ == 0 || cpu_.interrupts_used()) state_ = State::Failed;
  }
  if (state_ != State::Watching) { // stop before pc, which `inner` has not seen yet
    stopped_ = true;
    return false;
  }
  --budget_;
  stopped_ = false;
  if (inner_ && !inner_->before(pc)) return false;
  stalls_before_ = cpu_.stall_cycles();
  loud_before_ = cpu_.loud_stores();
  return true;
}

void SpinWatch::after(uint32_t pc, uint32_t cycles) {
  if (inner_) inner_->after(pc, cycles);
  steps_.push_back(RepeatStep{pc, cycles, uint32_t(cpu_.stall_cycles() - stalls_before_)});
  last_pc_ = pc;
  have_last_ = true;
  // A store that changed SRAM or went to a register: not a fixed point (the watch stops
  // before the next instruction).
  if (state_ == State::Watching && cpu_.loud_stores() != loud_before_) state_ = State::Failed;
}

RunResult SpinWatch::run(uint64_t budget, bool cycle_budget) {
  return cpu_.run_instrumented_as(budget, cycle_budget, *this);
}

} // namespace lanaikit::vm
