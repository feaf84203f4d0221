// The Lanai instruction formats as tables: one table per format, one row per instruction.
//
// These rows are the single source of truth for decoding (isa/decode.cpp), for the
// disassembly text (isa/disasm.cpp, byte for byte LLVM 14's MCInstPrinter output) and for
// the interpreter's handler list (every Opcode a row names needs a handler). Adding an
// instruction means adding one row. The encodings were read off LLVM 14's
// LanaiInstrFormats.td / LanaiInstrInfo.td and checked against the installed LLVM by
// tests/isa (see docs/isa.md for the quirks found on the way).
//
// Bit numbering: bit 31 is the most significant bit of the big-endian instruction word.
// Every format keeps a 4-bit major opcode in bits 31..28 and, where it has them, Rd in
// bits 27..23 and Rs1 in bits 22..18.
#pragma once

#include "isa/inst.h"

#include <cstdint>
#include <iterator>
#include <string_view>

namespace lanaikit::isa::fmt {

// The field `word[hi..lo]`, right-aligned.
constexpr uint32_t field(uint32_t word, unsigned hi, unsigned lo) {
  return (word >> lo) & ((hi - lo == 31) ? ~0u : ((1u << (hi - lo + 1)) - 1));
}
constexpr uint32_t sext(uint32_t value, unsigned bits) {
  const uint32_t sign = 1u << (bits - 1);
  return (value ^ sign) - sign;
}
constexpr uint32_t bit(unsigned n) { return 1u << n; }

// ---------------------------------------------------------------------------------------
// Major opcode (bits 31..28) -> format. 0..7 are all RI (the top bit clear, the other
// three are RI's AAA); 1110 and 1111 are shared by several formats that the second-level
// tables below tell apart.
// ---------------------------------------------------------------------------------------
enum class Group : uint8_t { RI, RM, RRM, RR, Special, Branch, Slx };
inline constexpr Group kMajor[16] = {
    Group::RI, Group::RI,  Group::RI,  Group::RI,  Group::RI,      Group::RI,
    Group::RI, Group::RI,  Group::RM,  Group::RM,  Group::RRM,     Group::RRM,
    Group::RR, Group::Special, Group::Branch, Group::Slx,
};

// ---------------------------------------------------------------------------------------
// Exact words. LLVM gives six words their own names before anything else is tried; all
// six sit inside RI's `add` encoding (add %r0, N, %r0), so they change nothing.
// ---------------------------------------------------------------------------------------
struct FixedRow {
  uint32_t word;
  std::string_view text;
  Opcode op;
};
inline constexpr FixedRow kFixed[] = {
    {0x00000001, "nop", Opcode::NOP},   {0x00000002, "log_0", Opcode::NOP},
    {0x00000003, "log_1", Opcode::NOP}, {0x00000004, "log_2", Opcode::NOP},
    {0x00000005, "log_3", Opcode::NOP}, {0x00000006, "log_4", Opcode::NOP},
};
// One RM word, 0x8116fffc, LLVM decodes as a separate instruction (its RET); it executes as
// the ordinary load `ld -4[%fp], %pc` (pre-computed offset, no write-back) but prints with
// a comment.
inline constexpr std::string_view kRetText = "ld\t-4[%fp], %pc ! return";

// ---------------------------------------------------------------------------------------
// RI  |0 A A A|  Rd  | Rs1 |F|H|        constant16        |
//   Rd <- Rs1 op K. F: update flags. For the seven ALU operations H puts the constant in
//   the high (1) or low (0) half of K; the other half is zero, except for `and`, which
//   fills it with ones so the untouched half passes through. For AAA=111 (shifts) K is the
//   sign-extended constant, the shift amount (positive left, negative right) and H picks
//   logical (0) or arithmetic (1). Every RI word decodes.
//   Text: "op[.f]\t%rs1, K, %rd" with K in hex (shift amounts signed: "-0x1"); `add` from
//   %r0 and `and` from %r1 without F print as "mov\tK, %rd".
// ---------------------------------------------------------------------------------------
enum class RiImm : uint8_t {
  Zero,  // constant placed by H, other half 0
  Ones,  // constant placed by H, other half 0xffff
  Signed // sign-extended shift amount
};
struct RiRow {
  uint8_t aaa;
  int8_t h; // -1: either; 0/1: the row applies only to that H
  std::string_view mnemonic;
  Opcode op;
  AluOp alu;
  RiImm imm;
  int8_t mov_from; // without F and with this Rs1, LLVM prints "mov K, %rd"; -1: never
};
inline constexpr RiRow kRi[] = {
    {0b000, -1, "add", Opcode::ADD_I, AluOp::Add, RiImm::Zero, R0},
    {0b001, -1, "addc", Opcode::ADDC_I, AluOp::Addc, RiImm::Zero, -1},
    {0b010, -1, "sub", Opcode::SUB_I, AluOp::Sub, RiImm::Zero, -1},
    {0b011, -1, "subb", Opcode::SUBB_I, AluOp::Subb, RiImm::Zero, -1},
    {0b100, -1, "and", Opcode::AND_I, AluOp::And, RiImm::Ones, R1},
    {0b101, -1, "or", Opcode::OR_I, AluOp::Or, RiImm::Zero, -1},
    {0b110, -1, "xor", Opcode::XOR_I, AluOp::Xor, RiImm::Zero, -1},
    {0b111, 0, "sh", Opcode::SL_I, AluOp::Shl, RiImm::Signed, -1},
    {0b111, 1, "sha", Opcode::SA_I, AluOp::Sra, RiImm::Signed, -1},
};

// ---------------------------------------------------------------------------------------
// RR  |1 1 0 0|  Rd  | Rs1 |F|I| Rs2 |B B B|J J J J J|D D D|
//   If condition DDDI holds: Rd <- Rs1 op Rs2 (cond = DDD:I, the BR table). BBB is the
//   ALU operation; BBB=111 is "special" and JJJJJ picks which: 10000 logical shift,
//   11000 arithmetic shift (amount = Rs2, signed), 00000 select (Rd <- cond ? Rs1 : Rs2,
//   F must be 0). LLVM rejects every other JJJJJ, including non-zero JJJJJ with BBB!=111.
//   Text: "op[.f][.cond]\t%rs1, %rs2, %rd" (".t" omitted). Aliases LLVM prints:
//     add, no F, Rs2=%r0, cond t        -> "mov\t%rs1, %rd"
//     or, no F, Rd=%pc (indirect jumps) -> "bt\t%rs2" when Rs1=%r0 and cond t,
//                                          else "b<cond>\t%rs1" when Rs2=%r0,
//                                          else "b<cond>\t%rs1 add %rs2"
//     (the last really ORs: LLVM's text says `add` for an `or` encoding)
//     select                            -> "sel.<cond> %rs1, %rs2, %rd" (a space, not a tab)
// ---------------------------------------------------------------------------------------
enum class RrText : uint8_t { Plain, Add, Or, Select };
struct RrRow {
  uint8_t bbb;
  uint8_t jjjjj;
  std::string_view mnemonic;
  Opcode op;
  AluOp alu; // meaningless for SELECT
  bool f_ok; // whether F=1 decodes
  RrText text;
};
inline constexpr RrRow kRr[] = {
    {0b000, 0b00000, "add", Opcode::ADD_R, AluOp::Add, true, RrText::Add},
    {0b001, 0b00000, "addc", Opcode::ADDC_R, AluOp::Addc, true, RrText::Plain},
    {0b010, 0b00000, "sub", Opcode::SUB_R, AluOp::Sub, true, RrText::Plain},
    {0b011, 0b00000, "subb", Opcode::SUBB_R, AluOp::Subb, true, RrText::Plain},
    {0b100, 0b00000, "and", Opcode::AND_R, AluOp::And, true, RrText::Plain},
    {0b101, 0b00000, "or", Opcode::OR_R, AluOp::Or, true, RrText::Or},
    {0b110, 0b00000, "xor", Opcode::XOR_R, AluOp::Xor, true, RrText::Plain},
    {0b111, 0b10000, "sh", Opcode::SHL_R, AluOp::Shl, true, RrText::Plain},
    {0b111, 0b11000, "sha", Opcode::SRA_R, AluOp::Sra, true, RrText::Plain},
    {0b111, 0b00000, "sel", Opcode::SELECT, AluOp::Add, false, RrText::Select},
};

// ---------------------------------------------------------------------------------------
// Addressing (RM, RRM, SPLS). P,Q pick the mode (AddrMode in inst.h):
//   00 ea = Rs1    01 ea = Rs1, then Rs1 <- Rs1 op X    10 ea = Rs1 op X
//   11 ea = Rs1 op X, then Rs1 <- ea
// with X the sign-extended constant (op = add) or Rs2 (op from BBB). For PQ=00 LLVM
// replaces X with 0 / %r0 and so do we (decode zeroes imm / rs2).
// Text of a constant-offset operand: "<decimal X>[%rs1]", "[*%rs1]" for pre-modify,
// "[%rs1*]" for post-modify; a pre/post-modify by exactly +-(access size) prints as
// "[++%rs1]" / "[--%rs1]" / "[%rs1++]" / "[%rs1--]".
// ---------------------------------------------------------------------------------------
inline constexpr AddrMode kModeOfPq[4] = {AddrMode::Plain, AddrMode::PostMod, AddrMode::Offset,
                                          AddrMode::PreMod};

// ---------------------------------------------------------------------------------------
// RM  |1 0 0 S|  Rd  | Rs1 |P|Q|       constant16        |
//   Word load (S=0) or store (S=1) at the ea above with a 16-bit signed constant. Every
//   RM word decodes. Text: "ld\t<mem>, %rd" / "st\t%rd, <mem>".
// ---------------------------------------------------------------------------------------
struct RmRow {
  uint8_t s;
  std::string_view mnemonic;
  Opcode op;
};
inline constexpr RmRow kRm[] = {
    {0, "ld", Opcode::LOAD},
    {1, "st", Opcode::STORE},
};

// ---------------------------------------------------------------------------------------
// RRM |1 0 1 S|  Rd  | Rs1 |P|Q| Rs2 |B B B|J J J J J|Y L E|
//   Like RM with "Rs1 op Rs2" for "Rs1 + constant"; op is BBB as in RR. JJJJJ is ignored
//   unless BBB=111, where LLVM looks only at its bit 3 (0: logical shift "sh", 1:
//   arithmetic "sha"); LLVM accepts all 32 JJJJJ values there (but cannot print those
//   with bit 2 set, see docs/isa.md). YLE gives the width and extension (table below);
//   width applies even with BBB=111, whatever the .td prose says, because LLVM decodes it
//   so. Text: "<op>\t[%rs1 <aluop> %rs2], %rd" with "*" before/after %rs1 for pre/post.
// ---------------------------------------------------------------------------------------
struct RrmAluRow {
  uint8_t bbb;
  uint8_t j_mask, j_value; // the JJJJJ bits the row depends on
  AluOp alu;
};
inline constexpr RrmAluRow kRrmAlu[] = {
    {0b000, 0, 0, AluOp::Add},  {0b001, 0, 0, AluOp::Addc},    {0b010, 0, 0, AluOp::Sub},
    {0b011, 0, 0, AluOp::Subb}, {0b100, 0, 0, AluOp::And},     {0b101, 0, 0, AluOp::Or},
    {0b110, 0, 0, AluOp::Xor},  {0b111, 0x08, 0x00, AluOp::Shl}, {0b111, 0x08, 0x08, AluOp::Sra},
};
struct RrmWidthRow {
  uint8_t yle;
  std::string_view load;  // mnemonic of the load
  std::string_view store; // mnemonic of the store; empty: the store does not decode
  Width width;
  bool zero_ext;
};
inline constexpr RrmWidthRow kRrmWidth[] = {
    {0b000, "ld.h", "st.h", Width::Half, false},
    {0b001, "uld.h", "", Width::Half, true},
    {0b010, "ld", "st", Width::Word, false},
    {0b011, "uld", "", Width::Word, true},
    {0b100, "ld.b", "st.b", Width::Byte, false},
    {0b101, "uld.b", "", Width::Byte, true},
    // 110 and 111 do not decode.
};

// ---------------------------------------------------------------------------------------
// The 1110 group, told apart by bits 24 and 1:
// BR   |1 1 1 0|D D D|            address[24..2]               |0|I|
//   If cond: pc <- address (absolute, zero-extended, word aligned). Text: "b<cond>\t0x..".
// BRR  |1 1 1 0|D D D|1|0|  Rs1=0  |0 0|      constant[15..2]     |1|I|
//   If cond: pc <- Rs1 + sign-extended constant (already a byte offset, a multiple of 4).
//   LLVM requires Rs1 = 0 and the marked zero bits. Text: "b<cond>.r\t0x<constant as
//   unsigned 16 bits>".
// SCC  |1 1 1 0|D D D|0|0|   Rd    |0 ...  ...  ...  ...  0|1|I|
//   Rd <- cond ? 1 : 0 (the .td names this field Rs1). All marked zero bits must be zero.
//   Text: "s<cond>\t%rd".
// ---------------------------------------------------------------------------------------
struct BranchRow {
  uint32_t select_mask, select_value; // (word & mask) == value picks the row
  uint32_t zero_mask;                 // bits that must be zero for LLVM to decode it
  Format format;
  Opcode op;
};
inline constexpr BranchRow kBranch[] = {
    {bit(1), 0, 0, Format::BR, Opcode::BR},
    {bit(24) | bit(1), bit(24) | bit(1), bit(23) | 0x007c0000 | bit(17) | bit(16), Format::BRR,
     Opcode::BRR},
    {bit(24) | bit(1), bit(1), bit(23) | 0x0003fffc, Format::SCC, Opcode::SCC},
};

// ---------------------------------------------------------------------------------------
// The 1111 group, told apart by bits 17..15:
// SLS  |1 1 1 1|  Rd  | A[20..16] |0|S|     A[15..0]      |
//   Word load (S=0) / store (S=1) at the zero-extended 21-bit address A. (The .td says
//   the hardware ignores A's two low bits; LLVM prints them.) Text: "ld\t[0x..], %rd" /
//   "st\t%rd, [0x..]".
// SLI  |1 1 1 1|  Rd  | K[20..16] |1|0|     K[15..0]      |
//   Rd <- K, zero-extended 21-bit. Text: "mov\t0x.., %rd".
// SPLS |1 1 1 1|  Rd  | Rs1 |1 1 0|Y|S|E|P|Q| constant10 |
//   Part-word load/store at the RM-style ea with a 10-bit signed constant (table below).
// Bits 17..15 = 111 do not decode.
// ---------------------------------------------------------------------------------------
struct SlxRow {
  uint32_t select_mask, select_value;
  Format format;
  Opcode op;
};
inline constexpr SlxRow kSlx[] = {
    {bit(17) | bit(16), 0, Format::SLS, Opcode::LDADDR},
    {bit(17) | bit(16), bit(16), Format::SLS, Opcode::STADDR},
    {bit(17) | bit(16), bit(17), Format::SLI, Opcode::SLI},
    {bit(17) | bit(16) | bit(15), bit(17) | bit(16), Format::SPLS, Opcode::LOAD /* by kSpls */},
};
struct SplsRow {
  uint8_t yse;
  std::string_view mnemonic;
  Opcode op;
  Width width;
  bool zero_ext;
};
inline constexpr SplsRow kSpls[] = {
    {0b000, "ld.h", Opcode::LOAD, Width::Half, false},
    {0b001, "uld.h", Opcode::LOAD, Width::Half, true},
    {0b100, "ld.b", Opcode::LOAD, Width::Byte, false},
    {0b101, "uld.b", Opcode::LOAD, Width::Byte, true},
    {0b010, "st.h", Opcode::STORE, Width::Half, false},
    {0b110, "st.b", Opcode::STORE, Width::Byte, false},
    // 011 and 111 (zero-extending stores) do not decode.
};

// ---------------------------------------------------------------------------------------
// Special |1 1 0 1|  Rd  | Rs1 |F|0 ...  bits 16..3 zero  ... 0| OP |
//   Rd <- f(Rs1). LLVM decodes only F=0, bits 16..3 zero and the three OPs below.
//   Text: "op\t%rs1, %rd".
// ---------------------------------------------------------------------------------------
struct SpecialRow {
  uint8_t op3;
  std::string_view mnemonic;
  Opcode op;
};
inline constexpr uint32_t kSpecialZeroMask = bit(17) | 0x0001fff8;
inline constexpr SpecialRow kSpecial[] = {
    {0b001, "popc", Opcode::POPC},
    {0b010, "leadz", Opcode::LEADZ},
    {0b011, "trailz", Opcode::TRAILZ},
};

// ---------------------------------------------------------------------------------------
// Names LLVM prints.
// ---------------------------------------------------------------------------------------
// ALU operation names as they appear inside RRM memory operands ("[%r1 sub %r2]").
inline constexpr std::string_view kAluName[] = {"add", "addc", "sub", "subb", "and",
                                                "or",  "xor",  "sh",  "sha"};
// Condition names (LanaiCondCode.h): the unsigned comparisons print as ugt/ule/ult/uge,
// not as the .td's hi/ls/cc/cs.
inline constexpr std::string_view kCondName[16] = {"t",   "f",   "ugt", "ule", "ult", "uge",
                                                   "ne",  "eq",  "vc",  "vs",  "pl",  "mi",
                                                   "ge",  "lt",  "gt",  "le"};
// Register names: LLVM's GPR decoder names r2, r4, r5, r8, r10, r11 and r15; r3 is an
// ordinary register and prints as plain "r3" (the status word, "%sw", is not a GPR).
inline constexpr std::string_view kRegName[32] = {
    "r0",  "r1",  "pc",  "r3",  "sp",  "fp",  "r6",  "r7",  "rv",  "r9",  "rr1",
    "rr2", "r12", "r13", "r14", "rca", "r16", "r17", "r18", "r19", "r20", "r21",
    "r22", "r23", "r24", "r25", "r26", "r27", "r28", "r29", "r30", "r31"};

// Every Opcode by name, in enum order: the interpreter's handler list is checked against
// this (one handler per entry; Count_ == its length).
inline constexpr std::string_view kOpcodeName[] = {
    "ADD_I", "ADDC_I", "SUB_I", "SUBB_I", "AND_I", "OR_I", "XOR_I", "SL_I", "SA_I",
    "ADD_R", "ADDC_R", "SUB_R", "SUBB_R", "AND_R", "OR_R", "XOR_R", "SHL_R", "SRA_R",
    "SELECT", "LOAD", "STORE", "LDADDR", "STADDR", "SLI", "BR", "BRR", "SCC",
    "POPC", "LEADZ", "TRAILZ", "NOP"};
static_assert(std::size(kOpcodeName) == size_t(Opcode::Count_), "one name per Opcode");

// Size in bytes of an access, which is also the step of the "++"/"--" operand spellings.
constexpr int width_bytes(Width w) { return w == Width::Word ? 4 : w == Width::Half ? 2 : 1; }

} // namespace lanaikit::isa::fmt
