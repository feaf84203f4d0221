// Unit tests of the decoded fields (what the interpreter relies on) and of register usage.
// Text is covered by the differential test against LLVM (llvm_diff_test.cpp).
#include "isa/formats.h"
#include "isa/inst.h"

#include <gtest/gtest.h>

namespace lanaikit::isa {
namespace {

Inst dec(uint32_t word) {
  const auto inst = decode(word);
  EXPECT_TRUE(inst.has_value()) << std::hex << word;
  return inst.value_or(Inst{});
}

constexpr uint32_t bit(unsigned r) { return 1u << r; }

TEST(IsaDecode, RiPlacesTheConstant) {
  Inst i = dec(0x00c48001); // add %r17, 0x8001, %r1
  EXPECT_EQ(i.op, Opcode::ADD_I);
  EXPECT_EQ(i.format, Format::RI);
  EXPECT_EQ(i.rd, 1);
  EXPECT_EQ(i.rs1, 17);
  EXPECT_FALSE(i.set_flags);
  EXPECT_FALSE(i.high);
  EXPECT_EQ(i.imm, 0x8001u);

  i = dec(0x00c78001); // add.f %r17, 0x80010000, %r1
  EXPECT_TRUE(i.set_flags);
  EXPECT_TRUE(i.high);
  EXPECT_EQ(i.imm, 0x80010000u);
}

TEST(IsaDecode, RiAndFillsTheOtherHalfWithOnes) {
  EXPECT_EQ(dec(0x40c48001).imm, 0xffff8001u); // low half given
  EXPECT_EQ(dec(0x40c58001).imm, 0x8001ffffu); // high half given
  EXPECT_EQ(dec(0x40c48001).op, Opcode::AND_I);
  // The other logical operations do not fill.
  EXPECT_EQ(dec(0x50c48001).imm, 0x8001u);
  EXPECT_EQ(dec(0x60c58001).imm, 0x80010000u);
}

TEST(IsaDecode, RiShiftAmountIsSignedAndHPicksTheKind) {
  Inst i = dec(0x7000ffff); // sh %r0, -1, %r0
  EXPECT_EQ(i.op, Opcode::SL_I);
  EXPECT_EQ(int32_t(i.imm), -1);
  i = dec(0x70010001); // sha %r0, 1, %r0
  EXPECT_EQ(i.op, Opcode::SA_I);
  EXPECT_EQ(int32_t(i.imm), 1);
  EXPECT_EQ(int32_t(dec(0x70c48001).imm), -0x7fff);
}

TEST(IsaDecode, FixedWords) {
  for (uint32_t w = 1; w <= 6; ++w) {
    const Inst i = dec(w);
    EXPECT_EQ(i.op, Opcode::NOP);
    EXPECT_EQ(i.format, Format::Fixed);
    EXPECT_EQ(regs_read(i), 0u);
    EXPECT_EQ(regs_written(i), 0u);
  }
  EXPECT_EQ(dec(0).op, Opcode::ADD_I);
  EXPECT_EQ(dec(7).op, Opcode::ADD_I);
}

TEST(IsaDecode, RrFieldsAndCondition) {
  const Inst i = dec(0xc0c58007); // add.le %r17, %r16, %r1: DDD=011 in bits 2..0, I=1
  EXPECT_EQ(i.op, Opcode::ADD_R);
  EXPECT_EQ(i.format, Format::RR);
  EXPECT_EQ(i.rd, 1);
  EXPECT_EQ(i.rs1, 17);
  EXPECT_EQ(i.rs2, 16);
  EXPECT_EQ(i.cond, Cond::LE);
  EXPECT_EQ(dec(0xc10c0780).op, Opcode::SHL_R);
  EXPECT_EQ(dec(0xc10c07c0).op, Opcode::SRA_R);
  EXPECT_EQ(dec(0xc10c0702).op, Opcode::SELECT);
  EXPECT_EQ(dec(0xc10c0702).cond, Cond::CC);
  EXPECT_FALSE(decode(0xc10e0700)); // select with F
  EXPECT_FALSE(decode(0xc0c48508)); // JJJJJ != 0 outside BBB=111
  // An indirect jump is an OR into pc.
  const Inst j = dec(0xc1048505); // "bpl %r1 add %r16"
  EXPECT_EQ(j.op, Opcode::OR_R);
  EXPECT_EQ(j.rd, PC);
  EXPECT_EQ(j.cond, Cond::PL);
}

TEST(IsaDecode, RmModesAndOffsets) {
  Inst i = dec(0x80c6fffc); // ld -4[%r17], %r1
  EXPECT_EQ(i.op, Opcode::LOAD);
  EXPECT_EQ(i.format, Format::RM);
  EXPECT_EQ(i.mode, AddrMode::Offset);
  EXPECT_EQ(int32_t(i.imm), -4);
  EXPECT_EQ(i.width, Width::Word);
  EXPECT_EQ(dec(0x80c50004).mode, AddrMode::PostMod);
  EXPECT_EQ(dec(0x80c70004).mode, AddrMode::PreMod);
  i = dec(0x80c4fffc); // PQ=00: ea = Rs1, the offset is dropped
  EXPECT_EQ(i.mode, AddrMode::Plain);
  EXPECT_EQ(i.imm, 0u);
  i = dec(0x90c7fffc); // st %r1, [--%r17]
  EXPECT_EQ(i.op, Opcode::STORE);
  EXPECT_EQ(i.rd, 1);
  EXPECT_EQ(i.rs1, 17);
  EXPECT_EQ(int32_t(i.imm), -4);
  EXPECT_EQ(i.mode, AddrMode::PreMod);
}

TEST(IsaDecode, SplsModesWidthsAndOffsets) {
  Inst i = dec(0xf0c70bff); // ld.h -1[%r17], %r1
  EXPECT_EQ(i.format, Format::SPLS);
  EXPECT_EQ(i.op, Opcode::LOAD);
  EXPECT_EQ(i.width, Width::Half);
  EXPECT_FALSE(i.zero_ext);
  EXPECT_EQ(i.mode, AddrMode::Offset);
  EXPECT_EQ(int32_t(i.imm), -1);
  EXPECT_EQ(int32_t(dec(0xf0c70a00).imm), -512);
  EXPECT_EQ(dec(0xf0c703ff).mode, AddrMode::Plain);
  EXPECT_EQ(dec(0xf0c703ff).imm, 0u);
  EXPECT_EQ(dec(0xf0c707fe).mode, AddrMode::PostMod);
  EXPECT_EQ(dec(0xf0c70c02).mode, AddrMode::PreMod);
  i = dec(0xf0c75000); // uld.b
  EXPECT_EQ(i.width, Width::Byte);
  EXPECT_TRUE(i.zero_ext);
  i = dec(0xf0c767ff); // st.b %r1, [%r17--]
  EXPECT_EQ(i.op, Opcode::STORE);
  EXPECT_EQ(i.width, Width::Byte);
  EXPECT_EQ(i.mode, AddrMode::PostMod);
  EXPECT_EQ(int32_t(i.imm), -1);
  EXPECT_FALSE(decode(0xf0c73000)); // zero-extending store
  EXPECT_FALSE(decode(0xf0c78000)); // bits 17..15 = 111
}

TEST(IsaDecode, RrmAddressOpWidthAndExtension) {
  Inst i = dec(0xa0c78202); // ld [*%r17 sub %r16], %r1
  EXPECT_EQ(i.format, Format::RRM);
  EXPECT_EQ(i.op, Opcode::LOAD);
  EXPECT_EQ(i.mem_op, AluOp::Sub);
  EXPECT_EQ(i.mode, AddrMode::PreMod);
  EXPECT_EQ(i.rs2, 16);
  EXPECT_EQ(i.width, Width::Word);
  EXPECT_EQ(dec(0xa0c78702).mem_op, AluOp::Shl);
  EXPECT_EQ(dec(0xa0c78742).mem_op, AluOp::Sra);
  i = dec(0xa0c48001); // uld.h, PQ=00
  EXPECT_EQ(i.width, Width::Half);
  EXPECT_TRUE(i.zero_ext);
  EXPECT_EQ(i.mode, AddrMode::Plain);
  EXPECT_EQ(i.rs2, 0); // as LLVM: %r0
  EXPECT_EQ(dec(0xa0c48004).width, Width::Byte);
  EXPECT_FALSE(decode(0xa0c48006));
  EXPECT_FALSE(decode(0xb0c48003)); // zero-extending store
}

TEST(IsaDecode, Branches) {
  Inst i = dec(0xe1fffffc); // bt 0x1fffffc
  EXPECT_EQ(i.op, Opcode::BR);
  EXPECT_EQ(i.cond, Cond::T);
  EXPECT_EQ(i.imm, 0x1fffffcu);
  EXPECT_EQ(dec(0xee000001).cond, Cond::LE);
  EXPECT_EQ(dec(0xe2000000).cond, Cond::HI);

  i = dec(0xe100fffe); // bt.r with constant 0x3fff: offset -4
  EXPECT_EQ(i.op, Opcode::BRR);
  EXPECT_EQ(i.rs1, 0);
  EXPECT_EQ(int32_t(i.imm), -4);
  EXPECT_EQ(int32_t(dec(0xe1008002).imm), -0x8000);
  EXPECT_EQ(int32_t(dec(0xe1007ffe).imm), 0x7ffc);
  EXPECT_EQ(dec(0xe1000003).cond, Cond::F);
  EXPECT_FALSE(decode(0xe1040002)); // Rs1 != 0

  i = dec(0xe00c0003); // sf %r3
  EXPECT_EQ(i.op, Opcode::SCC);
  EXPECT_EQ(i.rd, 3);
  EXPECT_EQ(i.rs1, 0);
  EXPECT_EQ(i.cond, Cond::F);
}

TEST(IsaDecode, AbsoluteAndImmediate) {
  Inst i = dec(0xf0c5fffc); // st %r1, [0x11fffc]
  EXPECT_EQ(i.op, Opcode::STADDR);
  EXPECT_EQ(i.rd, 1);
  EXPECT_EQ(i.imm, 0x11fffcu);
  i = dec(0xf0c6ffff); // mov 0x11ffff, %r1
  EXPECT_EQ(i.op, Opcode::SLI);
  EXPECT_EQ(i.imm, 0x11ffffu);
  EXPECT_EQ(dec(0xf0c40000).op, Opcode::LDADDR);
}

TEST(IsaDecode, Special) {
  const Inst i = dec(0xd0c40002);
  EXPECT_EQ(i.op, Opcode::LEADZ);
  EXPECT_EQ(i.rd, 1);
  EXPECT_EQ(i.rs1, 17);
  EXPECT_FALSE(decode(0xd0c60001));
}

TEST(IsaRegs, AluAndFlags) {
  Inst i = dec(0x00c48001); // add %r17, 0x8001, %r1
  EXPECT_EQ(regs_read(i), bit(17));
  EXPECT_EQ(regs_written(i), bit(1));
  EXPECT_FALSE(reads_flags(i));
  EXPECT_FALSE(writes_flags(i));
  i = dec(0x10c68001); // addc.f: reads carry, writes flags
  EXPECT_EQ(regs_read(i), bit(17));
  EXPECT_EQ(regs_written(i), bit(1));
  EXPECT_TRUE(reads_flags(i));
  EXPECT_TRUE(writes_flags(i));
  i = dec(0x20c68001); // sub.f: sets all four flags, reads none
  EXPECT_FALSE(reads_flags(i));
  EXPECT_TRUE(writes_flags(i));
  i = dec(0xc0c58007); // add.le %r17, %r16, %r1
  EXPECT_EQ(regs_read(i), bit(17) | bit(16));
  EXPECT_EQ(regs_written(i), bit(1));
  EXPECT_TRUE(reads_flags(i));
  i = dec(0xc0c48000); // add %r17, %r16, %r1 (unconditional)
  EXPECT_EQ(regs_read(i), bit(17) | bit(16));
  i = dec(0x00000000); // mov 0, %r0: r0 counts
  EXPECT_EQ(regs_read(i), bit(0));
  EXPECT_EQ(regs_written(i), bit(0));
}

TEST(IsaRegs, Memory) {
  Inst i = dec(0x90c7fffc); // st %r1, [--%r17]
  EXPECT_EQ(regs_read(i), bit(1) | bit(17));
  EXPECT_EQ(regs_written(i), bit(17));
  i = dec(0x80c6fffc); // ld -4[%r17], %r1
  EXPECT_EQ(regs_read(i), bit(17));
  EXPECT_EQ(regs_written(i), bit(1));
  i = dec(0xa0c58002); // ld [%r17* add %r16], %r1
  EXPECT_EQ(regs_read(i), bit(17) | bit(16));
  EXPECT_EQ(regs_written(i), bit(1) | bit(17));
  i = dec(0xa0c48002); // ld [%r17 add %r0], %r1 (PQ=00; encoded Rs2 = r16 is not read)
  EXPECT_EQ(regs_read(i), bit(17));
  i = dec(0xa0c78102); // ld [*%r17 addc %r16], %r1
  EXPECT_EQ(regs_read(i), bit(17) | bit(16));
  EXPECT_TRUE(reads_flags(i));
  i = dec(0xf0c5fffc); // st %r1, [0x11fffc]
  EXPECT_EQ(regs_read(i), bit(1));
  EXPECT_EQ(regs_written(i), 0u);
  i = dec(0xf0c40000); // ld [0x110000], %r1
  EXPECT_EQ(regs_read(i), 0u);
  EXPECT_EQ(regs_written(i), bit(1));
}

TEST(IsaRegs, ControlFlow) {
  Inst i = dec(0xe0000004); // bt 0x4
  EXPECT_EQ(regs_read(i), 0u);
  EXPECT_EQ(regs_written(i), bit(PC));
  i = dec(0xee000001); // ble
  EXPECT_EQ(regs_read(i), 0u);
  EXPECT_TRUE(reads_flags(i));
  i = dec(0xe1000003); // bf.r: r0 base
  EXPECT_EQ(regs_read(i), bit(0));
  EXPECT_EQ(regs_written(i), bit(PC));
  i = dec(0xe00c0003);         // sf %r3
  EXPECT_EQ(regs_read(i), 0u);
  EXPECT_EQ(regs_written(i), bit(3));
  i = dec(0xe40c0002); // s<cond 0100 = ult> %r3
  EXPECT_EQ(regs_read(i), 0u);
  EXPECT_TRUE(reads_flags(i));
  i = dec(0xc1008500); // bt %r16 (or %r0, %r16, %pc)
  EXPECT_EQ(regs_read(i), bit(0) | bit(16));
  EXPECT_EQ(regs_written(i), bit(PC));
  i = dec(0xc10c0702); // sel.ult %r3, %r0, %pc
  EXPECT_EQ(regs_read(i), bit(3) | bit(0));
  EXPECT_TRUE(reads_flags(i));
}

TEST(IsaTables, NamesAndHandBuiltInsts) {
  EXPECT_EQ(reg_name(3), "r3");
  EXPECT_EQ(reg_name(15), "rca");
  EXPECT_EQ(cond_name(Cond::HI), "ugt");
  EXPECT_EQ(cond_name(Cond::LE), "le");
  EXPECT_EQ(opcode_name(Opcode::SELECT), "SELECT");
  EXPECT_EQ(opcode_name(Opcode::NOP), "NOP");
  // disassemble() works from fields, so a hand-built Inst prints.
  Inst i;
  i.op = Opcode::LOAD;
  i.format = Format::SPLS;
  i.rd = 1;
  i.rs1 = 17;
  i.width = Width::Byte;
  i.zero_ext = true;
  i.mode = AddrMode::PreMod;
  i.imm = 1;
  EXPECT_EQ(disassemble(i), "uld.b\t[++%r17], %r1");
  EXPECT_EQ(disassemble(0xa0c48006u), "<unknown>");
}

} // namespace
} // namespace lanaikit::isa
