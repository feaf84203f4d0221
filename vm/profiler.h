// The firmware profiler: exact per-instruction counts and per-handler events.
//
// It is a vm::Instrument, so it only runs when attached (Chip::set_instrument, or
// Cpu::run_instrumented directly): the fast interpreter never sees it, and with no
// profiler attached the emulator's speed is unchanged.
//
// Counts: for every SRAM word, how many times the instruction there executed and the
// cycles it took (base cost plus its stalls). The report (sim/profile_report.h) maps words
// to functions and source lines through the image's symbols and DWARF line table.
//
// Handlers: a handler is an entry address (a firmware-language `handler`, or any symbol a
// script names for .c/.s firmware). An invocation starts when the CPU is about to execute
// the entry, and ends when it is about to execute the return address it was called with
// (%rca at the entry, docs/abi.md) at the same stack depth. Each invocation records its
// start and end time, instructions, cycles, stall cycles, and the part of its time during
// which a DMA engine was busy (the firmware waiting on DMA).
#pragma once

#include "event/time.h"
#include "vm/cpu.h"
#include "vm/host_memory.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace lanaikit::vm {

struct Invocation {
  uint32_t handler = 0; // index into Profiler::handlers()
  sim::Time start = 0, end = 0;
  uint64_t instructions = 0, cycles = 0, stall_cycles = 0;
  uint64_t dma_wait_cycles = 0; // cycles executed while a DMA engine was busy
};

struct HandlerSpec {
  std::string name;
  uint32_t entry = 0;
  bool trap = false; // a trap vector (add_trap_vector), not a called function
};

// count, min, median, p99, max of one quantity over a handler's invocations.
struct Distribution {
  uint64_t count = 0, min = 0, median = 0, p99 = 0, max = 0;
  double mean = 0;
  // Histogram in powers of two: bucket i counts values in [2^(i-1), 2^i) (bucket 0: 0).
  std::vector<uint64_t> log2_histogram;
};

struct HandlerSummary {
  std::string name;
  Distribution instructions, cycles, stall_cycles, dma_wait_cycles, duration_ps;
};

class Profiler final : public Instrument {
public:
  // `clock` gives the current simulated time (the chip's local time); it may be null for a
  // bare CPU (times are then 0).
  Profiler(Cpu& cpu, std::function<sim::Time()> clock = nullptr);

  // Adds a handler; returns its index. Entries must be distinct and word-aligned.
  uint32_t add_handler(std::string name, uint32_t entry);
  // Adds a trap vector (docs/vm.md, "Interrupts and traps"): an invocation starts when the
  // CPU, in kernel mode, is about to execute `entry`, and ends at the first instruction it
  // executes in user mode again (the trap's return, or an upcall), so that it prices the
  // kernel's whole episode however the code leaves the vector. Same rules for entries.
  uint32_t add_trap_vector(std::string name, uint32_t entry);
  const std::vector<HandlerSpec>& handlers() const { return handlers_; }
  // Whether a DMA engine is busy now (for dma_wait_cycles); may be null.
  void set_dma_busy(std::function<bool()> fn) { dma_busy_ = std::move(fn); }
  // At most this many invocations are kept (the counts and summaries of the kept ones are
  // exact; `dropped_invocations` says how many were not kept).
  void set_max_invocations(size_t n) { max_invocations_ = n; }

  bool before(uint32_t pc) override;
  void after(uint32_t pc, uint32_t cycles) override;
  // Doze (vm/doze.h): an iteration that starts and ends no invocation repeats by
  // multiplication: every count, and every active invocation's totals.
  bool can_repeat() const override { return true; }
  void repeat(const std::vector<RepeatStep>& iteration, uint64_t times) override;
  uint64_t epoch() const override { return epoch_; }

  std::span<const uint64_t> instructions_by_word() const { return insns_; }
  std::span<const uint64_t> cycles_by_word() const { return cycles_; }
  const std::vector<Invocation>& invocations() const { return invocations_; }
  uint64_t dropped_invocations() const { return dropped_; }
  std::vector<HandlerSummary> summaries() const;

  // Cycles spent inside handler invocations vs all cycles profiled: the CPU's busy share
  // (the rest is the main loop: polling).
  uint64_t handler_cycles() const { return handler_cycles_; }
  uint64_t total_cycles() const { return total_cycles_; }
  uint64_t total_instructions() const { return total_insns_; }

  // Current handler nesting (innermost last), for backtraces and timelines.
  struct Active {
    uint32_t handler;
    uint32_t return_pc;
    uint32_t sp;
    Invocation inv;
  };
  const std::vector<Active>& active() const { return active_; }

  void reset_counts();

private:
  sim::Time now() const { return clock_ ? clock_() : 0; }
  void finish_innermost();

  Cpu& cpu_;
  std::function<sim::Time()> clock_;
  std::function<bool()> dma_busy_;
  std::vector<HandlerSpec> handlers_;
  // Per SRAM word, in one block of lazily zeroed host pages (vm/host_memory.h): a profiler
  // is made per node and per experiment, and eagerly zeroed arrays for 256 KB of SRAM
  // (1.3 MB) were 3% of VMMC's main job; the words never executed are never touched.
  HostMemory per_word_;
  std::span<uint32_t> handler_at_; // handler index + 1, or 0
  std::span<uint64_t> insns_, cycles_;
  std::vector<Active> active_;
  std::vector<Invocation> invocations_;
  size_t max_invocations_ = 10'000'000;
  uint64_t dropped_ = 0;
  uint64_t handler_cycles_ = 0, total_cycles_ = 0, total_insns_ = 0;
  uint64_t stalls_at_before_ = 0;
  uint64_t epoch_ = 0; // invocations begun or ended
};

} // namespace lanaikit::vm
