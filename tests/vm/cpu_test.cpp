// Per-instruction semantics of the Lanai core. Every program runs on the reference stepper,
// the fast interpreter and the fast interpreter one instruction per call; run_all() checks
// the three agree, and the tests check the values against the .td's definitions.
#include "encode.h"
#include "machine.h"

#include "isa/inst.h"
#include "vm/semantics.h"

using namespace enc;
using lanaikit::vm::FaultKind;
using lanaikit::vm::kFlagC;
using lanaikit::vm::kFlagN;
using lanaikit::vm::kFlagV;
using lanaikit::vm::kFlagZ;

namespace {
constexpr uint32_t SP = 4, FP = 5, RV = 8, R9 = 9, R10 = 10, R11 = 11, R12 = 12, RCA = 15;
constexpr uint32_t PC = 2;

// Appends "exit with r8" so programs halt cleanly.
std::vector<uint32_t> prog(std::vector<uint32_t> words) {
  words.push_back(exit_with(RV));
  words.push_back(kNop);
  return words;
}
} // namespace

TEST(CpuRegisters, R0ReadsZeroAndR1ReadsAllOnesWritesDiscarded) {
  auto m = run_all(prog({
      ri(ADD, 0, 0, 5),     // r0 <- 5 (discarded)
      ri(ADD, 1, 0, 5),     // r1 <- 5 (discarded)
      rr(ADD, R9, 0, 1),    // r9 <- r0 + r1
      rr(ADD, RV, 0, 0),
  }));
  ASSERT_TRUE(m->cpu.halted());
  EXPECT_EQ(m->cpu.reg(0), 0u);
  EXPECT_EQ(m->cpu.reg(1), 0xFFFFFFFFu);
  EXPECT_EQ(m->cpu.reg(R9), 0xFFFFFFFFu);
}

TEST(CpuAlu, ImmediateHighHalfAndAndFill) {
  auto m = run_all(prog({
      ri(ADD, R9, 0, 0x1234, false, true),  // r9 = 0x12340000
      ri(OR, R9, R9, 0x5678),               // r9 = 0x12345678
      ri(AND, R10, R9, 0x00FF),             // and lo: high half of operand is 0xFFFF
      ri(AND, R11, R9, 0xFF00, false, true),// and hi: low half of operand is 0xFFFF
      ri(XOR, R12, R9, 0xFFFF, false, true),
  }));
  EXPECT_EQ(m->cpu.reg(R9), 0x12345678u);
  EXPECT_EQ(m->cpu.reg(R10), 0x12340078u);
  EXPECT_EQ(m->cpu.reg(R11), 0x12005678u);
  EXPECT_EQ(m->cpu.reg(R12), 0xEDCB5678u);
}

TEST(CpuAlu, AddSubFlags) {
  // 0x7FFFFFFF + 1 overflows (V, N), no carry.
  auto m = run_all(prog({ri(ADD, R9, 0, 1, true)}), 100, {{R9, 0}});
  EXPECT_EQ(m->cpu.sw() & 0xF, 0u);
  m = run_all(prog({ri(ADD, R9, R9, 1, true)}), 100, {{R9, 0x7FFFFFFF}});
  EXPECT_EQ(m->cpu.sw() & 0xF, kFlagV | kFlagN);
  // 0xFFFFFFFF + 1 = 0 with carry, zero.
  m = run_all(prog({ri(ADD, R9, R9, 1, true)}), 100, {{R9, 0xFFFFFFFF}});
  EXPECT_EQ(m->cpu.sw() & 0xF, kFlagZ | kFlagC);
  // sub: C set means no borrow (a + ~b + 1 carries); 5 - 7 borrows.
  m = run_all(prog({rr(SUB, 0, R9, R10, true)}), 100, {{R9, 5}, {R10, 7}});
  EXPECT_EQ(m->cpu.sw() & 0xF, kFlagN);
  m = run_all(prog({rr(SUB, 0, R9, R10, true)}), 100, {{R9, 7}, {R10, 5}});
  EXPECT_EQ(m->cpu.sw() & 0xF, kFlagC);
  m = run_all(prog({rr(SUB, 0, R9, R10, true)}), 100, {{R9, 7}, {R10, 7}});
  EXPECT_EQ(m->cpu.sw() & 0xF, kFlagZ | kFlagC);
  // 0x80000000 - 1 overflows.
  m = run_all(prog({ri(SUB, R9, R9, 1, true)}), 100, {{R9, 0x80000000}});
  EXPECT_EQ(m->cpu.sw() & 0xF, kFlagV | kFlagC);
}

TEST(CpuAlu, AddcSubbChainSixtyFourBits) {
  // (r9:r10) + (r11:r12) with add.f on the low words and addc on the high words.
  auto m = run_all(prog({
                       rr(ADD, R10, R10, R12, true),
                       rr(ADDC, R9, R9, R11),
                   }),
                   100, {{R9, 0x00000001}, {R10, 0xFFFFFFFF}, {R11, 0x00000002}, {R12, 0x00000001}});
  EXPECT_EQ(m->cpu.reg(R10), 0u);
  EXPECT_EQ(m->cpu.reg(R9), 4u);
  // 64-bit subtract 0x1_00000000 - 1 with sub.f/subb.
  m = run_all(prog({
                  rr(SUB, R10, R10, R12, true),
                  rr(SUBB, R9, R9, R11, true),
              }),
              100, {{R9, 1}, {R10, 0}, {R11, 0}, {R12, 1}});
  EXPECT_EQ(m->cpu.reg(R10), 0xFFFFFFFFu);
  EXPECT_EQ(m->cpu.reg(R9), 0u);
  EXPECT_EQ(m->cpu.sw() & 0xF, kFlagZ | kFlagC);
}

