// The fast interpreter: one function, threaded dispatch (computed goto) over predecoded
// slots. Read vm/cpu.h for the pipeline model it implements and vm/interp.h for slots.
//
// Delay slots without per-instruction bookkeeping: every handler exists in three copies
// that differ only in where they go next.
//   N  (normal)  : next is ip + 1.
//   D1 (delay 1) : this instruction is the last one before a pending jump; next is `target`.
//   D2 (delay 2) : first of two delay slots of a load into %pc; next is ip + 1 in D1 mode.
// A taken branch dispatches its successor in D1 mode; a load into %pc dispatches its
// successor in D2 mode. Control transfers inside a delay slot are rare and run through the
// reference model (SLOW), which handles any nesting exactly.
//
// The instruction budget is charged per run (vm/interp.h), not per instruction. `left` is
// always: budget - executed - charged-but-not-yet-executed. What is charged but pending:
//   N mode at ip  : the rest of ip's run (ip->remaining, ip included);
//   D1 mode at ip : ip itself (1);  D2 mode at ip : ip and ip + 1 (2).
// A charge that would make `left` negative is undone, and the reference model executes
// the last `left` instructions one by one, so every stop is exact.
//
// Cycles are derived at the end (instructions * base + stalls); only stalls are
// accumulated as they happen.
#include "vm/cpu.h"
#include "vm/interp.h"
#include "vm/semantics.h"

#include <new>

namespace lanaikit::vm {

struct Interp {
  // `storage` is the SRAM allocation: the core state (constructed in its header) and then
  // SRAM, see Sram::kHeaderBytes.
  // `budget` counts instructions, or with `cycles` set, cycles (base cost 1 per
  // instruction plus stalls): then an instruction runs only if it starts before the
  // budget's end (vm/cpu.h, Cpu::run_cycles).
  // A run that a trap or a store changing the interrupt state ended early goes on in
  // Cpu::run_serviced with what is left of the budget, unless `nested` (it is that loop's).
  static RunResult run(uint8_t* storage, uint64_t budget, HandlerTables* export_tables,
                       bool cycles = false, bool nested = false);

  // The flags, computed now if a sub.f left them lazy.
  [[gnu::always_inline]] static uint32_t materialize(Cpu::Core* core) {
    core->regs[kSwReg] = sub_flags(core->lazy_a, core->lazy_b);
    core->lazy_sub = 0;
    return core->regs[kSwReg];
  }

  [[gnu::noinline]] static bool target_reads_slow(Cpu::Core* core, const Slot* target,
                                                  unsigned r) {
    return core->cpu->next_reads(uint32_t(target - core->slots) * 4, r);
  }

