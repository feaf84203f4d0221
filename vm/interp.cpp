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
// The instruction budget is one decrement-and-branch per dispatch. Cycles are derived at
// the end (instructions * base + stalls); only stalls are accumulated as they happen.
#include "vm/cpu.h"
#include "vm/interp.h"
#include "vm/semantics.h"

namespace lanaikit::vm {

struct Interp {
  static RunResult run(Cpu::Core* core, uint64_t max_insns, const void* const** export_table);

  // Loads that leave the fast path (memory-mapped registers, faults). The value comes back
  // packed with the status (status << 32 | value) so that no local's address escapes the
  // interpreter loop: that would pin the loaded value to the stack in every handler.
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

  [[gnu::noinline]] static uint64_t slow_load(Cpu* cpu, uint32_t ea, isa::Width w, bool zext) {
    uint32_t value = 0;
    const Cpu::StepStatus st = cpu->load(ea, w, zext, value);
    return st == Cpu::StepStatus::Ok ? value : uint64_t(st) << 32;
  }
};

const void* const* fast_handlers() {
  static const void* const* table = [] {
    const void* const* t = nullptr;
    Interp::run(nullptr, 0, &t);
    return t;
  }();
  return table;
}

RunResult Cpu::run(uint64_t max_insns) {
  if (fault_) return {StopReason::Fault, 0};
  if (halted_) return {StopReason::Halted, 0};
  return Interp::run(&core_, max_insns, nullptr);
}

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

RunResult Interp::run(Cpu::Core* const core, uint64_t max_insns,
                      const void* const** export_table) {
#define LANAIKIT_LABEL_N(name) &&N_##name,
#define LANAIKIT_LABEL_D1(name) &&D1_##name,
#define LANAIKIT_LABEL_D2(name) &&D2_##name,
  static const void* const normal[] = {LANAIKIT_FAST_OPS(LANAIKIT_LABEL_N)};
  static const void* const delay1[] = {LANAIKIT_FAST_OPS(LANAIKIT_LABEL_D1)};
  static const void* const delay2[] = {LANAIKIT_FAST_OPS(LANAIKIT_LABEL_D2)};
  if (!core) {
    *export_table = normal;
    return {StopReason::Limit, 0};
  }

  // Few long-lived values, so they stay in callee-saved registers across the slow-path
  // calls: the core state (registers, SRAM size, code-page map) is reached through R.
  uint32_t* const R = core->regs; // the same address as core: one base register for both
  uint8_t* const mem = core->mem;
#define CPU (core->cpu)
#define slots (core->slots)
#define SW() (__builtin_expect(core->lazy_sub, 0) ? materialize(core) : R[kSwReg])
  const int64_t budget = int64_t(std::min<uint64_t>(max_insns, uint64_t(INT64_MAX) - 1));
  int64_t left = budget;
  uint64_t extra = 0;      // stall cycles accumulated in this call
  uint64_t executed = 0;   // set on exit
  StopReason reason = StopReason::Limit;
  const Slot* ip = nullptr;
  const Slot* target = nullptr;
  Cpu::StepStatus st{};

  // Helpers as macros over values, not lambdas capturing by reference: a captured local
  // becomes addressable, and in a function this size that costs registers everywhere.
#define addr(s) (uint32_t((s)-slots) * 4)
#define valid(a) (((a)&3) == 0 && (a) <= core->sram_size)
#define started() (budget - left)
  // Does the jump target read register r? From the predecoded mask, or by decoding it.
#define target_reads(r)                                                                        \
  (__builtin_expect(target->op == F_DECODE, 0) ? target_reads_slow(core, target, (r))          \
                                               : ((core->reads[target - slots] >> (r)) & 1) != 0)

#define DISPATCH_N                                                                             \
  do {                                                                                         \
    if (__builtin_expect(--left < 0, 0)) goto N_limit;                                         \
    goto* ip->handler;                                                                         \
  } while (0)
#define DISPATCH_D1                                                                            \
  do {                                                                                         \
    if (__builtin_expect(--left < 0, 0)) goto D1_limit;                                        \
    goto* delay1[ip->op];                                                                      \
  } while (0)
#define DISPATCH_D2                                                                            \
  do {                                                                                         \
    if (__builtin_expect(--left < 0, 0)) goto D2_limit;                                        \
    goto* delay2[ip->op];                                                                      \
  } while (0)

#define SYNC_N                                                                                 \
  (CPU->pc_ = addr(ip), CPU->npc_ = CPU->pc_ + 4, CPU->nnpc_ = CPU->pc_ + 8)
#define SYNC_D1                                                                                \
  (CPU->pc_ = addr(ip), CPU->npc_ = addr(target), CPU->nnpc_ = CPU->npc_ + 4)
#define SYNC_D2                                                                                \
  (CPU->pc_ = addr(ip), CPU->npc_ = CPU->pc_ + 4, CPU->nnpc_ = addr(target))

  // Enter from the architectural state.
  goto reenter;

  // ---- normal mode -----------------------------------------------------------------
#define PREFIX N_
#define NEXT                                                                                   \
  do {                                                                                         \
    ip += 1;                                                                                   \
    DISPATCH_N;                                                                                \
  } while (0)
#define STALL(rd, s) (extra += (s))
#define SYNC_STATE SYNC_N
#define EXIT_BEFORE goto N_yield
#define HALT_AFTER                                                                             \
  do {                                                                                         \
    ip += 1;                                                                                   \
    goto N_halt;                                                                               \
  } while (0)
#define FAULT_EXIT goto fault
#include "vm/interp_ops.inc"

N_DECODE:
  CPU->build_slot(uint32_t(ip - slots));
  goto* ip->handler;
N_SLOW:
  SYNC_N;
  goto slow;
  // A taken branch whose delay slot is a nop (rd = 1, set at predecode) skips dispatching
  // the nop: it is counted, and the target follows at once.
#define TAKE_BRANCH                                                                            \
  do {                                                                                         \
    target = ip + int32_t(ip->imm);                                                            \
    ip += 1;                                                                                   \
    if (ip[-1].rd) {                                                                           \
      if (__builtin_expect(--left < 0, 0)) goto D1_limit;                                      \
      ip = target;                                                                             \
      DISPATCH_N;                                                                              \
    }                                                                                          \
    DISPATCH_D1;                                                                               \
  } while (0)
N_BT:
  TAKE_BRANCH;
N_BCC:
  if (cond_holds(uint16_t(ip->rs1 | (ip->rs2 << 8)), SW())) TAKE_BRANCH;
  NEXT;
N_JMP_I : {
  const uint32_t t = R[ip->rs1] + ip->imm;
  if (!valid(t)) goto N_SLOW;
  target = slots + t / 4;
}
  ip += 1;
  DISPATCH_D1;
N_JMP_ADD_R : {
  const uint32_t t = R[ip->rs1] + R[ip->rs2];
  if (!valid(t)) goto N_SLOW;
  target = slots + t / 4;
}
  ip += 1;
  DISPATCH_D1;
N_JMP_OR_R : {
  const uint32_t t = R[ip->rs1] | R[ip->rs2];
  if (!valid(t)) goto N_SLOW;
  target = slots + t / 4;
}
  ip += 1;
  DISPATCH_D1;
N_LDW_PC : {
  const uint32_t ea = R[ip->rs1] + ip->imm;
  if (!IN_SRAM(ea, 4)) goto N_SLOW;
  const uint32_t t = load_be32(mem + ea);
  if (!valid(t)) goto N_SLOW;
  target = slots + t / 4;
}
  ip += 1;
  DISPATCH_D2;

  // sub.f + conditional branch. The branch's own slot (ip + 1) is a BCC predecoded together
  // with this one; it holds the relative target. Two instructions: one more budget unit.
#define FUSED_BODY(expr)                                                                       \
  R[ip->rd] = a - b;                                                                           \
  core->lazy_a = a;                                                                            \
  core->lazy_b = b;                                                                            \
  core->lazy_sub = 1;                                                                          \
  ip += 1;                                                                                     \
  if (__builtin_expect(--left < 0, 0)) goto N_limit;                                           \
  if (expr) TAKE_BRANCH;                                                                       \
  ip += 1;                                                                                     \
  DISPATCH_N;
#define FUSED_N(c, expr)                                                                       \
  N_SUBF_I_B##c : {                                                                            \
    const uint32_t a = R[ip->rs1], b = ip->imm;                                                \
    FUSED_BODY(expr)                                                                           \
  }                                                                                            \
  N_SUBF_R_B##c : {                                                                            \
    const uint32_t a = R[ip->rs1], b = R[ip->rs2];                                             \
    FUSED_BODY(expr)                                                                           \
  }
  LANAIKIT_FUSED_CONDS(FUSED_N)