TEST(CpuAlu, LogicalFlagsRiClearsCarryRrKeepsIt) {
  // Set C with an overflowing add, then and.f: RI clears C, RR leaves it.
  auto m = run_all(prog({ri(ADD, 0, 1, 1, true), ri(AND, R9, R9, 0, true)}), 100, {{R9, 5}});
  EXPECT_EQ(m->cpu.sw() & 0xF, kFlagZ);
  m = run_all(prog({ri(ADD, 0, 1, 1, true), rr(AND, R9, R9, 0, true)}), 100, {{R9, 5}});
  EXPECT_EQ(m->cpu.sw() & 0xF, kFlagZ | kFlagC);
}

TEST(CpuAlu, ShiftsBySignedAmounts) {
  auto m = run_all(prog({
                       ri(SH, R10, R9, 4),                    // sh  r9, 4  (left)
                       ri(SH, R11, R9, uint32_t(-4) & 0xFFFF), // sh  r9, -4 (logical right)
                       ri(SH, R12, R9, uint32_t(-4) & 0xFFFF, false, true), // sha r9, -4
                   }),
                   100, {{R9, 0x80000010}});
  EXPECT_EQ(m->cpu.reg(R10), 0x00000100u);
  EXPECT_EQ(m->cpu.reg(R11), 0x08000001u);
  EXPECT_EQ(m->cpu.reg(R12), 0xF8000001u);
  // Register shifts, including amounts outside -31..31 (all bits out).
  m = run_all(prog({shl_r(R10, R9, R11), sha_r(R12, R9, 13), shl_r(13, R9, 14)}), 100,
              {{R9, 0x80000010}, {R11, uint32_t(-1)}, {13, uint32_t(-40)}, {14, 40}});
  EXPECT_EQ(m->cpu.reg(R10), 0x40000008u);
  EXPECT_EQ(m->cpu.reg(R12), 0xFFFFFFFFu);
  EXPECT_EQ(m->cpu.reg(13), 0u);
  // Left shift carry is the last bit shifted out; right shifts clear C.
  m = run_all(prog({ri(SH, R10, R9, 1, true)}), 100, {{R9, 0x80000001}});
  EXPECT_EQ(m->cpu.sw() & 0xF, kFlagC);
  m = run_all(prog({ri(ADD, 0, 1, 1, true), ri(SH, R10, R9, 0xFFFF, true)}), 100, {{R9, 1}});
  EXPECT_EQ(m->cpu.sw() & 0xF, kFlagZ);
}

TEST(CpuAlu, SelectSccAndSpecials) {
  auto m = run_all(prog({
                       rr(SUB, 0, R9, R10, true), // compare 3 with 5
                       sel(LT, R11, R9, R10),     // min
                       sel(GT, R12, R9, R10),     // r10
                       scc(LT, 13),
                       scc(GE, 14),
                       popc(16, 17),
                       leadz(18, 17),
                       trailz(19, 17),
                       trailz(20, 0),
                   }),
                   100, {{R9, 3}, {R10, 5}, {17, 0x00F0F000}});
  EXPECT_EQ(m->cpu.reg(R11), 3u);
  EXPECT_EQ(m->cpu.reg(R12), 5u);
  EXPECT_EQ(m->cpu.reg(13), 1u);
  EXPECT_EQ(m->cpu.reg(14), 0u);
  EXPECT_EQ(m->cpu.reg(16), 8u);
  EXPECT_EQ(m->cpu.reg(18), 8u);
  EXPECT_EQ(m->cpu.reg(19), 12u);
  EXPECT_EQ(m->cpu.reg(20), 32u);
}

TEST(CpuAlu, ConditionalRegisterRegisterExecutesOnlyWhenTrue) {
  auto m = run_all(prog({
                       rr(SUB, 0, R9, R9, true),   // Z set
                       rr(ADD, R10, R9, R9, false, NE), // not executed
                       rr(ADD, R11, R9, R9, false, EQ), // executed
                   }),
                   100, {{R9, 21}, {R10, 7}});
  EXPECT_EQ(m->cpu.reg(R10), 7u);
  EXPECT_EQ(m->cpu.reg(R11), 42u);
}

// A flag-setting RR operation whose condition fails keeps Rd and sets Z/N from it (V
// cleared, C kept): what LLVM's compare elimination assumes (docs/vm.md, "Flags").
TEST(CpuAlu, PredicatedOffFlagSettingOperationDescribesTheKeptRegister) {
  for (uint32_t kept : {0u, 5u, 0x80000000u}) {
    auto m = run_all(prog({
                         rr(SUB, 0, R9, R9, true),        // Z set, C set (no borrow)
                         rr(OR, R10, R11, R12, true, NE), // not executed: R10 kept
                         scc(EQ, 13),               // Z from R10
                         scc(MI, 14),               // N from R10
                         scc(CS, 16),               // C unchanged
                     }),
                     100, {{R9, 3}, {R10, kept}, {R11, 0xF0}, {R12, 0x0F}});
    EXPECT_EQ(m->cpu.reg(R10), kept);
    EXPECT_EQ(m->cpu.reg(13), kept == 0 ? 1u : 0u) << kept;
    EXPECT_EQ(m->cpu.reg(14), kept >> 31) << kept;
    EXPECT_EQ(m->cpu.reg(16), 1u) << kept;
  }
}