  // Loads that leave the fast path (memory-mapped registers, faults). The value comes back
  // packed with the status (status << 32 | value) so that no local's address escapes the
  // interpreter loop: that would pin the loaded value to the stack in every handler.
  [[gnu::noinline]] static uint64_t slow_load(Cpu* cpu, uint32_t ea, isa::Width w, bool zext) {
    uint32_t value = 0;
    const Cpu::StepStatus st = cpu->load(ea, w, zext, value);
    return st == Cpu::StepStatus::Ok ? value : uint64_t(st) << 32;
  }
};

const HandlerTables& fast_handlers() {
  static const HandlerTables tables = [] {
    HandlerTables t{};
    Interp::run(nullptr, 0, &t);
    return t;
  }();
  return tables;
}

RunResult Cpu::run(uint64_t max_insns) {
  if (fault_) return {StopReason::Fault, 0};
  if (halted_) return {StopReason::Halted, 0};
  if (attention_ || alarm_armed_) return run_serviced(max_insns, false);
  return Interp::run(static_cast<uint8_t*>(sram_.header()), max_insns, nullptr);
}

RunResult Cpu::run_fast(uint64_t budget, bool cycle_budget) {
  return Interp::run(static_cast<uint8_t*>(sram_.header()), budget, nullptr, cycle_budget, true);
}

RunResult Cpu::run_cycles(uint64_t max_cycles) {
  if (fault_) return {StopReason::Fault, 0};
  if (halted_) return {StopReason::Halted, 0};
  if (costs_.base_cycles != 1)
    throw std::logic_error("Cpu::run_cycles needs a base cost of 1 cycle per instruction");
  if (attention_ || alarm_armed_) return run_serviced(max_cycles, true);
  return Interp::run(static_cast<uint8_t*>(sram_.header()), max_cycles, nullptr, true);
}

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

RunResult Interp::run(uint8_t* const storage, uint64_t max_insns, HandlerTables* export_tables,
                      const bool cycles, const bool nested) {
#define LANAIKIT_LABEL_N(name) &&N_##name,
#define LANAIKIT_LABEL_D1(name) &&D1_##name,
#define LANAIKIT_LABEL_D2(name) &&D2_##name,
  // The fence handler rides at the end of the normal table.
  static const void* const normal[] = {LANAIKIT_FAST_OPS(LANAIKIT_LABEL_N) && N_fence};
  static const void* const delay1[] = {LANAIKIT_FAST_OPS(LANAIKIT_LABEL_D1)};
  static const void* const delay2[] = {LANAIKIT_FAST_OPS(LANAIKIT_LABEL_D2)};
  if (!storage) {
    // Label addresses are code addresses, valid for the program's lifetime; GCC's
    // dangling-pointer analysis mistakes them for addresses of locals.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdangling-pointer"
    *export_tables = HandlerTables{normal, delay1, normal[F_Count_]};
#pragma GCC diagnostic pop
    return {StopReason::Limit, 0};
  }

  // Few long-lived values, so they stay in callee-saved registers across the slow-path
  // calls: the core state (registers, SRAM size, code map) is reached through R.
  Cpu::Core* const core = std::launder(reinterpret_cast<Cpu::Core*>(storage));
  uint32_t* const R = core->regs; // the same address as core: one base register for both
  // SRAM follows the core state at a constant offset (Sram::kHeaderBytes), so an access is
  // one addressing mode off R: written out each time, not hoisted into a local that GCC
  // would keep on the stack.
#define mem (storage + Sram::kHeaderBytes)
#define CPU (core->cpu)
#define slots (core->slots)
#define SW() (__builtin_expect(core->lazy_sub, 0) ? materialize(core) : R[kSwReg])
  const int64_t budget = int64_t(std::min<uint64_t>(max_insns, uint64_t(INT64_MAX) - 1));
  int64_t left = budget;
  uint64_t extra = 0; // stall cycles accumulated in this call
  // Cycle budgets: stalls are charged to `left` too, and counted (core->stall_charged) so
  // that the instructions executed can be told from the cycles used.
  core->cycle_mode = cycles;
  core->stall_charged = 0;
#define cyc (core->cycle_mode != 0)
#define stall_charged (core->stall_charged)
  StopReason reason = StopReason::Limit;
  const Slot* ip = nullptr;
  const Slot* target = nullptr;
  uint32_t hit_ea = 0; // address of a store that hit a code granule
  Cpu::StepStatus st{};

  // Helpers as macros over values, not lambdas capturing by reference: a captured local
  // becomes addressable, and in a function this size that costs registers everywhere.
#define addr(s) (uint32_t((s)-slots) * 4)
#define valid(a) (((a)&3) == 0 && (a) <= core->sram_size)
  // A computed jump's target: a word whose slot is dispatchable. Slots below ready_limit all
  // are (the pages from 0 up, where code lives), so the common case costs what the bounds
  // check did; a target above it is checked slot by slot (vm/cpu.h, ready_slots).
#define dispatchable(a)                                                                        \
  (((a)&3) == 0 && (__builtin_expect((a) < core->ready_limit, 1) ||                            \
                    ((a) <= core->sram_size && slots[(a) / 4].handler)))
  // Does the jump target read register r? From the predecoded mask, or by decoding it.
#define target_reads(r)                                                                        \
  (__builtin_expect(target->op == F_DECODE, 0) ? target_reads_slow(core, target, (r))          \
                                               : ((target->reads >> (r)) & 1) != 0)

  // Charges `n` to the budget, or, if that would overdraw it, goes to `precise`.
#define CHARGE(n, precise)                                                                     \
  do {                                                                                         \
    const int64_t charge_ = (n);                                                               \
    if (__builtin_expect((left -= charge_) < 0, 0)) {                                          \
      left += charge_;                                                                         \
      goto precise;                                                                            \
    }                                                                                          \
  } while (0)
  // Starts a run at ip (jump target, after a not-taken branch, re-entry) and runs it.
#define ENTER_RUN                                                                              \
  do {                                                                                         \
    CHARGE(ip->entry, precise_N);                                                              \
    goto* ip->handler;                                                                         \
  } while (0)

#define SYNC_N                                                                                 \
  (CPU->pc_ = addr(ip), CPU->npc_ = CPU->pc_ + 4, CPU->nnpc_ = CPU->pc_ + 8)
#define SYNC_D1                                                                                \
  (CPU->pc_ = addr(ip), CPU->npc_ = addr(target), CPU->nnpc_ = CPU->npc_ + 4)
#define SYNC_D2                                                                                \
  (CPU->pc_ = addr(ip), CPU->npc_ = CPU->pc_ + 4, CPU->nnpc_ = addr(target))

  // A stall of s cycles after the instruction at ip; under a cycle budget it is charged
  // too, and if that overdraws the budget the rest of what was charged may not start.
#define STALL_OR(s, overrun)                                                                   \
  do {                                                                                         \
    extra += (s);                                                                              \
    if (__builtin_expect(cyc, 0)) {                                                            \
      left -= (s);                                                                             \
      stall_charged += (s);                                                                    \
      if (left < 0) goto overrun;                                                              \
    }                                                                                          \
  } while (0)

  // Enter from the architectural state.
  goto reenter;

  // ---- normal mode -----------------------------------------------------------------
#define PREFIX N_
#define NEXT                                                                                   \
  do {                                                                                         \
    ip += 1;                                                                                   \
    goto* ip->handler;                                                                         \
  } while (0)
#define STALL(rd, s) STALL_OR(s, N_overrun)
#define NO_STALL(rd, s) ((void)0)
// Cycle budgets: a memory-mapped access (its cost is only known once done) leaves the run
// and is executed by the precise path, which charges instruction by instruction.
#define MMIO_ENTER                                                                             \
  do {                                                                                         \
    if (__builtin_expect(cyc, 0)) {                                                            \
      left += ip->remaining;                                                                   \
      goto precise;                                                                            \
    }                                                                                          \
  } while (0)
#define MMIO_DONE ((void)0)
#define SYNC_STATE SYNC_N
#define EXIT_BEFORE goto N_yield
#define FAULT_EXIT goto N_fault
#define HALT_AFTER goto N_halt
#include "vm/interp_ops.inc"

N_fence: // the first slot of a segment, reached in sequence or by a jump (which charged 0)
  CHARGE(ip->remaining, precise_N);
  goto* normal[ip->op];
N_DECODE:
  CPU->build_segment(uint32_t(ip - slots));
  ENTER_RUN; // the run was not charged: its length was unknown
N_SLOW:
  SYNC_N;
  goto slow;
N_code_hit: // the store at ip overwrote predecoded code; its run may have changed
  left += ip->remaining - 1;
  CPU->invalidate_words(hit_ea / 4, hit_ea / 4 + 1);
  ip += 1;
  ENTER_RUN;

  // A taken branch at ip. Its delay slot is charged here; the target's run when it starts.
  // A delay slot holding a nop (rd = 1, set at predecode) is counted and skipped.
#define TAKE_BRANCH                                                                            \
  do {                                                                                         \
    target = reinterpret_cast<const Slot*>(reinterpret_cast<const char*>(ip) + int32_t(ip->imm)); \
    ip += 1;                                                                                   \
    if (ip[-1].rd) { /* the nop and the target's run, in one charge */                         \
      CHARGE(1 + target->entry, precise_D1);                                                   \
      ip = target;                                                                             \
      goto* ip->handler;                                                                       \
    }                                                                                          \
    CHARGE(1, precise_D1);                                                                     \
    goto* ip->delay1;                                                                          \
  } while (0)
N_BT:
  TAKE_BRANCH;
N_BCC:
  if (cond_holds(uint16_t(ip->rs1 | (ip->rs2 << 8)), SW())) TAKE_BRANCH;
  ip += 1;
  ENTER_RUN;
  // The same, for the conditions a compare's operands decide directly.
#define BCC_N(c, expr)                                                                         \
  N_BCC_##c : {                                                                                \
    bool taken_;                                                                               \
    if (__builtin_expect(core->lazy_sub, 1)) {                                                 \
      const uint32_t a = core->lazy_a, b = core->lazy_b;                                       \
      taken_ = (expr);                                                                         \
    } else {                                                                                   \
      taken_ = cond_holds(uint16_t(ip->rs1 | (ip->rs2 << 8)), R[kSwReg]);                      \
    }                                                                                          \
    if (taken_) TAKE_BRANCH;                                                                   \
    ip += 1;                                                                                   \
    ENTER_RUN;                                                                                 \
  }
  LANAIKIT_FUSED_CONDS(BCC_N)
#undef BCC_N
#define JUMP_TO(address)                                                                       \
  do {                                                                                         \
    const uint32_t t_ = (address);                                                             \
    if (!dispatchable(t_)) goto N_SLOW;                                                        \
    target = slots + t_ / 4;                                                                   \
    ip += 1;                                                                                   \
    CHARGE(1, precise_D1);                                                                     \
    goto* ip->delay1;                                                                          \
  } while (0)
N_JMP_I:
  JUMP_TO(R[ip->rs1] + ip->imm);
N_JMP_ADD_R:
  JUMP_TO(R[ip->rs1] + R[ip->rs2]);
N_JMP_OR_R:
  JUMP_TO(R[ip->rs1] | R[ip->rs2]);
#undef JUMP_TO
N_LDW_PC : {
  const uint32_t ea = R[ip->rs1] + ip->imm;
  if (!IN_SRAM(ea, 4)) goto N_SLOW;
  const uint32_t t = load_be32(mem + ea);
  if (!dispatchable(t)) goto N_SLOW;
  target = slots + t / 4;
}
  ip += 1;
  CHARGE(2, precise_D2);
  goto* delay2[ip->op];

