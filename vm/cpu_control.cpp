// Interrupts and traps: lanaikit's extension of the Lanai core (docs/vm.md, "Interrupts and
// traps"). The Lanai has none; a node that multiplexes a kernel and user code (UDM on FUGU)
// needs them. Everything here happens at instruction boundaries, between the fast
// interpreter's runs, in code both executors share: the interpreter itself only learns to
// stop after a store that changed the interrupt state and before an access that traps.
#include "vm/cpu.h"

#include <bit>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace lanaikit::vm {

using namespace cpuctl;

uint32_t device_cause(uint32_t code) {
  if (code == kTrapPrivileged) return kCausePrivileged;
  return code < kCauses - kCauseDevice ? kCauseDevice + code : kCausePrivileged;
}

void Cpu::set_interrupt_line(unsigned line, bool level) {
  if (line >= 32) throw std::invalid_argument("interrupt line " + std::to_string(line) + " (0..31)");
  const uint32_t bit = 1u << line;
  const uint32_t lines = level ? lines_ | bit : lines_ & ~bit;
  if (lines == lines_) return;
  lines_ = lines;
  ext_used_ = true;
  update_attention();
}

void Cpu::set_user_alarm(uint64_t at, std::function<void()> fn) {
  alarm_at_ = at;
  alarm_fn_ = std::move(fn);
  alarm_armed_ = true;
  ext_used_ = true;
  // Armed by a store inside a run: end the run so that the next one is planned with it.
  attention_ = true;
}

// An enabled line is taken in user mode, and in kernel mode while IE is set.
void Cpu::update_attention() {
  const bool takeable = (lines_ & imask_) != 0 && (status_ & (kStatusUser | kStatusIe)) != 0;
  attention_ = takeable || trap_pending_ || return_pending_;
}

void Cpu::set_mode(uint32_t status) {
  user_cycles_ = user_cycles();
  mode_since_ = cycles();
  status_ = status & (kStatusUser | kStatusIe);
}

void Cpu::enter(uint32_t cause, uint32_t tval) {
  if (tbr_ == 0) {
    char what[96];
    std::snprintf(what, sizeof what, "cause %u (%s) with TBR 0", cause,
                  cause < 32 ? "interrupt line" : cause == kCausePrivileged ? "privileged access"
                             : cause == kCauseSyscall ? "SYSCALL" : "device trap");
    set_fault(FaultKind::UnhandledTrap, tval, what);
    return;
  }
  // A second entry before any instruction completed since the last one: the vector's
  // first instruction trapped (an entry turns interrupts off, so it cannot be a line). The
  // first entry's saved state is lost before anything could save it, and the vector would
  // trap again at every entry: the CPU stops here instead of spinning through entries with
  // no instruction ever counted (which an instruction budget would never end).
  if (instructions_ == entered_at_) {
    char what[96];
    std::snprintf(what, sizeof what, "cause %u at the first instruction of the vector for cause %u",
                  cause, cause_);
    set_fault(FaultKind::DoubleTrap, tval, what);
    return;
  }
  entered_at_ = instructions_;
  epc_ = pc_;
  enpc_ = npc_;
  ennpc_ = nnpc_;
  esw_ = regs_[kSwReg];
  estatus_ = status_;
  cause_ = cause;
  tval_ = tval;
  set_mode(0); // kernel mode, interrupts off
  const uint32_t vector = tbr_ + cause * kVectorBytes;
  pc_ = vector;
  npc_ = vector + 4;
  nnpc_ = vector + 8;
  stall_cycles_ += costs_.trap_cycles; // kernel cycles: the mode changed first
}

bool Cpu::service() {
  bool redirected = false;
  if (alarm_armed_ && user_mode() && user_cycles() >= alarm_at_) {
    alarm_armed_ = false;
    auto fn = std::move(alarm_fn_);
    alarm_fn_ = nullptr;
    if (fn) fn(); // may raise a line (the atomicity timer's interrupt)
  }
  if (return_pending_) {
    return_pending_ = false;
    stall_cycles_ += costs_.trap_cycles; // still kernel cycles
    if (return_skip_) { // the instruction after EPC, as the pipeline would have gone on
      pc_ = enpc_;
      npc_ = ennpc_;
      nnpc_ = ennpc_ + 4;
    } else {
      pc_ = epc_;
      npc_ = enpc_;
      nnpc_ = ennpc_;
    }
    regs_[kSwReg] = esw_ & 0xF;
    set_mode(estatus_);
    redirected = true;
  }
  if (trap_pending_) {
    trap_pending_ = false;
    enter(pending_cause_, pending_tval_);
    redirected = true;
  } else if (const uint32_t ready = lines_ & imask_;
             ready && (status_ & (kStatusUser | kStatusIe))) {
    enter(uint32_t(std::countr_zero(ready)), 0); // the lowest line first
    redirected = true;
  }
  update_attention();
  return redirected;
}

Cpu::StepStatus Cpu::raise_trap(uint32_t cause, uint32_t tval) {
  ext_used_ = true;
  trap_pending_ = true;
  pending_cause_ = cause;
  pending_tval_ = tval;
  attention_ = true;
  return StepStatus::Trap;
}