TEST(CpuAlu, ConditionMasksFollowTheDdiTable) {
  using lanaikit::vm::cond_holds;
  for (uint32_t f = 0; f < 16; ++f) {
    const bool C = f & kFlagC, V = f & kFlagV, N = f & kFlagN, Z = f & kFlagZ;
    const bool expect[16] = {true, false, C && !Z, !C || Z, !C, C, !Z, Z, !V, V, !N, N,
                             N == V, N != V, N == V && !Z, Z || N != V};
    for (uint32_t c = 0; c < 16; ++c)
      EXPECT_EQ(cond_holds(lanaikit::isa::Cond(c), f), expect[c]) << "flags " << f << " cond " << c;
  }
}

TEST(CpuAlu, ComparisonsThroughSubFAndScc) {
  // sub.f a, b then s<cond> for every condition, against C's comparisons.
  const std::pair<uint32_t, uint32_t> pairs[] = {
      {0, 0}, {1, 2}, {2, 1}, {0xFFFFFFFF, 1}, {1, 0xFFFFFFFF}, {0x80000000, 1},
      {0x7FFFFFFF, 0xFFFFFFFF}, {0x80000000, 0x7FFFFFFF}, {5, 5}};
  for (auto [a, b] : pairs) {
    std::vector<uint32_t> words;
    for (uint32_t c = 0; c < 16; ++c) {
      words.push_back(rr(SUB, 0, R9, R10, true));
      words.push_back(scc(Cond(c), R11));
      words.push_back(st(R11, 0, int32_t(0x4000 + 4 * c)));
    }
    auto m = run_all(prog(words), 1000, {{R9, a}, {R10, b}});
    const int32_t sa = int32_t(a), sb = int32_t(b);
    const bool overflow = ((a ^ b) & (a ^ (a - b))) >> 31;
    const bool expect[16] = {true,   false,   a > b,   a <= b,  a < b,    a >= b,
                             a != b, a == b,  !overflow, overflow, int32_t(a - b) >= 0,
                             int32_t(a - b) < 0, sa >= sb, sa < sb, sa > sb, sa <= sb};
    for (uint32_t c = 0; c < 16; ++c)
      EXPECT_EQ(m->sram.read32(0x4000 + 4 * c), expect[c] ? 1u : 0u)
          << std::hex << a << " vs " << b << " cond " << std::dec << c;
  }
}

TEST(CpuRegisters, R3IsAnOrdinaryRegisterApartFromTheFlags) {
  auto m = run_all(prog({ri(ADD, 3, 0, 77), rr(SUB, 0, 3, 3, true), ri(ADD, R9, 3, 0)}));
  EXPECT_EQ(m->cpu.reg(R9), 77u);
  EXPECT_EQ(m->cpu.sw() & 0xF, kFlagZ | kFlagC);
}

TEST(CpuMemory, BigEndianWordsAndPartWordLoads) {
  auto m = run_all(prog({st(R9, 0, 0x1000)}), 100, {{R9, 0x8081F2F3}});
  EXPECT_EQ(m->sram.read32(0x1000), 0x8081F2F3u);
  uint8_t bytes[4];
  m->sram.read(0x1000, bytes);
  EXPECT_EQ(bytes[0], 0x80);
  EXPECT_EQ(bytes[3], 0xF3);

  // Part-word loads through RRM (base r9 + index r0) and SPLS (base + 10-bit offset).
  m = run_all(prog({
                  st(R11, R9, 0),
                  rrm(false, 12, R9, 0, 0b00, false), // ld.h   sign-extended
                  rrm(false, 13, R9, 0, 0b00, true),  // uld.h  zero-extended
                  rrm(false, 14, R9, 0, 0b10, false), // ld.b
                  rrm(false, 16, R9, 0, 0b10, true),  // uld.b
                  spls(17, R9, 2, false, false, false), // ld.h 2[r9]
                  spls(18, R9, 3, true, false, true),   // uld.b 3[r9]
                  spls(19, R9, 1, true, false, false),  // ld.b 1[r9]
              }),
              100, {{R9, 0x2000}, {R11, 0x8081F2F3}});
  EXPECT_EQ(m->cpu.reg(12), 0xFFFF8081u);
  EXPECT_EQ(m->cpu.reg(13), 0x00008081u);
  EXPECT_EQ(m->cpu.reg(14), 0xFFFFFF80u);
  EXPECT_EQ(m->cpu.reg(16), 0x00000080u);
  EXPECT_EQ(m->cpu.reg(17), 0xFFFFF2F3u);
  EXPECT_EQ(m->cpu.reg(18), 0x000000F3u);
  EXPECT_EQ(m->cpu.reg(19), 0xFFFFFF81u);
}

TEST(CpuMemory, PartWordStores) {
  auto m = run_all(prog({
                       spls(R11, R9, 1, true, true, false), // st.b r11, 1[r9]
                       spls(R11, R9, 2, false, true, false), // st.h r11, 2[r9]
                       rrm(true, R11, R9, R10, 0b10, false), // st.b r11, [r9 add r10]
                   }),
                   100, {{R9, 0x3000}, {R10, 4}, {R11, 0x12345678}});
  EXPECT_EQ(m->sram.read32(0x3000), 0x00785678u);
  EXPECT_EQ(m->sram.read32(0x3004), 0x78000000u);
}

TEST(CpuMemory, PreAndPostModifyAddressing) {
  auto m = run_all(prog({
                       rm(true, R11, SP, -4, true, true),  // st r11, [--sp]  (pre-modify)
                       rm(true, R12, SP, -4, true, true),
                       rm(false, 13, SP, 4, false, true),  // ld [sp++], r13 (post-modify)
                       rm(false, 14, SP, 4, false, true),
                       rm(false, 16, R9, 0x40, false, false), // PQ=00: ea = r9, offset ignored
                   }),
                   100, {{SP, 0x4000}, {R9, 0x3FF8}, {R11, 11}, {R12, 12}});
  EXPECT_EQ(m->sram.read32(0x3FFC), 11u);
  EXPECT_EQ(m->sram.read32(0x3FF8), 12u);
  EXPECT_EQ(m->cpu.reg(13), 12u);
  EXPECT_EQ(m->cpu.reg(14), 11u);
  EXPECT_EQ(m->cpu.reg(SP), 0x4000u);
  EXPECT_EQ(m->cpu.reg(16), 12u);
}