  // sub.f + conditional branch. The branch's own slot (ip + 1), in the same segment and
  // run, is a BCC predecoded together with this one; it holds the relative target.
#define FUSED_BODY(expr, write_result)                                                         \
  write_result;                                                                                \
  core->lazy_a = a;                                                                            \
  core->lazy_b = b;                                                                            \
  core->lazy_sub = 1;                                                                          \
  ip += 1;                                                                                     \
  if (expr) TAKE_BRANCH;                                                                       \
  ip += 1;                                                                                     \
  ENTER_RUN;
#define FUSED_N(c, expr)                                                                       \
  N_SUBF_I_B##c : {                                                                            \
    const uint32_t a = R[ip->rs1], b = ip->imm;                                                \
    FUSED_BODY(expr, R[ip->rd] = a - b)                                                        \
  }                                                                                            \
  N_SUBF_R_B##c : {                                                                            \
    const uint32_t a = R[ip->rs1], b = R[ip->rs2];                                             \
    FUSED_BODY(expr, R[ip->rd] = a - b)                                                        \
  }                                                                                            \
  N_CMPF_I_B##c : {                                                                            \
    const uint32_t a = R[ip->rs1], b = ip->imm;                                                \
    FUSED_BODY(expr, (void)0)                                                                  \
  }                                                                                            \
  N_CMPF_R_B##c : {                                                                            \
    const uint32_t a = R[ip->rs1], b = R[ip->rs2];                                             \
    FUSED_BODY(expr, (void)0)                                                                  \
  }
  LANAIKIT_FUSED_CONDS(FUSED_N)
