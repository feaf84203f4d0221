// Doze: an idle chip's CPU stops running without changing any result (issue 16).
//
// Control programs spend most of their time in a poll loop: load a register or a word of
// SRAM, compare, branch back. Run instruction by instruction, that loop costs a batch per
// kernel event and, worse, bounds every other chip's run-ahead horizon. But while nothing
// outside the CPU changes what it reads, the loop is a fixed point: once the CPU stands at
// the same instruction with the same registers, flags and fetch stream as one iteration
// before, having changed no memory and touched no register whose value moves on its own,
// every later iteration is the same instructions with the same cycles. The chip then dozes: it
// leaves the kernel's runnable agents, and when something it could read changes (every
// entry point of vm::Chip that changes state the CPU can see calls Chip::touch() first) or
// the run ends, its counters advance by whole iterations arithmetically and the partial
// iteration up to that moment runs for real, with the state as it was; then it runs on.
//
// The proof is a fact about states, not a guess from a few trials: two equal snapshots
// (Cpu::Snapshot) at a loop head, every instruction between them free of stores that change
// SRAM or go to a register (a silent store, of the bytes already there, changes nothing:
// a loop that calls a function pushes the same return address each pass), of
// accesses that need the exact time (they yield) and of reads whose value moves without a
// touch (LINK_STATUS, register blocks), the CPU's interrupt extension unused, and no touch
// in between. Finding the loop head is the cheap part: a loop is entered by a backward
// transfer, so the targets of backward transfers are the candidates, and so is the pc where
// the watch began or started over (a watch that begins inside an idle loop, as one started
// at a known loop's pc does, proves it after one iteration). The watch runs the CPU
// on the reference model (with the profiler, if one is attached, seeing every instruction
// as before) for at most a few hundred instructions; a watch that fails (usually at the
// first loud store of a busy path) costs a little, and the chip backs off before trying again.
// What an iteration loads, and where it stores silently, is recorded too (Cpu::
// set_load_log): a change to SRAM or a register the loop never reads or stores does not
// wake it (a change where it stores would make its next store loud: that wakes it).
#pragma once

#include "vm/cpu.h"

#include <array>
#include <cstdint>
#include <vector>

namespace lanaikit::vm {

// A loop the CPU was proven to repeat unchanged: its head (the CPU stands before it), one
// iteration's instructions and its totals.
struct DozeLoop {
  uint32_t head = 0;
  uint64_t instructions = 0, stall_cycles = 0;
  std::vector<RepeatStep> steps;
  std::vector<Cpu::LoadRecord> loads; // what an iteration reads (each once)
};

// The instrument that watches for a fixed point. Chip runs the CPU under it (forwarding to
// the chip's own instrument, if any) while it watches.
class SpinWatch final : public Instrument {
public:
  enum class State : uint8_t { Off, Watching, Proven, Failed };

  explicit SpinWatch(Cpu& cpu) : cpu_(cpu) {}

  // Starts watching for at most `max_instructions`; `inner` sees every instruction.
  void begin(Instrument* inner, uint32_t max_instructions);
  void stop();
  // Something outside the CPU changed what it may read: earlier snapshots no longer count.
  void restart();
  // [addr, addr + len) is about to change: the watch starts over if the CPU read any of
  // it since it began (an iteration that reads it only afterwards sees one value).
  void changing(uint32_t addr, uint32_t len);
  // An access the watch cannot see from the instruction alone made it void (a read of a
  // register whose value moves without a touch, an access that needs the exact time).
  void fail() {
    if (state_ == State::Watching) state_ = State::Failed;
  }

  State state() const { return state_; }
  bool watching() const { return state_ == State::Watching; }
  // After a Break: the watch stopped the CPU (proven or failed) rather than `inner`.
  bool stopped_it() const { return state_ != State::Off && stopped_; }
  const DozeLoop& loop() const { return loop_; }

  bool before(uint32_t pc) override;
  void after(uint32_t pc, uint32_t cycles) override;
  // Cpu::run_instrumented with this watch, its before()/after() inlined.
  RunResult run(uint64_t budget, bool cycle_budget);

private:
  struct Head {
    uint32_t pc = 0;
    bool used = false;
    Cpu::Snapshot at;
    uint64_t instructions = 0, stall_cycles = 0, epoch = 0;
    size_t step = 0; // index into steps_ of the first instruction after it
    size_t load = 0; // index into loads_ of its first load
  };
  // The CPU is at pc now: the head it would record there (steps_ and loads_ from here on).
  Head head_here(uint32_t pc, const Cpu::Snapshot& now) const {
    return Head{pc, true, now, cpu_.instructions(), cpu_.stall_cycles(),
                inner_ ? inner_->epoch() : 0, steps_.size(), loads_.size()};
  }
  bool arrive(uint32_t pc); // a backward transfer reached pc: true if the loop is proven

  Cpu& cpu_;
  Instrument* inner_ = nullptr;
  State state_ = State::Off;
  bool stopped_ = false;
  uint32_t budget_ = 0;
  uint32_t last_pc_ = 0;
  uint32_t start_pc_ = 0; // where the CPU stood when the watch began or restarted
  bool have_last_ = false;
  uint64_t stalls_before_ = 0, loud_before_ = 0;
  std::array<Head, 4> heads_{};
  size_t next_head_ = 0;
  std::vector<RepeatStep> steps_;
  std::vector<Cpu::LoadRecord> loads_;
  DozeLoop loop_;
};

} // namespace lanaikit::vm
