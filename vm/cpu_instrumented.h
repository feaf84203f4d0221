// The reference model's instrumented run loop, as a template over the instrument: the
// generic Cpu::run_instrumented instantiates it for any Instrument (virtual calls), and a
// hot instrument whose class is final instantiates it where its before()/after() are
// defined, so they inline (SpinWatch::run, vm/doze.cpp: every instruction of a doze watch
// goes through them). Included by those translation units only.
#pragma once
#include "vm/cpu.h"

namespace lanaikit::vm {

template <class I> RunResult Cpu::run_instrumented_as(uint64_t budget, bool cycle_budget, I& ins) {
  if (fault_) return {StopReason::Fault, 0};
  if (halted_) return {StopReason::Halted, 0};
  const uint64_t start_cycles = cycles();
  uint64_t done = 0;
  StopReason reason = StopReason::Limit;
  for (;;) {
    if (cycle_budget ? cycles() - start_cycles >= budget : done >= budget) break;
    if (attention_ || alarm_armed_) {
      // A trap's entry cycles are charged to the first instruction of its vector.
      const uint64_t before = stall_cycles_;
      service();
      unattributed_stalls_ += stall_cycles_ - before;
      if (fault_) {
        reason = StopReason::Fault;
        break;
      }
      if (cycle_budget && cycles() - start_cycles >= budget) break;
    }
    const uint32_t pc = pc_;
    if (!ins.before(pc)) {
      reason = StopReason::Break;
      break;
    }
    const uint64_t stalls = stall_cycles_;
    const StepStatus s = step_one();
    if (s == StepStatus::Fault) {
      reason = StopReason::Fault;
      break;
    }
    if (s == StepStatus::Yield) {
      reason = StopReason::Yield;
      break;
    }
    if (s == StepStatus::Trap) {
      if (trap_pending_) continue;
      // Blocked (MmioStatus::Busy): the caller goes on; the cycle waited is charged to the
      // instruction when it finally runs.
      unattributed_stalls_ += stall_cycles_ - stalls;
      break;
    }
    ++done;
    ++instructions_;
    ins.after(pc, uint32_t(costs_.base_cycles + (stall_cycles_ - stalls) + unattributed_stalls_));
    unattributed_stalls_ = 0;
    if (s == StepStatus::Halt) {
      halted_ = true;
      reason = StopReason::Halted;
      break;
    }
  }
  return {reason, done};
}

} // namespace lanaikit::vm