#undef FUSED_N
#undef FUSED_BODY
#undef TAKE_BRANCH

#undef PREFIX
#undef NEXT
#undef STALL
#undef NO_STALL
#undef SYNC_STATE
#undef MMIO_ENTER
#undef MMIO_DONE
#undef EXIT_BEFORE
#undef FAULT_EXIT
#undef HALT_AFTER

  // ---- delay mode 1: the next instruction is `target` ------------------------------
#define PREFIX D1_
#define NEXT                                                                                   \
  do {                                                                                         \
    ip = target;                                                                               \
    ENTER_RUN;                                                                                 \
  } while (0)
#define STALL(rd, s)                                                                           \
  do {                                                                                         \
    if ((rd) < 32 && target_reads(rd)) {                                                       \
      extra += CPU->costs_.load_use_cycles;                                                    \
      if (__builtin_expect(cyc, 0)) {                                                          \
        left -= CPU->costs_.load_use_cycles;                                                   \
        stall_charged += CPU->costs_.load_use_cycles;                                          \
      }                                                                                        \
    }                                                                                          \
  } while (0)
#define NO_STALL(rd, s) STALL(rd, s)
// Nothing follows in this charge: an overdrawn cycle budget makes the next charge fail.
#define MMIO_ENTER ((void)0)
#define MMIO_DONE                                                                              \
  do {                                                                                         \
    if (__builtin_expect(cyc, 0)) {                                                            \
      left -= CPU->costs_.mmio_cycles;                                                         \
      stall_charged += CPU->costs_.mmio_cycles;                                                \
    }                                                                                          \
  } while (0)
