// The Lanai instruction set as LLVM 14 defines it (llvm/lib/Target/Lanai/*.td).
//
// This header is the contract between the decoder (isa/decode.cpp), the disassembler
// (isa/disasm.cpp) and the interpreter (vm/). A decoded word is an `Inst`: an opcode that
// names one behaviour, plus operands already extracted and extended, so that nothing
// downstream looks at encoding bits again. The encodings themselves are tabulated in
// isa/formats.h (one table per format); docs/isa.md is the reader's manual.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace lanaikit::isa {

// Register numbers with a fixed role (LanaiRegisterInfo.td). r0 reads 0, r1 reads
// 0xFFFFFFFF; writes to either are discarded. LLVM prints r3 as plain "r3" (see reg_name).
enum Reg : uint8_t {
  R0 = 0,
  R1 = 1,
  PC = 2,  // program counter; writing it jumps (delay slots, see vm/cpu.h)
  // r3 is an ordinary register. The status word (LLVM's SR, printed "%sw") is not one of
  // the 32: no encoding names it, and only the flag-setting forms write it (docs/vm.md).
  SP = 4,
  FP = 5,
  RV = 8,   // return value
  RR1 = 10, // second return value register
  RR2 = 11,
  RCA = 15, // return address
};

// The sixteen conditions of the DDDI field (InstBR comment in LanaiInstrFormats.td), in
// encoding order. LLVM prints HI/LS/CC/CS as "ugt"/"ule"/"ult"/"uge" (see cond_name).
enum class Cond : uint8_t { T, F, HI, LS, CC, CS, NE, EQ, VC, VS, PL, MI, GE, LT, GT, LE };

// The register-register / memory address ALU operation (BBB, with JJJJJ for shifts).
// Shl is the logical shift by a signed amount (positive left, negative right: "sh"), Sra
// the arithmetic one ("sha"). Enumerators are in BBB order for the first seven.
enum class AluOp : uint8_t { Add, Addc, Sub, Subb, And, Or, Xor, Shl, Sra };

// Memory access width for loads and stores.
enum class Width : uint8_t { Word, Half, Byte };

// The P/Q bits of RM, RRM and SPLS (InstRM comment):
//   Plain   (PQ=00): ea = Rs1
//   PostMod (PQ=01): ea = Rs1,          Rs1 <- Rs1 op operand
//   Offset  (PQ=10): ea = Rs1 op operand
//   PreMod  (PQ=11): ea = Rs1 op operand, Rs1 <- ea
// "operand" is `imm` (RM, SPLS; op is add) or Rs2 (RRM; op is `mem_op`). For Plain, decode
// zeroes `imm` and `rs2` as LLVM does, but ea is Rs1 whatever `mem_op` is (with mem_op And,
// "Rs1 and r0" would be 0, which is not what Plain means).
enum class AddrMode : uint8_t { Plain, PostMod, Offset, PreMod };

// One value per distinct behaviour. The flag-setting (F) variants are the same opcode
// with `set_flags` true.
enum class Opcode : uint8_t {
  // RI: Rd <- Rs1 op imm. `imm` is the full 32-bit operand (already placed in the high or
  // low half and, for AND, filled with ones in the other half).
  ADD_I, ADDC_I, SUB_I, SUBB_I, AND_I, OR_I, XOR_I,
  // RI shifts: `imm` is the sign-extended amount; positive shifts left, negative right.
  SL_I, // logical (H=0)
  SA_I, // arithmetic (H=1)
  // RR: if cond: Rd <- Rs1 op Rs2. OR_R with Rd=pc is how indirect jumps are encoded
  // (LLVM prints it "bt %rs2" / "b<cc> %rs1" / "b<cc> %rs1 add %rs2"; it is still an OR).
  ADD_R, ADDC_R, SUB_R, SUBB_R, AND_R, OR_R, XOR_R,
  SHL_R, // logical shift by signed Rs2 (JJJJJ=10000)
  SRA_R, // arithmetic shift by signed Rs2 (JJJJJ=11000)
  SELECT, // Rd <- cond ? Rs1 : Rs2
  // RM (word), RRM (any width), SPLS (half/byte): loads and stores. For RRM, `mem_op` is
  // the address operation (BBB; for BBB=111 JJJJJ bit 3 picks Shl/Sra and the other JJJJJ
  // bits are ignored) and width/zero_ext come from YLE, also when BBB=111.
  LOAD,  // Rd <- mem[ea], width/zero_ext apply (zero_ext false: sign-extend part words)
  STORE, // mem[ea] <- Rd, width applies
  // SLS: absolute word load/store at the zero-extended 21-bit address in `imm` (all 21
  // bits as encoded; the .td says the hardware ignores the two low ones).
  LDADDR, STADDR,
  // SLI: Rd <- imm (21-bit, zero-extended).
  SLI,
  // BR: if cond: pc <- imm (absolute, bits 24..2 of the word, so word aligned), one delay
  // slot.
  BR,
  // BRR: if cond: pc <- address of this BRR + imm (imm = sign-extended constant*4, i.e.
  // bits 15..2 of the word as a signed 16-bit byte offset). LLVM 14 decodes it only with
  // Rs1=0 (the field is fixed in its .td), so rs1 is always 0 here. The .td's prose says
  // both "Rs1 + offset" and "PC relative"; the vm takes the relative reading (docs/vm.md).
  BRR,
  // SCC: Rd <- cond ? 1 : 0. The .td calls the destination field Rs1 (bits 22..18); decode
  // puts it in `rd` for uniformity and leaves rs1 = 0.
  SCC,
  // Special: Rd <- f(Rs1).
  POPC, LEADZ, TRAILZ,
  // Exact words LLVM gives names to (0x00000001 "nop", 0x00000002..6 "log_0".."log_4").
  // All are no-ops here (they encode `add %r0, N, %r0`); format Fixed, imm = the word.
  // 0x00000000 is not one of them: it decodes as ADD_I ("mov 0x0, %r0").
  NOP,
  Count_
};

