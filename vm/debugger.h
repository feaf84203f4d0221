// The firmware debugger's engine: breakpoints, watchpoints on SRAM and registers, single
// stepping, and backtraces. It is a vm::Instrument (vm/cpu.h): attached, it stops the CPU
// (StopReason::Break) before an instruction at a breakpoint, after a given number of
// steps, at a return address in a given frame (`next`, `finish`), or after an
// instruction that changed a watched location; detached, it costs
// nothing. `lanaikit debug` (tools/cmd_debug.cpp) is its command line; the Lua layer can
// attach one to a chip (vm::Chip::set_instrument).
#pragma once

#include "vm/cpu.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace lanaikit::vm {

struct Frame {
  uint32_t pc;  // the instruction executing (frame 0) or the return address (callers)
  uint32_t fp;  // the frame pointer of that frame
};

// The call stack by the frame-pointer chain of the Lanai ABI (docs/abi.md): the return
// address at -4[%fp], the caller's %fp at -8[%fp]; it ends at %fp = 0 (set by crt0), at an
// address outside SRAM, or after `max_frames`. Stopped on a function's first or second
// instruction (before its `add %sp, 0x8, %fp`), %fp is still the caller's and the caller's
// frame comes from %rca.
std::vector<Frame> backtrace(const Cpu& cpu, size_t max_frames = 64);

// A register by name, with or without '%': "r9", "%sp", "rca", "sw" (kSwReg); nullopt if
// there is no such register.
std::optional<unsigned> parse_register(std::string_view name);

class Debugger final : public Instrument {
public:
  explicit Debugger(Cpu& cpu) : cpu_(cpu) {}

  // Breakpoints by address; returns false if there already was one.
  bool add_breakpoint(uint32_t addr) { return breakpoints_.insert(addr).second; }
  bool remove_breakpoint(uint32_t addr) { return breakpoints_.erase(addr) > 0; }
  const std::set<uint32_t>& breakpoints() const { return breakpoints_; }

  // Watchpoints: stop after an instruction that changed SRAM [addr, addr+len) or register
  // r (0..31, kSwReg for %sw).
  void watch_memory(uint32_t addr, uint32_t len);
  void watch_register(unsigned r);
  void clear_watchpoints() { mem_watches_.clear(); reg_watches_.clear(); }

  // The next run stops before the n-th instruction from now (n >= 1): `step 1` executes
  // exactly one instruction.
  void step(uint64_t n) { steps_left_ = n; target_.reset(); }
  // Run until a breakpoint or watchpoint (the breakpoint at the current pc, if any, is
  // passed over first).
  void cont() { steps_left_ = 0; target_.reset(); }
  // After cont(): also stop before `pc` once the stack pointer is at least `min_sp` (the
  // stack grows down), i.e. when a call returns to `pc` in the frame that made it and not
  // in a deeper recursive one. For `next` and `finish`; cleared when reached.
  void run_to(uint32_t pc, uint32_t min_sp) { target_ = Target{pc, min_sp}; }
  // The run stopped before `pc` for another reason (an instruction budget, an interrupt):
  // a breakpoint there is passed over when it resumes, as after a breakpoint stop (a
  // watchpoint the last instruction triggered still stops it at once).
  void resume_from(uint32_t pc) { passed_over_ = pc; }
  // The program was reloaded: watched values are read afresh and pending stops forgotten
  // (breakpoints and watchpoints are kept).
  void restart();

  // What the last Break was and why: "breakpoint 0x...", "watchpoint ... changed a -> b",
  // "step", "returned".
  enum class Stop : uint8_t { None, Step, Breakpoint, Watchpoint, Target };
  Stop stop() const { return stop_; }
  const std::string& reason() const { return reason_; }

  bool before(uint32_t pc) override;
  void after(uint32_t pc, uint32_t cycles) override;

private:
  struct MemWatch {
    uint32_t addr, len;
    std::vector<uint8_t> last;
  };
  struct RegWatch {
    unsigned reg;
    uint32_t last;
  };
  struct Target {
    uint32_t pc, min_sp;
  };
  Cpu& cpu_;
  std::set<uint32_t> breakpoints_;
  std::vector<MemWatch> mem_watches_;
  std::vector<RegWatch> reg_watches_;
  uint64_t steps_left_ = 0;
  bool stop_next_ = false;
  std::optional<uint32_t> passed_over_; // the breakpoint we stopped at: not again at once
  std::optional<Target> target_;
  uint64_t executed_ = 0;
  Stop stop_ = Stop::None;
  std::string reason_;
};

} // namespace lanaikit::vm