#define SYNC_STATE SYNC_D1
#define EXIT_BEFORE goto D1_yield
#define FAULT_EXIT goto D1_fault
#define HALT_AFTER goto D1_halt
#include "vm/interp_ops.inc"

D1_DECODE:
  CPU->build_segment(uint32_t(ip - slots));
  goto* ip->delay1;
D1_code_hit:
  CPU->invalidate_words(hit_ea / 4, hit_ea / 4 + 1);
  NEXT;
D1_SLOW:
D1_BT:
D1_BCC:
D1_JMP_I:
D1_JMP_ADD_R:
D1_JMP_OR_R:
D1_LDW_PC:
#define BCC_D1(c, expr) D1_BCC_##c:
  LANAIKIT_FUSED_CONDS(BCC_D1)
#undef BCC_D1
  SYNC_D1;
  goto slow;
#define FUSED_D1(c, expr)                                                                      \
  D1_SUBF_I_B##c : goto D1_SUB_IF;                                                             \
  D1_SUBF_R_B##c : goto D1_SUB_RF;                                                             \
  D1_CMPF_I_B##c : goto D1_CMP_IF;                                                             \
  D1_CMPF_R_B##c : goto D1_CMP_RF;
  LANAIKIT_FUSED_CONDS(FUSED_D1)
#undef FUSED_D1

#undef PREFIX
#undef NEXT
#undef STALL
#undef NO_STALL
#undef SYNC_STATE
#undef MMIO_ENTER
#undef MMIO_DONE
#undef EXIT_BEFORE
#undef FAULT_EXIT
#undef HALT_AFTER

  // ---- delay mode 2: the next instruction is ip + 1 in delay mode 1 ----------------
#define PREFIX D2_
#define NEXT                                                                                   \
  do {                                                                                         \
    ip += 1;                                                                                   \
    goto* ip->delay1;                                                                          \
  } while (0)
#define STALL(rd, s) STALL_OR(s, D2_overrun)
#define NO_STALL(rd, s) ((void)0)
#define MMIO_ENTER                                                                             \
  do {                                                                                         \
    if (__builtin_expect(cyc, 0)) {                                                            \
      left += 2;                                                                               \
      goto precise;                                                                            \
    }                                                                                          \
  } while (0)
#define MMIO_DONE ((void)0)
#define SYNC_STATE SYNC_D2
#define EXIT_BEFORE goto D2_yield
#define FAULT_EXIT goto D2_fault
#define HALT_AFTER goto D2_halt
#include "vm/interp_ops.inc"

D2_DECODE:
  CPU->build_segment(uint32_t(ip - slots));
  goto* delay2[ip->op];
D2_code_hit:
  CPU->invalidate_words(hit_ea / 4, hit_ea / 4 + 1);
  NEXT;
D2_SLOW:
D2_BT:
D2_BCC:
D2_JMP_I:
D2_JMP_ADD_R:
D2_JMP_OR_R:
D2_LDW_PC:
#define BCC_D2(c, expr) D2_BCC_##c:
  LANAIKIT_FUSED_CONDS(BCC_D2)
#undef BCC_D2
  left += 1; // the reference model takes over with only this instruction charged
  SYNC_D2;
  goto slow;
