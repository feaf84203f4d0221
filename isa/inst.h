// The Lanai instruction set as LLVM 14 defines it (llvm/lib/Target/Lanai/*.td).
//
// This header is the contract between the decoder (isa/decode.cpp), the disassembler
// (isa/disasm.cpp) and the interpreter (vm/). A decoded word is an `Inst`: an opcode that
// names one behaviour, plus operands already extracted and extended, so that nothing
// downstream looks at encoding bits again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace lanaikit::isa {

// Register numbers with a fixed role (LanaiRegisterInfo.td). r0 reads 0, r1 reads
// 0xFFFFFFFF; writes to either are discarded.
enum Reg : uint8_t {
  R0 = 0,
  R1 = 1,
  PC = 2,  // program counter; writing it jumps (delay slots, see vm/cpu.h)
  SW = 3,  // status word; the flags live in its low bits (vm/cpu.h documents the layout)
  SP = 4,
  FP = 5,
  RV = 8,   // return value
  RR1 = 10, // second return value register
  RR2 = 11,
  RCA = 15, // return address
};

// The sixteen conditions of the DDDI field (InstBR comment in LanaiInstrFormats.td).
enum class Cond : uint8_t { T, F, HI, LS, CC, CS, NE, EQ, VC, VS, PL, MI, GE, LT, GT, LE };

// The register-register / memory address ALU operation (BBB, with JJJJJ for shifts).
enum class AluOp : uint8_t { Add, Addc, Sub, Subb, And, Or, Xor, Shl, Sra };

// Memory access width for loads and stores.
enum class Width : uint8_t { Word, Half, Byte };

// The P/Q bits of RM, RRM and SPLS (InstRM comment):
//   Plain   (PQ=00): ea = Rs1
//   PostMod (PQ=01): ea = Rs1,          Rs1 <- Rs1 op operand
//   Offset  (PQ=10): ea = Rs1 op operand
//   PreMod  (PQ=11): ea = Rs1 op operand, Rs1 <- ea
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
  // RR: if cond: Rd <- Rs1 op Rs2.
  ADD_R, ADDC_R, SUB_R, SUBB_R, AND_R, OR_R, XOR_R,
  SHL_R, // logical shift by signed Rs2 (JJJJJ=10000)
  SRA_R, // arithmetic shift by signed Rs2 (JJJJJ=11000)
  SELECT, // Rd <- cond ? Rs1 : Rs2
  // RM (word), RRM (any width), SPLS (half/byte): loads and stores.
  LOAD,  // Rd <- mem[ea], width/zero_ext apply
  STORE, // mem[ea] <- Rd, width applies
  // SLS: absolute word load/store at the zero-extended 21-bit address in `imm`.
  LDADDR, STADDR,
  // SLI: Rd <- imm (21-bit, zero-extended).
  SLI,
  // BR: if cond: pc <- imm (absolute), one delay slot.
  BR,
  // BRR: if cond: pc <- Rs1 + imm (imm = sign-extended constant*4). LLVM 14 only emits Rs1=0
  // but decodes what it decodes.
  BRR,
  // SCC: Rs1 <- cond ? 1 : 0. The destination is in `rd` for uniformity.
  SCC,
  // Special: Rd <- f(Rs1).
  POPC, LEADZ, TRAILZ,
  // Exact words LLVM gives names to (0x00000001 "nop", 0x00000002..6 "log_0".."log_4").
  // All are no-ops here (they encode `add %r0, N, %r0`).
  NOP,
  Count_
};

enum class Format : uint8_t { RI, RR, RM, RRM, BR, BRR, SCC, SLS, SLI, SPLS, Special, Fixed };

struct Inst {
  Opcode op = Opcode::NOP;
  Format format = Format::Fixed;
  uint8_t rd = 0;  // destination; for stores the register stored; for SCC the destination
  uint8_t rs1 = 0; // first source; base register for memory operations
  uint8_t rs2 = 0; // second source (RR, RRM)
  Cond cond = Cond::T;      // RR (including SELECT), BR, BRR, SCC
  bool set_flags = false;   // the F bit
  bool high = false;        // RI: the H bit (for display; `imm` is already placed)
  AddrMode mode = AddrMode::Offset; // memory operations
  AluOp mem_op = AluOp::Add;        // RRM address arithmetic: ea = Rs1 mem_op Rs2
  Width width = Width::Word;
  bool zero_ext = false; // part-word loads
  uint32_t imm = 0;      // see the opcode comments; RM/SPLS: sign-extended offset
  uint32_t word = 0;     // the raw encoding

  bool is_load() const { return op == Opcode::LOAD || op == Opcode::LDADDR; }
  bool is_store() const { return op == Opcode::STORE || op == Opcode::STADDR; }
  bool is_branch() const { return op == Opcode::BR || op == Opcode::BRR; }
};

// Decodes one big-endian instruction word. Returns nullopt exactly for the words that
// LLVM 14's Lanai MCDisassembler rejects (tested differentially in tests/isa_llvm_*).
std::optional<Inst> decode(uint32_t word);

// LLVM's MCInstPrinter text for a decoded word: byte for byte what printInst produces
// with the leading tab trimmed, e.g. "add\t%r1, 0x10, %r2".
std::string disassemble(const Inst& inst);

// Convenience: decode + disassemble, "<unknown>" for words LLVM rejects.
std::string disassemble(uint32_t word);

// LLVM's register names: "r0".."r31" except the named ones ("pc", "sw", "sp", "fp", "rv",
// "rr1", "rr2", "rca"), without the '%'.
std::string_view reg_name(unsigned reg);

// "t", "f", "hi", "ls", "cc", "cs", "ne", "eq", "vc", "vs", "pl", "mi", "ge", "lt", "gt", "le"
std::string_view cond_name(Cond c);

// Instruction-level register usage, for the interpreter's load-use interlock and for
// tools: a bit per register read / written by the instruction (r0/r1 included as read).
uint32_t regs_read(const Inst& inst);
uint32_t regs_written(const Inst& inst);

} // namespace lanaikit::isa