// The run loop with the extension in play. Boundaries where something may happen (a
// pending return, trap or line, a due alarm) are served between fast-interpreter runs;
// the user alarm caps a run so that it ends at the first boundary past the deadline.
// Instruction budgets (which callers plan assuming max_instruction_cycles() per
// instruction): the call returns after an entry or return that cost cycles, so a caller
// planning against a horizon plans again.
RunResult Cpu::run_serviced(uint64_t budget, bool cycle_budget) {
  const uint64_t start = cycles();
  uint64_t done = 0;
  for (;;) {
    const uint64_t used = cycle_budget ? cycles() - start : done;
    if (used >= budget) break;
    uint64_t left = budget - used;
    if (attention_ || (alarm_armed_ && user_mode() && user_cycles() >= alarm_at_)) {
      const uint64_t before = cycles();
      service();
      if (fault_) return {StopReason::Fault, done};
      if (cycles() != before) {
        if (!cycle_budget) break;
        continue; // the budget is checked again: the entry may have used it up
      }
    }
    if (alarm_armed_ && user_mode()) {
      const uint64_t room = alarm_at_ - user_cycles(); // > 0: served above otherwise
      left = cycle_budget ? std::min(left, room)
                          : std::min(left, std::max<uint64_t>(1, room / max_instruction_cycles()));
    }
    const RunResult r = run_fast(left, cycle_budget);
    done += r.executed;
    if (r.reason != StopReason::Limit) return {r.reason, done};
  }
  return {StopReason::Limit, done};
}

uint32_t Cpu::control_register(uint32_t addr) const {
  switch (addr) {
  case kStatus: return status_;
  case kEStatus: return estatus_;
  case kEpc: return epc_;
  case kEnpc: return enpc_;
  case kEnnpc: return ennpc_;
  case kEsw: return esw_;
  case kCause: return cause_;
  case kTval: return tval_;
  case kTbr: return tbr_;
  case kImask: return imask_;
  case kIpend: return lines_;
  default: return 0;
  }
}

Cpu::StepStatus Cpu::control_load(uint32_t addr, uint32_t& value) {
  switch (addr) {
  case kStatus: value = status_; return StepStatus::Ok;
  case kEStatus: value = estatus_; return StepStatus::Ok;
  case kEpc: value = epc_; return StepStatus::Ok;
  case kEnpc: value = enpc_; return StepStatus::Ok;
  case kEnnpc: value = ennpc_; return StepStatus::Ok;
  case kEsw: value = esw_; return StepStatus::Ok;
  case kCause: value = cause_; return StepStatus::Ok;
  case kTval: value = tval_; return StepStatus::Ok;
  case kTbr: value = tbr_; return StepStatus::Ok;
  case kImask: value = imask_; return StepStatus::Ok;
  case kIpend: value = lines_; return StepStatus::Ok;
  case kReti:
  case kRetiSkip:
  case kSyscall: return set_fault(FaultKind::MmioError, addr, "load from a write-only CPU control register");
  }
  return set_fault(FaultKind::MmioError, addr, "load from unmapped register");
}

Cpu::StepStatus Cpu::control_store(uint32_t addr, uint32_t value) {
  ext_used_ = true;
  switch (addr) {
  case kStatus: // the mode changes only by an entry or a return
    status_ = (status_ & kStatusUser) | (value & kStatusIe);
    update_attention();
    return attention_ ? StepStatus::Stop : StepStatus::Ok;
  case kEStatus: estatus_ = value & (kStatusUser | kStatusIe); return StepStatus::Ok;
  case kEpc: epc_ = value; return StepStatus::Ok;
  case kEnpc: enpc_ = value; return StepStatus::Ok;
  case kEnnpc: ennpc_ = value; return StepStatus::Ok;
  case kEsw: esw_ = value & 0xF; return StepStatus::Ok;
  case kTbr: tbr_ = value & ~uint32_t(0x3FF); return StepStatus::Ok;
  case kImask:
    imask_ = value;
    update_attention();
    return attention_ ? StepStatus::Stop : StepStatus::Ok;
  case kReti:
  case kRetiSkip: // the value is ignored: %r0 will do, every other register may be restored
    return_pending_ = true;
    return_skip_ = addr == kRetiSkip;
    attention_ = true;
    return StepStatus::Stop;
  case kSyscall:
    stall_cycles_ -= costs_.mmio_cycles; // a trap: the store does not happen
    return raise_trap(kCauseSyscall, value);
  case kCause:
  case kTval:
  case kIpend: return set_fault(FaultKind::MmioError, addr, "store to a read-only CPU control register");
  }
  return set_fault(FaultKind::MmioError, addr, "store to unmapped register");
}

std::string Cpu::control_report() const {
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "  %s mode, IE %s, lines %08x mask %08x, tbr %08x; last entry: cause %u, "
                "epc %08x %08x %08x\n",
                user_mode() ? "user" : "kernel", status_ & kStatusIe ? "on" : "off", lines_,
                imask_, tbr_, cause_, epc_, enpc_, ennpc_);
  return buf;
}

} // namespace lanaikit::vm