#define FUSED_D2(c, expr)                                                                      \
  D2_SUBF_I_B##c : goto D2_SUB_IF;                                                             \
  D2_SUBF_R_B##c : goto D2_SUB_RF;                                                             \
  D2_CMPF_I_B##c : goto D2_CMP_IF;                                                             \
  D2_CMPF_R_B##c : goto D2_CMP_RF;
  LANAIKIT_FUSED_CONDS(FUSED_D2)
#undef FUSED_D2

#undef PREFIX
#undef NEXT
#undef STALL
#undef NO_STALL
#undef SYNC_STATE
#undef MMIO_ENTER
#undef MMIO_DONE
#undef EXIT_BEFORE
#undef FAULT_EXIT
#undef HALT_AFTER

  // ---- the reference model for everything else -------------------------------------
slow: // one instruction, already charged, at the synced pipeline state
  if (core->lazy_sub) materialize(core); // the reference model reads %sw directly
  {
    const uint64_t stalls_before = CPU->stall_cycles_;
    st = CPU->step_one();
    if (cyc) {
      const int64_t d = int64_t(CPU->stall_cycles_ - stalls_before);
      left -= d;
      stall_charged += d;
    }
  }
  if (st == Cpu::StepStatus::Fault || st == Cpu::StepStatus::Yield ||
      st == Cpu::StepStatus::Trap) {
    left += 1; // it did not execute
    reason = st == Cpu::StepStatus::Fault   ? StopReason::Fault
             : st == Cpu::StepStatus::Yield ? StopReason::Yield
                                            : StopReason::Limit; // the trap is the caller's
    goto done;
  }
  if (st == Cpu::StepStatus::Halt) {
    CPU->halted_ = true;
    reason = StopReason::Halted;
    goto done;
  }
  if (st == Cpu::StepStatus::Stop) { // executed; an interrupt may be taken before the next
    reason = StopReason::Limit;
    goto done;
  }
reenter : { // nothing charged; the pipeline state is in the Cpu
  const uint32_t pc = CPU->pc_, npc = CPU->npc_, nnpc = CPU->nnpc_;
  // Slots never reached before are made dispatchable (vm/cpu.h): the ones entered here, and
  // those a handler falls through to from a not-yet-decoded one are made so by predecoding.
  if (__builtin_expect(!(pc < core->ready_limit && npc < core->ready_limit &&
                         nnpc < core->ready_limit), 0))
    CPU->ready_pipeline();
  if (valid(pc)) {
    ip = slots + pc / 4;
    if (npc == pc + 4 && nnpc == pc + 8) ENTER_RUN;
    if (valid(npc) && nnpc == npc + 4) {
      target = slots + npc / 4;
      CHARGE(1, precise);
      goto* ip->delay1;
    }
    if (npc == pc + 4 && valid(nnpc)) {
      target = slots + nnpc / 4;
      CHARGE(2, precise);
      goto* delay2[ip->op];
    }
  }
  // A state the fast path cannot represent (e.g. a jump to a bad address is pending):
  // keep stepping the reference model, which will fault at the bad fetch.
  CHARGE(1, precise);
  goto slow;
}

  // ---- the last instructions of the budget, one at a time --------------------------
precise_N:
  SYNC_N;
  goto precise;
precise_D1:
  SYNC_D1;
  goto precise;
precise_D2:
  SYNC_D2;
