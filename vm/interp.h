// The fast interpreter's predecoded form (internal to vm/).
//
// Each SRAM word has a Slot: the address of its handler inside the interpreter loop plus
// operands already resolved (register indices with writes to r0/r1 redirected to a sink,
// immediates negated or baked, branch targets as slot indices). Slots start as DECODE and
// are filled on first execution; stores into a decoded word (the code map) reset them.
#pragma once

#include <cstdint>

namespace lanaikit::vm {

// Handlers of the fast interpreter. Instructions without a fast form run as SLOW, which
// executes them with the reference model and re-enters the fast loop.
#define LANAIKIT_FAST_OPS(X)                                                                    \
  /* lazily decode this slot, then run it */                                                   \
  X(DECODE) X(SLOW)                                                                            \
  /* rd <- imm (SLI, add/or from r0, and ALU ops on %pc baked at predecode) */                  \
  X(MOVI) X(NOP)                                                                               \
  /* register-immediate, no flags (sub is add of the negated constant) */                      \
  X(ADD_I) X(ADDC_I) X(SUBB_I) X(AND_I) X(OR_I) X(XOR_I) X(SHL_I) X(SHR_I) X(SAR_I)             \
  /* register-immediate, setting flags */                                                      \
  X(ADD_IF) X(ADDC_IF) X(SUB_IF) X(SUBB_IF) X(AND_IF) X(OR_IF) X(XOR_IF) X(SH_IF) X(SHA_IF)     \
  /* sub.f whose flags the next instruction reads other than as a branch: computed at once */ \
  X(SUBE_IF) X(SUBE_RF)                                                                        \
  /* sub.f into r0/r1 (a compare): lazy flags, no result */                                   \
  X(CMP_IF) X(CMP_RF)                                                                          \
  /* register-register, condition true, no flags / flags */                                    \
  X(ADD_R) X(ADDC_R) X(SUB_R) X(SUBB_R) X(AND_R) X(OR_R) X(XOR_R) X(SH_R) X(SHA_R)              \
  X(ADD_RF) X(ADDC_RF) X(SUB_RF) X(SUBB_RF) X(AND_RF) X(OR_RF) X(XOR_RF) X(SH_RF) X(SHA_RF)     \
  /* register-register under a condition other than true (imm holds the condition mask) */  \
  X(ADD_RC) X(ADDC_RC) X(SUB_RC) X(SUBB_RC) X(AND_RC) X(OR_RC) X(XOR_RC) X(SH_RC) X(SHA_RC)     \
  X(SEL) X(SCC) X(POPC) X(LEADZ) X(TRAILZ)                                                     \
  /* loads: rd <- mem[rs1 + imm]; rs2 holds the load-use stall for the next slot */            \
  X(LDW) X(LDH) X(LDHU) X(LDB) X(LDBU)                                                         \
  X(LDW_PRE) X(LDH_PRE) X(LDHU_PRE) X(LDB_PRE) X(LDBU_PRE)                                     \
  X(LDW_POST) X(LDH_POST) X(LDHU_POST) X(LDB_POST) X(LDBU_POST)                                \
  /* loads: rd <- mem[rs1 + rs2]; imm holds the load-use stall */                              \
  X(LDW_RR) X(LDH_RR) X(LDHU_RR) X(LDB_RR) X(LDBU_RR)                                          \
  /* the same twenty loads when the next instruction reads rd (the interlock stalls): the  \
     plain forms above then need not count a stall at all. Same order, kLoadStallOps on. */  \
  X(LDW_S) X(LDH_S) X(LDHU_S) X(LDB_S) X(LDBU_S)                                               \
  X(LDW_S_PRE) X(LDH_S_PRE) X(LDHU_S_PRE) X(LDB_S_PRE) X(LDBU_S_PRE)                           \
  X(LDW_S_POST) X(LDH_S_POST) X(LDHU_S_POST) X(LDB_S_POST) X(LDBU_S_POST)                      \
  X(LDW_S_RR) X(LDH_S_RR) X(LDHU_S_RR) X(LDB_S_RR) X(LDBU_S_RR)                                \
  /* stores: mem[rs1 + imm] <- rd, or mem[rs1 + rs2] <- rd */                                  \
  X(STW) X(STH) X(STB) X(STW_PRE) X(STH_PRE) X(STB_PRE) X(STW_POST) X(STH_POST) X(STB_POST)    \
  X(STW_RR) X(STH_RR) X(STB_RR)                                                                \
  /* control transfers (normal mode only; in a delay slot they run as SLOW) */                 \
  X(BT) X(BCC) X(JMP_I) X(JMP_ADD_R) X(JMP_OR_R) X(LDW_PC)                                     \
  /* sub.f fused with the conditional branch in the next slot (normal mode only; in a delay  \
     slot they are plain sub.f). The branch's slot holds the target; the condition is in the  \
     op, decided from the operands. */                                                        \
  LANAIKIT_FUSED_OPS(X)                                                                        \
  /* conditional branches by condition: decided from a lazy compare's operands directly */  \
  X(BCC_EQ) X(BCC_NE) X(BCC_CS) X(BCC_CC) X(BCC_HI) X(BCC_LS)                                  \
  X(BCC_GE) X(BCC_LT) X(BCC_GT) X(BCC_LE) X(BCC_MI) X(BCC_PL)

#define LANAIKIT_FUSED_CONDS(Y)                                                                \
  Y(EQ, a == b) Y(NE, a != b) Y(CS, a >= b) Y(CC, a < b) Y(HI, a > b) Y(LS, a <= b)            \
  Y(GE, int32_t(a) >= int32_t(b)) Y(LT, int32_t(a) < int32_t(b))                               \
  Y(GT, int32_t(a) > int32_t(b)) Y(LE, int32_t(a) <= int32_t(b))                               \
  Y(MI, int32_t(a - b) < 0) Y(PL, int32_t(a - b) >= 0)
#define LANAIKIT_FUSED_OPS(X)                                                                  \
  X(SUBF_I_BEQ) X(SUBF_I_BNE) X(SUBF_I_BCS) X(SUBF_I_BCC) X(SUBF_I_BHI) X(SUBF_I_BLS)          \
  X(SUBF_I_BGE) X(SUBF_I_BLT) X(SUBF_I_BGT) X(SUBF_I_BLE) X(SUBF_I_BMI) X(SUBF_I_BPL)          \
  X(SUBF_R_BEQ) X(SUBF_R_BNE) X(SUBF_R_BCS) X(SUBF_R_BCC) X(SUBF_R_BHI) X(SUBF_R_BLS)          \
  X(SUBF_R_BGE) X(SUBF_R_BLT) X(SUBF_R_BGT) X(SUBF_R_BLE) X(SUBF_R_BMI) X(SUBF_R_BPL)          \
  /* the same with the difference discarded (sub.f ..., %r0: a compare) */                    \
  X(CMPF_I_BEQ) X(CMPF_I_BNE) X(CMPF_I_BCS) X(CMPF_I_BCC) X(CMPF_I_BHI) X(CMPF_I_BLS)          \
  X(CMPF_I_BGE) X(CMPF_I_BLT) X(CMPF_I_BGT) X(CMPF_I_BLE) X(CMPF_I_BMI) X(CMPF_I_BPL)          \
  X(CMPF_R_BEQ) X(CMPF_R_BNE) X(CMPF_R_BCS) X(CMPF_R_BCC) X(CMPF_R_BHI) X(CMPF_R_BLS)          \
  X(CMPF_R_BGE) X(CMPF_R_BLT) X(CMPF_R_BGT) X(CMPF_R_BLE) X(CMPF_R_BMI) X(CMPF_R_BPL)

enum FastOp : uint8_t {
#define LANAIKIT_ENUM(name) F_##name,
  LANAIKIT_FAST_OPS(LANAIKIT_ENUM)
#undef LANAIKIT_ENUM
      F_Count_
};

// Code is predecoded a segment of kSegmentWords words at a time. Within a segment, a run is
// a stretch of slots executed one after another that ends at a control transfer (or any
// slot that leaves the straight line: SLOW, a compare-and-branch) or at the segment's end.
// The instruction budget is charged once per run instead of once per instruction:
//   * a run entered by a jump, after a not-taken branch or on re-entry is charged `entry`
//     (= `remaining`) by whoever enters it;
//   * the first slot of every segment is a fence: its handler charges `remaining` itself
//     and then runs the instruction, so straight-line code is charged segment by segment
//     and entering a fence by a jump charges 0 (its `entry`).
// A run that would overdraw the budget is finished by the reference model instead, so
// run(n) still stops after exactly n instructions.
inline constexpr uint32_t kSegmentWords = 16;

struct Slot {
  const void* handler; // normal-mode entry: the op's handler, or FENCE at a segment start
  const void* delay1;  // the op's delay-1 handler
  uint32_t imm;
  uint8_t op; // FastOp: indexes the delay-2 handler table
  uint8_t rd, rs1, rs2;
  uint16_t remaining; // instructions from this slot to the end of its run (>= 1)
  uint16_t entry;     // charged when a run starts here by a jump (0 at fences)
  uint32_t reads;     // registers the instruction reads (load-use interlock of delay slots)
};
static_assert(sizeof(Slot) == 32);

// Distance from a load op to its stalling twin (LDW -> LDW_S).
inline constexpr int kLoadStallOps = 20;

// Register index the fast path writes for architectural register r (r0/r1 -> the sink).
inline constexpr uint8_t kSinkReg = 32;

// Label addresses in the interpreter loop, exported for the predecoder.
struct HandlerTables {
  const void* const* normal;
  const void* const* delay1;
  const void* fence;
};
const HandlerTables& fast_handlers();

} // namespace lanaikit::vm