#undef FUSED_N
#undef FUSED_BODY
#undef TAKE_BRANCH

#undef PREFIX
#undef NEXT
#undef STALL
#undef SYNC_STATE
#undef EXIT_BEFORE
#undef HALT_AFTER

  // ---- delay mode 1: the next instruction is `target` ------------------------------
#define PREFIX D1_
#define NEXT                                                                                   \
  do {                                                                                         \
    ip = target;                                                                               \
    DISPATCH_N;                                                                                \
  } while (0)
#define STALL(rd, s)                                                                           \
  ((rd) < 32 && target_reads(rd) ? (extra += CPU->costs_.load_use_cycles) : 0)
#define SYNC_STATE SYNC_D1
#define EXIT_BEFORE goto D1_yield
#define HALT_AFTER                                                                             \
  do {                                                                                         \
    ip = target;                                                                               \
    goto N_halt;                                                                               \
  } while (0)
#include "vm/interp_ops.inc"

D1_DECODE:
  CPU->build_slot(uint32_t(ip - slots));
  goto* delay1[ip->op];
D1_SLOW:
D1_BT:
D1_BCC:
D1_JMP_I:
D1_JMP_ADD_R:
D1_JMP_OR_R:
D1_LDW_PC:
  SYNC_D1;
  goto slow;