TEST(CpuMemory, AbsoluteSlsAndSli) {
  auto m = run_all(prog({
                       sli(R9, 0x1ABCD),
                       sls(true, R9, 0x5000),
                       sls(false, R10, 0x5000),
                   }));
  EXPECT_EQ(m->cpu.reg(R9), 0x1ABCDu);
  EXPECT_EQ(m->cpu.reg(R10), 0x1ABCDu);
}

TEST(CpuMemory, NegativeOffsetsFromR0WrapToTheMmioPage) {
  // Output "hi" through PUTC at -4096[%r0]; SRAM_SIZE readable at -4088[%r0].
  auto m = run_all(prog({
      ri(ADD, R9, 0, 'h'), putc_from(R9),
      ri(ADD, R9, 0, 'i'), putc_from(R9),
      ld(R10, 0, -4088),
      ri(ADD, RV, 0, 3),
  }));
  EXPECT_EQ(m->io.output(), "hi");
  EXPECT_EQ(m->cpu.reg(R10), 64u * 1024);
  EXPECT_TRUE(m->cpu.halted());
  EXPECT_EQ(m->io.exit_status(), 3u);
}

TEST(CpuDelaySlots, BranchExecutesItsDelaySlot) {
  auto m = run_all(prog({
      /*0x00*/ bt(0x10),
      /*0x04*/ ri(ADD, R9, 0, 1),  // delay slot: executed
      /*0x08*/ ri(ADD, R10, 0, 1), // skipped
      /*0x0c*/ kNop,
      /*0x10*/ ri(ADD, R11, 0, 1),
  }));
  EXPECT_EQ(m->cpu.reg(R9), 1u);
  EXPECT_EQ(m->cpu.reg(R10), 0u);
  EXPECT_EQ(m->cpu.reg(R11), 1u);
}

TEST(CpuDelaySlots, ConditionalBranchNotTakenFallsThrough) {
  auto m = run_all(prog({
      rr(SUB, 0, R9, R9, true), // Z
      br(NE, 0x14),
      ri(ADD, R10, 0, 1), // delay slot
      ri(ADD, R11, 0, 1), // fall-through
  }), 100, {{R9, 4}});
  EXPECT_EQ(m->cpu.reg(R10), 1u);
  EXPECT_EQ(m->cpu.reg(R11), 1u);
}

TEST(CpuDelaySlots, BranchInABranchDelaySlot) {
  // bt A; bt B: the instruction at A runs as the delay slot of the second branch, then B.
  const uint32_t A = 0x40, B = 0x80;
  std::vector<uint32_t> words(0x100 / 4, kNop);
  words[0] = bt(A);
  words[1] = bt(B);
  words[2] = ri(ADD, R9, 0, 1); // never executed
  words[A / 4] = ri(ADD, R10, 0, 1);      // delay slot of `bt B`
  words[A / 4 + 1] = ri(ADD, R11, 0, 1);  // skipped
  words[B / 4] = ri(ADD, R12, R10, 1);
  words[B / 4 + 1] = exit_with(RV);
  auto m = run_all(words);
  ASSERT_TRUE(m->cpu.halted());
  EXPECT_EQ(m->cpu.reg(R9), 0u);
  EXPECT_EQ(m->cpu.reg(R10), 1u);
  EXPECT_EQ(m->cpu.reg(R11), 0u);
  EXPECT_EQ(m->cpu.reg(R12), 2u);
  EXPECT_EQ(m->cpu.instructions(), 5u); // bt, bt, A, B, exit
}

TEST(CpuDelaySlots, BrrIsRelativeToItsOwnAddress) {
  // b<cc>.r: 0xE | DDD | 1 | - | Rs1=0 | 00 | offset (bits 15..2) | 1 | I.
  auto brr = [](Cond c, int32_t offset) {
    return (0xEu << 28) | ((uint32_t(c) >> 1) << 25) | (1u << 24) | (uint32_t(offset) & 0xFFFC) |
           2u | (c & 1);
  };
  auto m = run_all(prog({
      /*0x00*/ kNop,
      /*0x04*/ brr(T, 0x0c),          // to 0x10
      /*0x08*/ ri(ADD, R9, 0, 1),     // delay slot
      /*0x0c*/ ri(ADD, R10, 0, 1),    // skipped
      /*0x10*/ brr(T, 0x08),          // to 0x18
      /*0x14*/ kNop,
      /*0x18*/ ri(ADD, R11, 0, 1),
  }));
  ASSERT_TRUE(m->cpu.halted()) << m->cpu.fault_report();
  EXPECT_EQ(m->cpu.reg(R9), 1u);
  EXPECT_EQ(m->cpu.reg(R10), 0u);
  EXPECT_EQ(m->cpu.reg(R11), 1u);
}

TEST(CpuDelaySlots, AluWriteToPcHasOneDelaySlot) {
  auto m = run_all(prog({
      /*0x00*/ ri(ADD, PC, R9, 0),   // jump to r9
      /*0x04*/ ri(ADD, R10, 0, 1),   // delay slot
      /*0x08*/ ri(ADD, R11, 0, 1),   // skipped
      /*0x0c*/ ri(ADD, R12, 0, 1),
  }), 100, {{R9, 0x0c}});
  EXPECT_EQ(m->cpu.reg(R10), 1u);
  EXPECT_EQ(m->cpu.reg(R11), 0u);
  EXPECT_EQ(m->cpu.reg(R12), 1u);
}