enum class Format : uint8_t { RI, RR, RM, RRM, BR, BRR, SCC, SLS, SLI, SPLS, Special, Fixed };

struct Inst {
  Opcode op = Opcode::NOP;
  Format format = Format::Fixed;
  uint8_t rd = 0;  // destination; for stores the register stored; for SCC the destination
  uint8_t rs1 = 0; // first source; base register for memory operations; BRR base (always 0)
  uint8_t rs2 = 0; // second source (RR, RRM; 0 for RRM with mode Plain)
  Cond cond = Cond::T;      // RR (including SELECT), BR, BRR, SCC
  bool set_flags = false;   // the F bit
  bool high = false;        // RI: the H bit (for display; `imm` is already placed; for
                            // shifts it is what tells SL_I from SA_I)
  AddrMode mode = AddrMode::Offset; // memory operations
  AluOp mem_op = AluOp::Add;        // RRM address arithmetic: ea = Rs1 mem_op Rs2
  Width width = Width::Word;
  bool zero_ext = false; // part-word loads
  uint32_t imm = 0;      // see the opcode comments; RM/SPLS: sign-extended offset (0 for
                         // mode Plain)
  uint32_t word = 0;     // the raw encoding

  bool is_load() const { return op == Opcode::LOAD || op == Opcode::LDADDR; }
  bool is_store() const { return op == Opcode::STORE || op == Opcode::STADDR; }
  bool is_branch() const { return op == Opcode::BR || op == Opcode::BRR; }
};

// Decodes one big-endian instruction word. Returns nullopt exactly for the words that
// LLVM 14's Lanai MCDisassembler rejects (tested differentially in tests/isa/).
std::optional<Inst> decode(uint32_t word);

// LLVM's MCInstPrinter text for a decoded word: byte for byte what printInst produces
// with the leading tab trimmed, e.g. "add\t%r1, 0x10, %r2". Works from the Inst's fields
// (the raw `word` is consulted only for Fixed), so hand-built Insts print too. One class of
// words has no LLVM text: RRM with BBB=111 and JJJJJ bit 2 set, which LLVM decodes but
// crashes printing; we print them like their bit-2-clear twins (docs/isa.md).
std::string disassemble(const Inst& inst);

// Convenience: decode + disassemble, "<unknown>" for words LLVM rejects.
std::string disassemble(uint32_t word);

// LLVM's register names: "r0".."r31" except the named ones ("pc", "sp", "fp", "rv",
// "rr1", "rr2", "rca"), without the '%'. Register 3 is plain "r3".
std::string_view reg_name(unsigned reg);

// LLVM's spelling, in Cond order: "t", "f", "ugt", "ule", "ult", "uge", "ne", "eq", "vc",
// "vs", "pl", "mi", "ge", "lt", "gt", "le".
std::string_view cond_name(Cond c);

// The enumerator's name ("ADD_I", ..., "NOP"), from the table in isa/formats.h.
std::string_view opcode_name(Opcode op);

// Instruction-level register usage, for the interpreter's load-use interlock and for
// tools: a bit per general register read / written by the instruction (r0/r1 included as
// read, and as written when they are the destination). Branches (BR, BRR) write PC; a
// write-back addressing mode writes the base register; RRM in mode Plain does not read
// rs2. Fixed words (nop, log_*) use nothing. The flags are not a general register: see
// reads_flags / writes_flags.
uint32_t regs_read(const Inst& inst);
uint32_t regs_written(const Inst& inst);

// Whether the outcome depends on the flags: a condition other than t/f (RR, SELECT, BR,
// BRR, SCC), addc/subb (also as an RRM address op), and RR logical operations with F set
// (they leave C as it was).
bool reads_flags(const Inst& inst);
// Whether the instruction sets the flags (the F bit).
bool writes_flags(const Inst& inst);

} // namespace lanaikit::isa