#define FUSED_D1(c, expr)                                                                      \
  D1_SUBF_I_B##c : goto D1_SUB_IF;                                                             \
  D1_SUBF_R_B##c : goto D1_SUB_RF;
  LANAIKIT_FUSED_CONDS(FUSED_D1)
#undef FUSED_D1

#undef PREFIX
#undef NEXT
#undef STALL
#undef SYNC_STATE
#undef EXIT_BEFORE
#undef HALT_AFTER

  // ---- delay mode 2: the next instruction is ip + 1 in delay mode 1 ----------------
#define PREFIX D2_
#define NEXT                                                                                   \
  do {                                                                                         \
    ip += 1;                                                                                   \
    DISPATCH_D1;                                                                               \
  } while (0)
#define STALL(rd, s) (extra += (s))
#define SYNC_STATE SYNC_D2
#define EXIT_BEFORE goto D2_yield
#define HALT_AFTER                                                                             \
  do {                                                                                         \
    ip += 1;                                                                                   \
    goto D1_halt;                                                                              \
  } while (0)
#include "vm/interp_ops.inc"

D2_DECODE:
  CPU->build_slot(uint32_t(ip - slots));
  goto* delay2[ip->op];
D2_SLOW:
D2_BT:
D2_BCC:
D2_JMP_I:
D2_JMP_ADD_R:
D2_JMP_OR_R:
D2_LDW_PC:
  SYNC_D2;
  goto slow;
#define FUSED_D2(c, expr)                                                                      \
  D2_SUBF_I_B##c : goto D2_SUB_IF;                                                             \
  D2_SUBF_R_B##c : goto D2_SUB_RF;
  LANAIKIT_FUSED_CONDS(FUSED_D2)
#undef FUSED_D2

#undef PREFIX
#undef NEXT
#undef STALL
#undef SYNC_STATE
#undef EXIT_BEFORE
#undef HALT_AFTER
#undef FAULT_EXIT

  // ---- the reference model for everything else -------------------------------------
slow:
  if (core->lazy_sub) materialize(core); // the reference model reads %sw directly
  st = CPU->step_one();
  if (st == Cpu::StepStatus::Fault) goto fault;
  if (st == Cpu::StepStatus::Yield) {
    executed = uint64_t(started() - 1);
    reason = StopReason::Yield;
    goto done;
  }
  if (st == Cpu::StepStatus::Halt) {
    executed = uint64_t(started());
    CPU->halted_ = true;
    reason = StopReason::Halted;
    goto done;
  }
reenter : {
  const uint32_t pc = CPU->pc_, npc = CPU->npc_, nnpc = CPU->nnpc_;
  if (valid(pc)) {
    ip = slots + pc / 4;
    if (npc == pc + 4 && nnpc == pc + 8) DISPATCH_N;
    if (valid(npc) && nnpc == npc + 4) {
      target = slots + npc / 4;
      DISPATCH_D1;
    }
    if (npc == pc + 4 && valid(nnpc)) {
      target = slots + nnpc / 4;
      DISPATCH_D2;
    }
  }
  // A state the fast path cannot represent (e.g. a jump to a bad address is pending):
  // keep stepping the reference model, which will fault at the bad fetch.
  if (--left < 0) {
    executed = uint64_t(budget);
    goto done;
  }
  goto slow;
}

  // ---- exits -------------------------------------------------------------------------
N_limit:
  SYNC_N;
  executed = uint64_t(budget);
  goto done;
D1_limit:
  SYNC_D1;
  executed = uint64_t(budget);
  goto done;
D2_limit:
  SYNC_D2;
  executed = uint64_t(budget);
  goto done;
N_yield:
  SYNC_N;
  goto yield;
D1_yield:
  SYNC_D1;
  goto yield;
D2_yield:
  SYNC_D2;
yield:
  executed = uint64_t(started() - 1);
  reason = StopReason::Yield;
  goto done;
N_halt: // ip is the next instruction, sequential
  SYNC_N;
  goto halt;
D1_halt: // ip is the next instruction, itself in a delay slot before `target`
  SYNC_D1;
halt:
  executed = uint64_t(started());
  CPU->halted_ = true;
  reason = StopReason::Halted;
  goto done;
fault: // the reference model recorded the fault with the state synced before the access
  executed = uint64_t(started() - 1);
  reason = StopReason::Fault;
done:
  if (core->lazy_sub) materialize(core);
  CPU->instructions_ += executed;
  CPU->stall_cycles_ += extra;
  return {reason, executed};

#undef CPU
#undef slots
#undef SW
#undef addr
#undef valid
#undef started
#undef target_reads
#undef DISPATCH_N
#undef DISPATCH_D1
#undef DISPATCH_D2
#undef SYNC_N
#undef SYNC_D1
#undef SYNC_D2
}

} // namespace lanaikit::vm