TEST(CpuDelaySlots, LoadIntoPcHasTwoDelaySlots) {
  auto m = run_all(prog({
      /*0x00*/ st(13, R9, 0),        // the target, 0x14, into memory
      /*0x04*/ ld(PC, R9, 0),
      /*0x08*/ ri(ADD, R10, 0, 1),   // delay slot 1
      /*0x0c*/ ri(ADD, R11, 0, 1),   // delay slot 2
      /*0x10*/ ri(ADD, R12, 0, 1),   // skipped
      /*0x14*/ ri(ADD, 14, 0, 1),
  }), 100, {{R9, 0x100}, {13, 0x14}});
  ASSERT_TRUE(m->cpu.halted()) << m->cpu.fault_report();
  EXPECT_EQ(m->cpu.reg(R10), 1u);
  EXPECT_EQ(m->cpu.reg(R11), 1u);
  EXPECT_EQ(m->cpu.reg(R12), 0u);
  EXPECT_EQ(m->cpu.reg(14), 1u);
}

TEST(CpuDelaySlots, BranchInTheShadowOfALoadIntoPc) {
  // ld [r9], %pc loads T1 = 0x40, so after it pc=0x04 npc=0x08 nnpc=0x40. The branch at 0x04
  // (the load's first delay slot) rewrites npc=0x80 nnpc=0x84: 0x08 runs as its delay slot,
  // then 0x80; T1 is dropped (the later redirect wins, see vm/cpu.h).
  std::vector<uint32_t> words(0x100 / 4, kNop);
  words[0] = ld(PC, R9, 0);
  words[1] = bt(0x80);
  words[2] = ri(ADD, R10, 0, 1);
  words[3] = ri(ADD, R11, 0, 1);
  words[0x40 / 4] = ri(ADD, R12, 0, 1);
  words[0x80 / 4] = ri(ADD, 13, 0, 1);
  words[0x84 / 4] = exit_with(RV);
  auto m = std::make_unique<Machine>();
  m->load(words);
  m->sram.write32(0xF0, 0x40);
  m->cpu.set_reg(R9, 0xF0);
  m->cpu.step_reference(100);
  ASSERT_TRUE(m->cpu.halted()) << m->cpu.fault_report();
  EXPECT_EQ(m->cpu.reg(R10), 1u); // slot 2 of the load = delay slot of the branch
  EXPECT_EQ(m->cpu.reg(R11), 0u);
  EXPECT_EQ(m->cpu.reg(R12), 0u);
  EXPECT_EQ(m->cpu.reg(13), 1u);
  // The fast interpreter agrees (it hands nested control transfers to the reference model).
  auto f = std::make_unique<Machine>();
  f->load(words);
  f->sram.write32(0xF0, 0x40);
  f->cpu.set_reg(R9, 0xF0);
  f->cpu.run(100);
  EXPECT_TRUE(f->cpu.halted());
  EXPECT_EQ(f->cpu.instructions(), m->cpu.instructions());
  for (unsigned r = 0; r < 32; ++r) EXPECT_EQ(f->cpu.reg(r), m->cpu.reg(r));
}

TEST(CpuDelaySlots, CallAndReturnSequenceAsClangEmitsIt) {
  // caller: add %pc, 0x10, %rca; st %rca, [--%sp]; bt f; <delay>; ... ; callee returns
  // with ld -4[%fp], %pc and two delay slots (add %fp, 0, %sp; ld -8[%fp], %fp).
  const uint32_t F = 0x40;
  std::vector<uint32_t> words(0x80 / 4, kNop);
  words[0] = ri(ADD, RCA, PC, 0x10);
  words[1] = rm(true, RCA, SP, -4, true, true);
  words[2] = bt(F);
  words[3] = ri(ADD, 6, 0, 20); // delay slot: argument
  words[4] = ri(ADD, R9, RV, 0); // return lands here (0x10)
  words[5] = exit_with(R9);
  words[6] = kNop;
  // callee f: prologue, rv = arg + 1, epilogue.
  words[F / 4 + 0] = rm(true, FP, SP, -4, true, true); // st %fp, [--%sp]
  words[F / 4 + 1] = ri(ADD, FP, SP, 8);
  words[F / 4 + 2] = ri(SUB, SP, SP, 8);
  words[F / 4 + 3] = ri(ADD, RV, 6, 1);
  words[F / 4 + 4] = ld(PC, FP, -4);
  words[F / 4 + 5] = ri(ADD, SP, FP, 0);
  words[F / 4 + 6] = ld(FP, FP, -8);
  auto m = run_all(words, 1000, {{SP, 0x1000}, {FP, 0x1000}});
  ASSERT_TRUE(m->cpu.halted()) << m->cpu.fault_report();
  EXPECT_EQ(m->io.exit_status(), 21u);
  EXPECT_EQ(m->cpu.reg(SP), 0x1000u);
  EXPECT_EQ(m->cpu.reg(FP), 0x1000u);
}

TEST(CpuCycles, LoadUseInterlockCostsOneCycle) {
  lanaikit::vm::CostModel costs;
  costs.base_cycles = 1;
  costs.load_use_cycles = 1;
  auto m = run_all(prog({ld(R10, R9, 0), ri(ADD, R11, R10, 1)}), 100, {{R9, 0x100}}, costs);
  const uint64_t with_use = m->cpu.cycles();
  m = run_all(prog({ld(R10, R9, 0), ri(ADD, R11, R12, 1)}), 100, {{R9, 0x100}}, costs);
  const uint64_t without_use = m->cpu.cycles();
  EXPECT_EQ(with_use, without_use + 1);
  EXPECT_EQ(m->cpu.stall_cycles(), uint64_t(costs.mmio_cycles)); // only the exit store
}