precise: // nothing charged; fewer instructions left than the next run would take
  while (left > 0) {
    // One instruction at a time, still with the fast handlers: run in delay mode 1 with
    // the next word as the "jump target", its handler executes exactly this instruction
    // and then tries to charge the next run, which fails back to here. Small budgets
    // (a chip's CPU between two nearby events) so avoid the reference model.
    {
      const uint32_t pc = CPU->pc_;
      if (CPU->npc_ == pc + 4 && CPU->nnpc_ == pc + 8 && (pc & 3) == 0 && pc < core->sram_size &&
          slots[pc / 4].op != F_DECODE) {
        ip = slots + pc / 4;
        target = ip + 1;
        left -= 1;
        goto* ip->delay1;
      }
    }
    if (core->lazy_sub) materialize(core); // the reference model reads %sw directly
    const uint64_t stalls_before = CPU->stall_cycles_;
    st = CPU->step_one();
    if (st == Cpu::StepStatus::Fault || st == Cpu::StepStatus::Yield ||
        st == Cpu::StepStatus::Trap) {
      reason = st == Cpu::StepStatus::Fault   ? StopReason::Fault
               : st == Cpu::StepStatus::Yield ? StopReason::Yield
                                              : StopReason::Limit;
      goto done;
    }
    left -= 1;
    if (cyc) {
      const int64_t d = int64_t(CPU->stall_cycles_ - stalls_before);
      left -= d;
      stall_charged += d;
    }
    if (st == Cpu::StepStatus::Halt) {
      CPU->halted_ = true;
      reason = StopReason::Halted;
      goto done;
    }
    if (st == Cpu::StepStatus::Stop) {
      reason = StopReason::Limit;
      goto done;
    }
  }
  reason = StopReason::Limit;
  goto done;

  // ---- exits from inside a handler -----------------------------------------------------
  // Before the instruction at ip (a fault, or a device asking for a retry): refund what was
  // charged for it and after it. After it (halt): refund what was charged after it.
  // Cycle budgets: a stall at ip overdrew the budget; the rest of the run (charged at its
  // start) may not start. Refund it and let the precise path decide instruction by
  // instruction.
N_overrun:
  left += ip->remaining - 1;
  ip += 1;
  SYNC_N;
  goto precise;
D2_overrun: // ip ran; ip + 1 (charged with it) may not start
  left += 1;
  ip += 1;
  SYNC_D1;
  goto precise;
N_yield:
  left += ip->remaining;
  SYNC_N;
  reason = StopReason::Yield;
  goto done;
D1_yield:
  left += 1;
  SYNC_D1;
  reason = StopReason::Yield;
  goto done;
D2_yield:
  left += 2;
  SYNC_D2;
  reason = StopReason::Yield;
  goto done;
N_fault: // the reference model recorded the fault with the state synced before the access
  left += ip->remaining;
  reason = CPU->fault_ ? StopReason::Fault : StopReason::Limit; // or a trap, pending
  goto done;
D1_fault:
  left += 1;
  reason = CPU->fault_ ? StopReason::Fault : StopReason::Limit; // or a trap, pending
  goto done;
D2_fault:
  left += 2;
  reason = CPU->fault_ ? StopReason::Fault : StopReason::Limit; // or a trap, pending
  goto done;
N_halt:
  left += ip->remaining - 1;
  ip += 1;
  SYNC_N;
  goto halt;
D1_halt:
  ip = target;
  SYNC_N;
  goto halt;
D2_halt:
  left += 1;
  ip += 1;
  SYNC_D1;
halt:
  // After a store: the bare-program exit, or (attention_ set: only stores set it inside a
  // run) one after which an interrupt may be taken (Cpu::StepStatus::Stop).
  if (CPU->attention_) {
    reason = StopReason::Limit;
    goto done;
  }
  CPU->halted_ = true;
  reason = StopReason::Halted;
done : {
  if (core->lazy_sub) materialize(core);
  const uint64_t executed = uint64_t(budget - left - stall_charged);
  core->cycle_mode = 0;
  CPU->instructions_ += executed;
  CPU->stall_cycles_ += extra;
  // Ended early by a trap, a return or a line a store raised (docs/vm.md, "Interrupts and
  // traps"): the rest of the budget (`left`: instructions, or cycles under a cycle budget)
  // runs with them served. Code that does not use the extension never gets here.
  if (__builtin_expect(CPU->attention_, 0) && !nested && reason == StopReason::Limit && left > 0) {
    const RunResult more = CPU->run_serviced(uint64_t(left), cycles);
    return {more.reason, executed + more.executed};
  }
  return {reason, executed};
}

#undef cyc
#undef stall_charged
#undef STALL_OR
#undef CPU
#undef slots
#undef mem
#undef SW
#undef addr
#undef valid
#undef dispatchable
#undef target_reads
#undef CHARGE
#undef ENTER_RUN
#undef SYNC_N
#undef SYNC_D1
#undef SYNC_D2
}

} // namespace lanaikit::vm
