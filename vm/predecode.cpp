// Predecoding: from a decoded instruction to the fast interpreter's slot. Every case that
// is not worth a fast handler (conditional ALU, flag-setting jumps, reads of %pc the
// predecoder cannot bake, unusual addressing) becomes SLOW and runs the reference model.
#include "vm/cpu.h"
#include "vm/interp.h"
#include "vm/semantics.h"

#include <algorithm>

namespace lanaikit::vm {

using isa::AddrMode;
using isa::Format;
using isa::Opcode;
using isa::Width;

namespace {

uint8_t dest(uint8_t r) { return r <= isa::R1 ? kSinkReg : r; }

FastOp load_op(Width w, bool zext, AddrMode mode) {
  const int base = w == Width::Word ? 0 : w == Width::Half ? (zext ? 2 : 1) : (zext ? 4 : 3);
  const int row = mode == AddrMode::PreMod ? F_LDW_PRE : mode == AddrMode::PostMod ? F_LDW_POST
                                                                                   : F_LDW;
  return FastOp(row + base);
}

FastOp store_op(Width w, AddrMode mode) {
  const int base = w == Width::Word ? 0 : w == Width::Half ? 1 : 2;
  const int row = mode == AddrMode::PreMod ? F_STW_PRE : mode == AddrMode::PostMod ? F_STW_POST
                                                                                   : F_STW;
  return FastOp(row + base);
}

} // namespace

// The conditions decided directly from a compare's operands, in the order of
// LANAIKIT_FUSED_CONDS (vm/interp.h); -1 for the others.
static int direct_cond_index(isa::Cond c) {
  switch (c) {
  case isa::Cond::EQ: return 0;
  case isa::Cond::NE: return 1;
  case isa::Cond::CS: return 2;
  case isa::Cond::CC: return 3;
  case isa::Cond::HI: return 4;
  case isa::Cond::LS: return 5;
  case isa::Cond::GE: return 6;
  case isa::Cond::LT: return 7;
  case isa::Cond::GT: return 8;
  case isa::Cond::LE: return 9;
  case isa::Cond::MI: return 10;
  case isa::Cond::PL: return 11;
  default: return -1;
  }
}

// If the word after the sub.f at `index` is a conditional branch the fused handlers decide
// from the operands, predecodes that branch now (the fused handler reads its slot) and
// returns the fused op of the register-immediate form (F_SUBF_I_B*); otherwise 0.
int Cpu::fused_branch(uint32_t index) {
  // The pair must sit in one segment: the fence at a segment start charges its run, and a
  // fused handler runs the branch without passing through it.
  if (index + 1 >= num_words_ || (index + 1) % kSegmentWords == 0) return 0;
  const auto next = isa::decode(load_be32(sram_.data() + 4 * (index + 1)));
  if (!next || next->op != Opcode::BR) return 0;
  const int k = direct_cond_index(next->cond);
  if (k < 0) return 0;
  build_slot(index + 1);
  if (slots()[index + 1].op != F_BCC_EQ + k) return 0;
  return F_SUBF_I_BEQ + k;
}

// Whether the word after `index` reads the flags other than as a branch a compare's
// operands decide (sel, scc, predicated ALU, addc/subb): then a compare at `index` computes
// its flags at once instead of leaving them lazy.
bool Cpu::next_reads_flags_directly(uint32_t index) const {
  if (index + 1 >= num_words_) return false;
  const auto next = isa::decode(load_be32(sram_.data() + 4 * (index + 1)));
  if (!next || !isa::reads_flags(*next)) return false;
  return !(next->op == Opcode::BR && direct_cond_index(next->cond) >= 0);
}

bool Cpu::delay_slot_is_nop(uint32_t index) const {
  if (index + 1 >= num_words_) return false;
  const auto next = isa::decode(load_be32(sram_.data() + 4 * (index + 1)));
  return next && next->op == Opcode::NOP;
}

void Cpu::build_slot(uint32_t index) {
  Slot& s = slots()[index];
  auto set = [&](FastOp op, uint8_t rd = 0, uint8_t rs1 = 0, uint8_t rs2 = 0, uint32_t imm = 0) {
    s.op = op;
    s.rd = rd;
    s.rs1 = rs1;
    s.rs2 = rs2;
    s.imm = imm;
    s.handler = fast_handlers().normal[op];
    s.delay1 = fast_handlers().delay1[op];
  };
  const uint32_t pc = index * 4;
  code_map()[pc >> kCodeMapShift] |= kCodeMark;
  const auto decoded = isa::decode(load_be32(sram_.data() + pc));
  s.reads = decoded ? isa::regs_read(*decoded) : 0;
  // A load whose successor reads its destination takes the stalling twin of its op, which
  // counts the stall kept in rs2 (register+offset forms) or imm (register+register).
  auto set_load = [&](FastOp op, uint8_t rd, uint8_t rs1, uint8_t rs2_or_stall,
                      uint32_t imm_or_stall) {
    const bool rr = op >= F_LDW_RR && op <= F_LDBU_RR;
    const uint32_t stall = rr ? imm_or_stall : rs2_or_stall;
    set(stall ? FastOp(op + kLoadStallOps) : op, rd, rs1, rs2_or_stall, imm_or_stall);
  };
  if (!decoded) return set(F_SLOW); // the reference model reports the illegal instruction
  const isa::Inst& in = *decoded;
  const bool reads_pc = ((isa::regs_read(in) >> isa::PC) & 1) != 0;
  auto valid_target = [&](uint32_t t) { return t % 4 == 0 && t < sram_.size(); };
  // A slot predecoded from the next word too (a load's interlock, a branch's nop delay
  // slot, a compare's eager flags) goes stale when that word changes, so the word is marked
  // in the code map: a store to it invalidates this slot (invalidate_words reaches two words
  // back). Unmarked, a program that rewrote the word after a load kept the load's stale
  // stall decision (cpu_fuzz, tests/fuzz/crashes/cpu-stall-mismatch).
  auto observe_next = [&] {
    if (index + 1 < num_words_) code_map()[(pc + 4) >> kCodeMapShift] |= kCodeMark;
  };
  // Load-use interlock against the next sequential word (a delay-slot load checks its
  // actual successor at run time instead).
  auto stall_after = [&](uint8_t rd) -> uint8_t {
    observe_next();
    return next_reads(pc + 4, rd) ? uint8_t(std::min<uint32_t>(costs_.load_use_cycles, 255)) : 0;
  };

  switch (in.op) {
  case Opcode::ADD_I: case Opcode::ADDC_I: case Opcode::SUB_I: case Opcode::SUBB_I:
  case Opcode::AND_I: case Opcode::OR_I: case Opcode::XOR_I: case Opcode::SL_I:
  case Opcode::SA_I: {
    if (in.rd == isa::PC) {
      if (!in.set_flags && in.op == Opcode::ADD_I && in.rs1 != isa::PC)
        return set(F_JMP_I, 0, in.rs1, 0, in.imm);
      return set(F_SLOW);
    }
    const uint8_t rd = dest(in.rd);
    if (in.set_flags) {
      if (in.rs1 == isa::PC) return set(F_SLOW);
      if (in.op == Opcode::SUB_I) {
        // A compare (result into r0/r1) need not write its result.
        const bool cmp = rd == kSinkReg;
        if (const int fused = fused_branch(index))
          return set(FastOp(fused + (cmp ? F_CMPF_I_BEQ - F_SUBF_I_BEQ : 0)), rd, in.rs1, 0,
                     in.imm);
        observe_next();
        if (next_reads_flags_directly(index)) return set(F_SUBE_IF, rd, in.rs1, 0, in.imm);
        if (cmp) return set(F_CMP_IF, rd, in.rs1, 0, in.imm);
      }
      static constexpr FastOp kFlagOps[] = {F_ADD_IF, F_ADDC_IF, F_SUB_IF, F_SUBB_IF, F_AND_IF,
                                            F_OR_IF,  F_XOR_IF,  F_SH_IF,  F_SHA_IF};
      return set(kFlagOps[int(in.op) - int(Opcode::ADD_I)], rd, in.rs1, 0, in.imm);
    }
    const int32_t amount = int32_t(in.imm);
    if (in.rs1 == isa::PC || in.rs1 == isa::R0) { // constant result: bake it
      if (in.op == Opcode::ADDC_I || in.op == Opcode::SUBB_I) return set(F_SLOW);
      const uint32_t a = in.rs1 == isa::PC ? pc : 0;
      isa::AluOp op = isa::AluOp::Add;
      switch (in.op) {
      case Opcode::SUB_I: op = isa::AluOp::Sub; break;
      case Opcode::AND_I: op = isa::AluOp::And; break;
      case Opcode::OR_I: op = isa::AluOp::Or; break;
      case Opcode::XOR_I: op = isa::AluOp::Xor; break;
      case Opcode::SL_I: op = isa::AluOp::Shl; break;
      case Opcode::SA_I: op = isa::AluOp::Sra; break;
      default: break;
      }
      return set(F_MOVI, rd, 0, 0, alu_value(op, a, in.imm, 0));
    }
    switch (in.op) {
    case Opcode::ADD_I: return set(F_ADD_I, rd, in.rs1, 0, in.imm);
    case Opcode::SUB_I: return set(F_ADD_I, rd, in.rs1, 0, 0u - in.imm);
    case Opcode::ADDC_I: return set(F_ADDC_I, rd, in.rs1, 0, in.imm);
    case Opcode::SUBB_I: return set(F_SUBB_I, rd, in.rs1, 0, in.imm);
    case Opcode::AND_I: return set(F_AND_I, rd, in.rs1, 0, in.imm);
    case Opcode::OR_I: return set(F_OR_I, rd, in.rs1, 0, in.imm);
    case Opcode::XOR_I: return set(F_XOR_I, rd, in.rs1, 0, in.imm);
    case Opcode::SL_I:
    case Opcode::SA_I:
      if (amount >= 0 && amount < 32) return set(F_SHL_I, rd, in.rs1, 0, uint32_t(amount));
      if (amount < 0 && amount > -32)
        return set(in.op == Opcode::SL_I ? F_SHR_I : F_SAR_I, rd, in.rs1, 0, uint32_t(-amount));
      return set(F_SLOW);
    default: return set(F_SLOW);
    }
  }
  case Opcode::ADD_R: case Opcode::ADDC_R: case Opcode::SUB_R: case Opcode::SUBB_R:
  case Opcode::AND_R: case Opcode::OR_R: case Opcode::XOR_R: case Opcode::SHL_R:
  case Opcode::SRA_R: {
    if (reads_pc) return set(F_SLOW);
    if (in.cond != isa::Cond::T) {
      if (in.cond == isa::Cond::F) return set(in.set_flags ? F_SLOW : F_NOP); // flags: see
                                                                            // predicated_off_flags
      if (in.rd == isa::PC || in.set_flags) return set(F_SLOW);
      return set(FastOp(F_ADD_RC + (int(in.op) - int(Opcode::ADD_R))), dest(in.rd), in.rs1,
                 in.rs2, kCondMask[unsigned(in.cond)]);
    }
    if (in.rd == isa::PC) {
      if (in.set_flags) return set(F_SLOW);
      if (in.op == Opcode::ADD_R) return set(F_JMP_ADD_R, 0, in.rs1, in.rs2);
      if (in.op == Opcode::OR_R) return set(F_JMP_OR_R, 0, in.rs1, in.rs2);
      return set(F_SLOW);
    }
    const int k = int(in.op) - int(Opcode::ADD_R);
    if (in.op == Opcode::SUB_R && in.set_flags) {
      const bool cmp = dest(in.rd) == kSinkReg;
      if (const int fused = fused_branch(index))
        return set(FastOp(fused + (cmp ? F_CMPF_R_BEQ : F_SUBF_R_BEQ) - F_SUBF_I_BEQ),
                   dest(in.rd), in.rs1, in.rs2);
      observe_next();
      if (next_reads_flags_directly(index)) return set(F_SUBE_RF, dest(in.rd), in.rs1, in.rs2);
      if (cmp) return set(F_CMP_RF, dest(in.rd), in.rs1, in.rs2);
    }
    return set(FastOp((in.set_flags ? F_ADD_RF : F_ADD_R) + k), dest(in.rd), in.rs1, in.rs2);
  }
  case Opcode::SELECT:
    if (in.rd == isa::PC || reads_pc) return set(F_SLOW);
    return set(F_SEL, dest(in.rd), in.rs1, in.rs2, kCondMask[unsigned(in.cond)]);
  case Opcode::SCC:
    if (in.rd == isa::PC) return set(F_SLOW);
    return set(F_SCC, dest(in.rd), 0, 0, kCondMask[unsigned(in.cond)]);
  case Opcode::POPC: case Opcode::LEADZ: case Opcode::TRAILZ: {
    if (in.rd == isa::PC || reads_pc) return set(F_SLOW);
    const FastOp op = in.op == Opcode::POPC ? F_POPC : in.op == Opcode::LEADZ ? F_LEADZ : F_TRAILZ;
    return set(op, dest(in.rd), in.rs1);
  }
  case Opcode::SLI:
    if (in.rd == isa::PC) return set(F_SLOW);
    return set(F_MOVI, dest(in.rd), 0, 0, in.imm);
  case Opcode::NOP: return set(F_NOP);
  case Opcode::BR:
    if (in.cond == isa::Cond::F) return set(F_NOP);
    if (!valid_target(in.imm)) return set(F_SLOW);
    {
      // Targets are byte offsets between slots so the handler needs only `ip`; rd says whether
      // the delay slot holds a nop the handler may skip.
      const uint32_t rel = (in.imm / 4 - index) * uint32_t(sizeof(Slot)); // bytes
      if (!slots()[in.imm / 4].handler) ready_slots(in.imm / 4); // the handler jumps there
      observe_next();
      const uint8_t nop_slot = delay_slot_is_nop(index) ? 1 : 0;
      if (in.cond == isa::Cond::T) return set(F_BT, nop_slot, 0, 0, rel);
      const uint16_t mask = kCondMask[unsigned(in.cond)];
      const int k = direct_cond_index(in.cond);
      return set(k < 0 ? F_BCC : FastOp(F_BCC_EQ + k), nop_slot, uint8_t(mask & 0xFF),
                 uint8_t(mask >> 8), rel);
    }
  case Opcode::BRR: return set(F_SLOW);
  case Opcode::LDADDR:
    if (in.rd == isa::PC) return set(F_SLOW);
    return set_load(F_LDW, dest(in.rd), isa::R0, stall_after(in.rd), in.imm);
  case Opcode::STADDR:
    if (in.rd == isa::PC) return set(F_SLOW);
    return set(F_STW, in.rd, isa::R0, 0, in.imm);
  case Opcode::LOAD:
  case Opcode::STORE: {
    if (in.rs1 == isa::PC || (in.is_store() && in.rd == isa::PC)) return set(F_SLOW);
    AddrMode mode = in.mode;
    uint32_t offset = in.format == Format::RRM ? 0 : in.imm;
    if (mode == AddrMode::Plain) {
      mode = AddrMode::Offset;
      offset = 0;
    }
    const bool modifies = mode == AddrMode::PreMod || mode == AddrMode::PostMod;
    if (modifies && (in.rs1 <= isa::R1 || (in.is_load() && in.rd == in.rs1)))
      return set(F_SLOW);
    if (in.format == Format::RRM && in.mode != AddrMode::Plain) {
      // Only the common register+register form is fast.
      if (mode != AddrMode::Offset || in.mem_op != isa::AluOp::Add || in.rs2 == isa::PC)
        return set(F_SLOW);
      if (in.is_store()) {
        const int k = in.width == Width::Word ? 0 : in.width == Width::Half ? 1 : 2;
        return set(FastOp(F_STW_RR + k), in.rd, in.rs1, in.rs2);
      }
      if (in.rd == isa::PC) return set(F_SLOW);
      const FastOp op = FastOp(F_LDW_RR + (load_op(in.width, in.zero_ext, mode) - F_LDW));
      return set_load(op, dest(in.rd), in.rs1, in.rs2, stall_after(in.rd));
    }
    if (in.is_store()) return set(store_op(in.width, mode), in.rd, in.rs1, 0, offset);
    if (in.rd == isa::PC) {
      if (mode == AddrMode::Offset && in.width == Width::Word)
        return set(F_LDW_PC, 0, in.rs1, 0, offset);
      return set(F_SLOW);
    }
    return set_load(load_op(in.width, in.zero_ext, mode), dest(in.rd), in.rs1, stall_after(in.rd),
                    offset);
  }
  case Opcode::Count_: break;
  }
  return set(F_SLOW);
}

// Ends a run: control transfers, and anything that leaves the straight line.
static bool ends_run(uint8_t op) {
  switch (op) {
  case F_SLOW: case F_BT: case F_BCC: case F_JMP_I: case F_JMP_ADD_R: case F_JMP_OR_R:
  case F_LDW_PC:
    return true;
  default: return op >= F_BCC_EQ && op <= F_BCC_PL;
  }
}

void Cpu::build_segment(uint32_t index) {
  const uint32_t first = index - index % kSegmentWords;
  const uint32_t end = std::min(first + kSegmentWords, num_words_);
  // Decode from `index` on, stopping after an unconditional transfer and its delay slots:
  // what follows is reached only by a jump and may well be data (a table after a function,
  // the start of .bss), which must not be marked as code or every store to it would drop
  // predecoded slots.
  for (uint32_t i = index; i < end; ++i) {
    if (slots()[i].op == F_DECODE) build_slot(i);
    const uint8_t op = slots()[i].op;
    if (op == F_BT || op == F_JMP_I || op == F_JMP_ADD_R || op == F_JMP_OR_R || op == F_LDW_PC) {
      const uint32_t last = std::min(end, i + (op == F_LDW_PC ? 3 : 2));
      for (uint32_t j = i + 1; j < last; ++j)
        if (slots()[j].op == F_DECODE) build_slot(j);
      break;
    }
  }
  // Runs over the segment's decoded slots, from the back. A run goes on into its successor
  // unless it ends there (control transfer, SLOW) or the successor charges for itself: a
  // slot not decoded yet (decoding it charges its run), the next segment's fence, or the
  // sentinel past the end of SRAM.
  for (uint32_t i = end; i-- > first;) {
    Slot& s = slots()[i];
    if (s.op == F_DECODE) continue;
    const bool next_charges =
        i + 1 == end || i + 1 == num_words_ || slots()[i + 1].op == F_DECODE;
    s.remaining = uint16_t(ends_run(s.op) || next_charges ? 1 : 1 + slots()[i + 1].remaining);
    s.entry = s.remaining;
  }
  if (slots()[first].op != F_DECODE) {
    slots()[first].handler = fast_handlers().fence;
    slots()[first].entry = 0;
  }
  // Handlers fall through into the next two slots (a run into the next segment, the delay
  // slots of a control transfer at the end of this one): they must be dispatchable.
  for (uint32_t j = end; j <= std::min(end + 1, num_words_); ++j)
    if (!slots()[j].handler) ready_slots(j);
}

void Cpu::ready_pipeline() {
  for (const uint32_t a : {pc_, npc_, nnpc_})
    if (a % 4 == 0 && a <= sram_.size() && !slots()[a / 4].handler) ready_slots(a / 4);
}

void Cpu::ready_slots(uint32_t index) {
  constexpr uint32_t kPageSlots = 4096 / sizeof(Slot);
  const uint32_t first = index - index % kPageSlots;
  const uint32_t end = uint32_t(std::min<uint64_t>(uint64_t(first) + kPageSlots, uint64_t(num_words_) + 1));
  const HandlerTables& h = fast_handlers();
  for (uint32_t i = first; i < end; ++i) {
    Slot& s = slots()[i];
    if (s.handler) continue; // decoded, or reset by invalidate_words: already dispatchable
    s.handler = h.normal[F_DECODE];
    s.delay1 = h.delay1[F_DECODE];
    s.op = F_DECODE;
    s.entry = 0;
    s.remaining = 1;
  }
  // Extend the all-ready prefix over this page and any ready ones after it.
  uint64_t limit = core_.ready_limit / 4; // in slots, a multiple of kPageSlots
  auto page_ready = [&](uint64_t p) {
    const uint64_t e = std::min<uint64_t>(p + kPageSlots, uint64_t(num_words_) + 1);
    for (uint64_t i = p; i < e; ++i)
      if (!slots()[i].handler) return false;
    return true;
  };
  while (limit <= num_words_ && page_ready(limit)) limit += kPageSlots;
  core_.ready_limit = uint32_t(std::min<uint64_t>(limit, uint64_t(num_words_) + 1) * 4);
}

void Cpu::invalidate_words(uint32_t first_word, uint32_t last_word) {
  // Whole segments (their runs are computed together), from two words before the range:
  // a load's interlock stall and a branch's nop-in-delay-slot flag were computed from the
  // next word, and a fused compare reads its branch's slot.
  const uint32_t begin = first_word > 1 ? first_word - 2 : 0;
  const uint32_t end = std::min(last_word, num_words_);
  if (begin < end) {
    const HandlerTables& h = fast_handlers();
    const uint32_t seg_begin = begin - begin % kSegmentWords;
    const uint32_t seg_end = std::min(num_words_, (end + kSegmentWords - 1) / kSegmentWords *
                                                      kSegmentWords);
    for (uint32_t i = seg_begin; i < seg_end; ++i) {
      Slot& s = slots()[i];
      s.handler = h.normal[F_DECODE];
      s.delay1 = h.delay1[F_DECODE];
      s.op = F_DECODE;
      s.entry = 0; // a run entered here is charged once the segment is decoded
      s.remaining = 1;
    }
  }
  // The sentinel past the end of SRAM is never decoded: fetching there faults. It is a
  // one-instruction run charged by itself (like a fence), whichever way it is reached.
  if (!slots()[num_words_].handler) ready_slots(num_words_);
  Slot& sentinel = slots()[num_words_];
  sentinel.op = F_SLOW;
  sentinel.handler = fast_handlers().fence;
  sentinel.delay1 = fast_handlers().delay1[F_SLOW];
  sentinel.remaining = 1;
  sentinel.entry = 0;
}

} // namespace lanaikit::vm