TEST(CpuCycles, FlagsAreNotRegisterThree) {
  // A load into r3 followed by a compare of other registers: no interlock (r3 is a plain
  // register, the flags live in %sw). Reading r3 next does stall.
  lanaikit::vm::CostModel costs;
  costs.mmio_cycles = 0;
  auto m = run_all(prog({ld(3, R9, 0), rr(SUB, 0, R10, R11, true)}), 100, {{R9, 0x100}}, costs);
  EXPECT_EQ(m->cpu.stall_cycles(), 0u);
  m = run_all(prog({ld(3, R9, 0), rr(SUB, 0, 3, R11, true)}), 100, {{R9, 0x100}}, costs);
  EXPECT_EQ(m->cpu.stall_cycles(), 1u);
}

TEST(CpuCycles, InterlockInABranchDelaySlotChecksTheTarget) {
  lanaikit::vm::CostModel costs;
  costs.mmio_cycles = 0;
  auto m = run_all(prog({
      /*0x00*/ bt(0x0c),
      /*0x04*/ ld(R10, R9, 0),     // delay slot load
      /*0x08*/ kNop,
      /*0x0c*/ ri(ADD, R11, R10, 1), // target reads r10: one stall
  }), 100, {{R9, 0x100}}, costs);
  EXPECT_EQ(m->cpu.stall_cycles(), 1u);
}

TEST(CpuFaults, IllegalInstruction) {
  // 0xD0000007 sets a reserved special op: LLVM rejects it.
  auto m = run_all({kNop, 0xD0000007u});
  ASSERT_TRUE(m->cpu.fault().has_value());
  EXPECT_EQ(m->cpu.fault()->kind, FaultKind::IllegalInstruction);
  EXPECT_EQ(m->cpu.fault()->pc, 4u);
  EXPECT_NE(m->cpu.fault_report().find("pc 00000004"), std::string::npos) << m->cpu.fault_report();
  EXPECT_NE(m->cpu.fault_report().find("<unknown>"), std::string::npos) << m->cpu.fault_report();
}

TEST(CpuFaults, MisalignedLoad) {
  auto m = run_all(prog({ld(R10, R9, 2)}), 100, {{R9, 0x100}});
  ASSERT_TRUE(m->cpu.fault().has_value());
  EXPECT_EQ(m->cpu.fault()->kind, FaultKind::MisalignedAccess);
  EXPECT_EQ(m->cpu.fault()->address, 0x102u);
  EXPECT_EQ(m->cpu.fault()->pc, 0u);
}

TEST(CpuFaults, AccessOutsideSramIsABusError) {
  auto m = run_all(prog({kNop, st(R9, R9, 0)}), 100, {{R9, 0x100000}});
  ASSERT_TRUE(m->cpu.fault().has_value());
  EXPECT_EQ(m->cpu.fault()->kind, FaultKind::BusError);
  EXPECT_EQ(m->cpu.fault()->pc, 4u);
  EXPECT_NE(m->cpu.fault_report().find("%r9 00100000"), std::string::npos) << m->cpu.fault_report();
}

TEST(CpuFaults, UnmappedRegisterAndWrongWidth) {
  auto m = run_all(prog({ld(R10, 0, -8)})); // 0xFFFFFFF8: nothing there
  ASSERT_TRUE(m->cpu.fault().has_value());
  EXPECT_EQ(m->cpu.fault()->kind, FaultKind::MmioError);
  m = run_all(prog({spls(R9, 0, 0, true, true, false)}), 100, {}); // st.b to 0x0: fine
  EXPECT_FALSE(m->cpu.fault().has_value());
}

TEST(CpuFaults, JumpOutsideSramFaultsAtTheFetch) {
  auto m = run_all({ri(ADD, PC, R9, 0), kNop, kNop}, 100, {{R9, 0x200000}});
  ASSERT_TRUE(m->cpu.fault().has_value());
  EXPECT_EQ(m->cpu.fault()->kind, FaultKind::FetchOutsideSram);
  EXPECT_EQ(m->cpu.fault()->pc, 0x200000u);
  EXPECT_EQ(m->cpu.instructions(), 2u);
  m = run_all({ri(ADD, PC, R9, 0), kNop, kNop}, 100, {{R9, 0x102}});
  ASSERT_TRUE(m->cpu.fault().has_value());
  EXPECT_EQ(m->cpu.fault()->kind, FaultKind::MisalignedFetch);
}

TEST(CpuFaults, RunawayLoopHitsTheBudget) {
  auto m = run_all({bt(0), kNop}, 1001);
  ASSERT_TRUE(m->cpu.fault().has_value());
  EXPECT_EQ(m->cpu.fault()->kind, FaultKind::InstructionBudget);
  EXPECT_EQ(m->cpu.instructions(), 1001u);
}

