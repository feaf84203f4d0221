// The meaning of each Lanai operation, as one-line functions shared by the reference
// stepper (vm/cpu.cpp) and the fast interpreter (vm/interp.cpp), so that the two can only
// disagree about control flow, never about arithmetic.
//
// Flags live in the low four bits of the status word `sw` (LLVM's SR register, separate from
// the 32 GPRs). The Lanai .td files name the flags but not their bit positions; lanaikit
// fixes them as:
//   bit 0 C (carry)   bit 1 V (overflow)   bit 2 N (negative)   bit 3 Z (zero)
#pragma once

#include "base/bytes.h" // load_be32/16, store_be32/16: the SRAM is big-endian
#include "isa/inst.h"

#include <bit>
#include <cstdint>

namespace lanaikit::vm {

inline constexpr uint32_t kFlagC = 1u << 0;
inline constexpr uint32_t kFlagV = 1u << 1;
inline constexpr uint32_t kFlagN = 1u << 2;
inline constexpr uint32_t kFlagZ = 1u << 3;
inline constexpr uint32_t kFlagMask = 0xF;

// For each condition, bit k is set iff the condition holds when the flag nibble is k.
// Built once from the DDDI table of LanaiInstrFormats.td; a condition test is then one
// shift and one mask.
constexpr uint16_t make_cond_mask(isa::Cond cond) {
  uint16_t mask = 0;
  for (unsigned f = 0; f < 16; ++f) {
    const bool c = f & kFlagC, v = f & kFlagV, n = f & kFlagN, z = f & kFlagZ;
    bool holds = false;
    switch (cond) {
    case isa::Cond::T: holds = true; break;
    case isa::Cond::F: holds = false; break;
    case isa::Cond::HI: holds = c && !z; break;
    case isa::Cond::LS: holds = !c || z; break;
    case isa::Cond::CC: holds = !c; break;
    case isa::Cond::CS: holds = c; break;
    case isa::Cond::NE: holds = !z; break;
    case isa::Cond::EQ: holds = z; break;
    case isa::Cond::VC: holds = !v; break;
    case isa::Cond::VS: holds = v; break;
    case isa::Cond::PL: holds = !n; break;
    case isa::Cond::MI: holds = n; break;
    case isa::Cond::GE: holds = n == v; break;
    case isa::Cond::LT: holds = n != v; break;
    case isa::Cond::GT: holds = n == v && !z; break;
    case isa::Cond::LE: holds = z || n != v; break;
    }
    if (holds) mask |= uint16_t(1u << f);
  }
  return mask;
}

inline constexpr uint16_t kCondMask[16] = {
    make_cond_mask(isa::Cond(0)),  make_cond_mask(isa::Cond(1)),  make_cond_mask(isa::Cond(2)),
    make_cond_mask(isa::Cond(3)),  make_cond_mask(isa::Cond(4)),  make_cond_mask(isa::Cond(5)),
    make_cond_mask(isa::Cond(6)),  make_cond_mask(isa::Cond(7)),  make_cond_mask(isa::Cond(8)),
    make_cond_mask(isa::Cond(9)),  make_cond_mask(isa::Cond(10)), make_cond_mask(isa::Cond(11)),
    make_cond_mask(isa::Cond(12)), make_cond_mask(isa::Cond(13)), make_cond_mask(isa::Cond(14)),
    make_cond_mask(isa::Cond(15)),
};

// `sw` holds nothing but the flags (no instruction can write other bits: SR is not a GPR),
// so it indexes the mask directly.
inline bool cond_holds(uint16_t cond_mask, uint32_t sw) { return (cond_mask >> sw) & 1; }
inline bool cond_holds(isa::Cond cond, uint32_t sw) {
  return cond_holds(kCondMask[unsigned(cond)], sw);
}

inline uint32_t zn_flags(uint32_t result) {
  return (result == 0 ? kFlagZ : 0) | (result >> 31 ? kFlagN : 0);
}

// The flags of a - b (sub and cmp), straight from the operands.
[[gnu::always_inline]] inline uint32_t sub_flags(uint32_t a, uint32_t b) {
  const uint32_t r = a - b;
  return uint32_t(a >= b) | ((((a ^ b) & (a ^ r)) >> 31) << 1) | ((r >> 31) << 2) |
         (uint32_t(r == 0) << 3);
}

// a + b + carry_in with the Z N V C the .td describes for arithmetic operations.
struct ArithResult {
  uint32_t value;
  uint32_t flags;
};
inline ArithResult add_with_carry(uint32_t a, uint32_t b, uint32_t carry_in) {
  uint32_t partial, value;
  const bool carry = __builtin_add_overflow(a, b, &partial) |
                     __builtin_add_overflow(partial, carry_in, &value);
  const uint32_t overflow = (~(a ^ b) & (a ^ value)) >> 31;
  return {value, zn_flags(value) | (overflow << 1) | uint32_t(carry)};
}
// sub(a,b) == a + ~b + 1; subb(a,b) == a + ~b + C.
inline ArithResult sub_with_borrow(uint32_t a, uint32_t b, uint32_t carry_in) {
  return add_with_carry(a, ~b, carry_in);
}

// Shifts by a signed amount: positive shifts left, negative right. The ISA defines only
// -31..31; lanaikit defines the rest as the limit of the same operation (all bits shifted
// out: 0, or the sign for arithmetic right shifts) so results never depend on the host.
inline uint32_t shift_logical(uint32_t value, int32_t amount) {
  if (amount >= 0) return amount >= 32 ? 0 : value << amount;
  return amount <= -32 ? 0 : value >> -amount;
}
inline uint32_t shift_arith(uint32_t value, int32_t amount) {
  if (amount >= 0) return amount >= 32 ? 0 : value << amount;
  return amount <= -32 ? uint32_t(int32_t(value) >> 31) : uint32_t(int32_t(value) >> -amount);
}
// C after a shift: left shifts set it to the last bit shifted out (bit 32-amount of the
// input); right shifts clear it.
inline uint32_t shift_carry(uint32_t value, int32_t amount) {
  if (amount <= 0 || amount > 32) return 0;
  return (value >> (32 - amount)) & 1 ? kFlagC : 0;
}

// The value an ALU operation produces, without flags; used for RR/RI results whose flags
// are not wanted and for RRM address arithmetic.
inline uint32_t alu_value(isa::AluOp op, uint32_t a, uint32_t b, uint32_t sw) {
  switch (op) {
  case isa::AluOp::Add: return a + b;
  case isa::AluOp::Addc: return a + b + (sw & kFlagC);
  case isa::AluOp::Sub: return a - b;
  case isa::AluOp::Subb: return a + ~b + (sw & kFlagC);
  case isa::AluOp::And: return a & b;
  case isa::AluOp::Or: return a | b;
  case isa::AluOp::Xor: return a ^ b;
  case isa::AluOp::Shl: return shift_logical(a, int32_t(b));
  case isa::AluOp::Sra: return shift_arith(a, int32_t(b));
  }
  return 0;
}

// Flags after an ALU operation with F set. `rr` selects the register-register rules:
// RR logical operations leave C unchanged where RI ones clear it (LanaiInstrFormats.td).
inline uint32_t alu_flags(isa::AluOp op, uint32_t a, uint32_t b, uint32_t sw, bool rr) {
  switch (op) {
  case isa::AluOp::Add: return add_with_carry(a, b, 0).flags;
  case isa::AluOp::Addc: return add_with_carry(a, b, sw & kFlagC).flags;
  case isa::AluOp::Sub: return sub_flags(a, b);
  case isa::AluOp::Subb: return sub_with_borrow(a, b, sw & kFlagC).flags;
  case isa::AluOp::And:
  case isa::AluOp::Or:
  case isa::AluOp::Xor: {
    const uint32_t value = alu_value(op, a, b, sw);
    return zn_flags(value) | (rr ? (sw & kFlagC) : 0);
  }
  case isa::AluOp::Shl: return zn_flags(shift_logical(a, int32_t(b))) | shift_carry(a, int32_t(b));
  case isa::AluOp::Sra: return zn_flags(shift_arith(a, int32_t(b))) | shift_carry(a, int32_t(b));
  }
  return 0;
}

// Flags after a flag-setting RR operation whose condition is false: Rd keeps its value
// and Z and N describe it (V cleared, C kept, as for an RR logical operation). The .td
// only says "Rd <- Rs1 op Rs2 iff condition" and "RR instructions modify the flags
// according to the result"; LLVM 14 relies on this reading: its compare elimination
// (LanaiInstrInfo::optimizeCompareInstr) turns `x = op.cond a, b` (x unchanged when the
// condition fails) followed by `sub.f x, 0` into `op.f.cond` and branches on EQ/NE/MI/PL,
// e.g. clang -O1 for `0 - (x >> k)` on 64 bits. Leaving the flags untouched made such
// code compute wrong results (tests/vm/cpu_test.cpp, tests/programs/runtime_random.c).
inline uint32_t predicated_off_flags(uint32_t rd_value, uint32_t sw) {
  return zn_flags(rd_value) | (sw & kFlagC);
}

inline uint32_t popc(uint32_t v) { return uint32_t(std::popcount(v)); }
inline uint32_t leadz(uint32_t v) { return uint32_t(std::countl_zero(v)); }
inline uint32_t trailz(uint32_t v) { return uint32_t(std::countr_zero(v)); }

} // namespace lanaikit::vm