// The stack guard (Cpu::set_stack_guard): a CPU store into it faults before writing, in
// every dispatch mode, identically in the reference and the fast interpreter (run_all).
TEST(StackGuard, AStoreIntoTheGuardFaultsBeforeWriting) {
  const auto guard = [](Machine& m) {
    m.sram.write32(0x1000, 0xAAAAAAAA);
    m.cpu.set_stack_guard(0x1000, 16); // [0x1000, 0x1010)
  };
  // Pre-modify word store (the prologue's push): the base keeps its value.
  auto m = run_all(prog({kNop, rm(true, R10, R9, -4, true, true)}), 100, {{R9, 0x1010}, {R10, 7}},
                   {}, guard);
  ASSERT_TRUE(m->cpu.fault().has_value());
  EXPECT_EQ(m->cpu.fault()->kind, FaultKind::StackOverflow);
  EXPECT_EQ(m->cpu.fault()->pc, 4u);
  EXPECT_EQ(m->cpu.fault()->address, 0x100Cu);
  EXPECT_EQ(m->cpu.reg(R9), 0x1010u);
  EXPECT_EQ(m->sram.read32(0x100C), 0u);
  EXPECT_EQ(m->cpu.instructions(), 1u);
  const std::string report = m->cpu.fault_report();
  EXPECT_NE(report.find("fault: stack overflow (a store into the stack guard [00001000, 00001010)"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("address 0000100c"), std::string::npos) << report;
  // A byte store into the guard's first word, in a branch's delay slot.
  m = run_all(prog({bt(0x0c), spls(R10, R9, 3, true, true, false), kNop, kNop}), 100,
              {{R9, 0x1000}, {R10, 0x55}}, {}, guard);
  ASSERT_TRUE(m->cpu.fault().has_value());
  EXPECT_EQ(m->cpu.fault()->kind, FaultKind::StackOverflow);
  EXPECT_EQ(m->cpu.fault()->pc, 4u);
  EXPECT_EQ(m->sram.read32(0x1000), 0xAAAAAAAAu);
  // Just below and just above the guard: ordinary stores.
  m = run_all(prog({st(R10, R9, -4), st(R10, R9, 16), exit_with(0)}), 100,
              {{R9, 0x1000}, {R10, 5}}, {}, guard);
  EXPECT_TRUE(m->cpu.halted()) << m->cpu.fault_report();
  EXPECT_EQ(m->sram.read32(0x0FFC), 5u);
  EXPECT_EQ(m->sram.read32(0x1010), 5u);
}

TEST(StackGuard, LoadsAndTheHostMayUseTheGuardWords) {
  auto m = run_all(prog({ld(R10, R9, 4), exit_with(R10)}), 100, {{R9, 0x1000}}, {},
                   [](Machine& m) {
                     m.cpu.set_stack_guard(0x1000, 16);
                     // The host (or a DMA engine) writes SRAM directly: no fault.
                     m.sram.write32(0x1004, 42);
                     m.cpu.invalidate(0x1004, 4);
                   });
  ASSERT_TRUE(m->cpu.halted()) << m->cpu.fault_report();
  EXPECT_EQ(m->io.exit_status(), 42u);
}

TEST(StackGuard, RangeRoundingRemovalAndANewImage) {
  Machine m(64 * 1024);
  m.cpu.set_stack_guard(0x1001, 6); // begins at the next word: [0x1004, 0x100c)
  EXPECT_EQ(m.cpu.stack_guard_begin(), 0x1004u);
  EXPECT_EQ(m.cpu.stack_guard_end(), 0x100Cu);
  m.cpu.set_stack_guard(64 * 1024 - 8, 256); // clipped to SRAM
  EXPECT_EQ(m.cpu.stack_guard_end(), 64u * 1024);
  m.cpu.set_stack_guard(64 * 1024, 256); // nothing left of it
  EXPECT_EQ(m.cpu.stack_guard_begin(), m.cpu.stack_guard_end());

  // Runs a store to `addr`: "overflow", "halt" or another ending.
  auto store_at = [](Machine& m, uint32_t addr) -> std::string {
    m.load(prog({st(R10, R9, 0), exit_with(0)}));
    m.cpu.reset(0);
    m.cpu.set_reg(R9, addr);
    m.cpu.run(100);
    if (m.cpu.halted()) return "halt";
    return m.cpu.fault() && m.cpu.fault()->kind == FaultKind::StackOverflow ? "overflow" : "other";
  };
  m.cpu.set_stack_guard(0x2000, 8);
  EXPECT_EQ(store_at(m, 0x2004), "overflow");
  m.cpu.invalidate_all(); // a new image: the guard stays
  EXPECT_EQ(store_at(m, 0x2004), "overflow");
  m.cpu.set_stack_guard(0x3000, 8); // moved: the old words are free again
  EXPECT_EQ(store_at(m, 0x2004), "halt");
  EXPECT_EQ(store_at(m, 0x3000), "overflow");
  m.cpu.set_stack_guard(0x3000, 0); // removed
  EXPECT_EQ(store_at(m, 0x3000), "halt");
}

TEST(CpuCode, StoresOverCodeAreSeenByTheNextFetch) {
  // Overwrite the instruction at 0x10 (add r10, 1) with add r10, 7 before reaching it, after
  // it has already run once (so it is predecoded).
  std::vector<uint32_t> words = {
      /*0x00*/ ri(ADD, 13, 0, 2),          // loop counter
      /*0x04*/ bt(0x10),
      /*0x08*/ kNop,
      /*0x0c*/ kNop,
      /*0x10*/ ri(ADD, R10, R10, 1),
      /*0x14*/ st(R11, 0, 0x10),           // patch 0x10
      /*0x18*/ ri(SUB, 13, 13, 1, true),
      /*0x1c*/ br(NE, 0x10),
      /*0x20*/ kNop,
      /*0x24*/ exit_with(R10),
      /*0x28*/ kNop,
  };
  auto m = run_all(words, 1000, {{R11, ri(ADD, R10, R10, 7)}});
  ASSERT_TRUE(m->cpu.halted()) << m->cpu.fault_report();
  EXPECT_EQ(m->cpu.reg(R10), 8u);
}

TEST(CpuFastPaths, CompareAndBranchForEveryConditionAndTheFlagsAfterwards) {
  // sub.f (register and immediate forms) followed by b<cond>: the fast interpreter fuses
  // the pair and keeps the flags lazy. Every condition, taken and not, must match C's
  // comparison, and %sw read afterwards (by scc) must hold the full flags.
  const std::pair<uint32_t, uint32_t> pairs[] = {{0, 0},          {1, 2},          {2, 1},
                                                 {0xFFFFFFFF, 1}, {1, 0xFFFFFFFF}, {0x80000000, 1},
                                                 {0x7FFFFFFF, 0xFFFFFFFF}, {0x8000, 0x8000}};
  for (auto [a, b] : pairs) {
    for (uint32_t c = 2; c < 16; ++c) {
      if (c == VC || c == VS) continue; // not fused, covered elsewhere
      for (bool imm_form : {false, true}) {
        if (imm_form && b > 0xFFFF) continue;
        const uint32_t cmp = imm_form ? ri(SUB, 0, R9, b, true) : rr(SUB, 0, R9, R10, true);
        auto m = run_all({/*0x00*/ cmp,
                          /*0x04*/ br(Cond(c), 0x10),
                          /*0x08*/ ri(ADD, R11, R11, 1), // delay slot: always
                          /*0x0c*/ ri(ADD, R12, 0, 1),   // fall-through only
                          /*0x10*/ scc(EQ, 13),
                          /*0x14*/ scc(CS, 14),
                          /*0x18*/ scc(LT, 16),
                          /*0x1c*/ exit_with(RV),
                          /*0x20*/ kNop},
                         100, {{R9, a}, {R10, b}});
        const int32_t sa = int32_t(a), sb = int32_t(b);
        const bool expect[16] = {true,   false,  a > b,   a <= b,  a < b,   a >= b,
                                 a != b, a == b, false,   false,   int32_t(a - b) >= 0,
                                 int32_t(a - b) < 0, sa >= sb, sa < sb, sa > sb, sa <= sb};
        SCOPED_TRACE(::testing::Message() << std::hex << a << " vs " << b << " cond " << c
                                          << (imm_form ? " imm" : " reg"));
        ASSERT_TRUE(m->cpu.halted()) << m->cpu.fault_report();
        EXPECT_EQ(m->cpu.reg(R11), 1u);
        EXPECT_EQ(m->cpu.reg(R12), expect[c] ? 0u : 1u);
        EXPECT_EQ(m->cpu.reg(13), a == b ? 1u : 0u);
        EXPECT_EQ(m->cpu.reg(14), a >= b ? 1u : 0u);
        EXPECT_EQ(m->cpu.reg(16), sa < sb ? 1u : 0u);
        EXPECT_EQ(m->cpu.sw(), lanaikit::vm::sub_flags(a, b));
      }
    }
  }
}

TEST(CpuFastPaths, PatchingTheBranchOfAFusedPairIsSeen) {
  // The fused compare reads its branch's slot; overwriting the branch must take effect.
  std::vector<uint32_t> words = {
      /*0x00*/ ri(ADD, R9, 0, 2),
      /*0x04*/ ri(SUB, R9, R9, 1, true), // loop: r9 -= 1
      /*0x08*/ br(NE, 0x04),
      /*0x0c*/ ri(ADD, R10, R10, 1),
      /*0x10*/ st(R11, 0, 0x08),         // after the first exit, turn the branch into a nop
      /*0x14*/ ri(ADD, R12, R12, 1),
      /*0x18*/ ri(SUB, 13, 13, 1, true), // outer counter
      /*0x1c*/ br(NE, 0x00),
      /*0x20*/ kNop,
      /*0x24*/ exit_with(R10),
      /*0x28*/ kNop,
  };
  auto m = run_all(words, 1000, {{R11, kNop}, {13, 2}});
  ASSERT_TRUE(m->cpu.halted()) << m->cpu.fault_report();
  // First pass: the loop runs twice (r10 += 2); second pass the branch is a nop: r10 += 1.
  EXPECT_EQ(m->cpu.reg(R10), 3u);
  EXPECT_EQ(m->cpu.reg(R12), 2u);
}

// A writer that changes a decoded word and calls invalidate() with a range that covers it,
// in any position (the word first, last, alone or among data; ranges of 1 to 48 bytes):
// the next run executes the new word, on both executors. invalidate() looks for decoded
// words eight code-map bytes at a time, the rest in one overlapping load.
TEST(Invalidate, AChangedWordAnywhereInTheRangeIsDecodedAgain) {
  constexpr uint32_t kWord = 0x40; // the instruction that changes
  for (const Executor how : {Executor::Reference, Executor::Fast}) {
    for (uint32_t len = 1; len <= 48; ++len) {
      for (uint32_t begin = kWord + 4 > len ? kWord + 4 - len : 0; begin < kWord + 4; ++begin) {
        Machine m;
        std::vector<uint32_t> words(18, kNop);
        words[0] = bt(kWord);
        words[kWord / 4] = sli(R10, 1);
        words[kWord / 4 + 1] = exit_with(R10);
        m.load(words);
        run_with(m, how, 100);
        ASSERT_TRUE(m.cpu.halted());
        ASSERT_EQ(m.io.exit_status(), 1u);
        m.sram.write32(kWord, sli(R10, 2));
        m.cpu.invalidate(begin, len);
        m.cpu.reset(0);
        run_with(m, how, 100);
        ASSERT_TRUE(m.cpu.halted()) << m.cpu.fault_report();
        EXPECT_EQ(m.io.exit_status(), 2u) << "invalidate(" << begin << ", " << len << ")";
      }
    }
  }
}
