// Differential test: isa::decode / isa::disassemble against LLVM 14's Lanai
// MCDisassembler + MCInstPrinter, in process.
//
// The assertion, for every word tried: decode() returns nullopt exactly when LLVM's
// getInstruction fails, and otherwise disassemble() equals LLVM's printed text. (The one
// class of words LLVM decodes but cannot print, RRM with BBB=111 and JJJJJ bit 2 set, is
// compared on acceptance only; see llvm_oracle.h.)
//
//   FormatSweep   every value of each format's defining fields, operands random or chosen
//                 to hit the printer's special cases (113,360 words)
//   RandomWords   1,000,000 uniformly random words, fixed seed
//   HandWritten   documented special cases, each also checked against an expected text
//   DISABLED_AllWords  all 2^32 words (about half an hour; run with
//                 --gtest_also_run_disabled_tests --gtest_filter='*AllWords')
#include "isa/inst.h"
#include "tests/isa/llvm_oracle.h"

#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <vector>

namespace lanaikit::isa {
namespace {

using test::LlvmOracle;

LlvmOracle& oracle() {
  static LlvmOracle instance;
  return instance;
}

// Deterministic 64-bit generator (splitmix64), independent of the standard library.
struct Rng {
  uint64_t state;
  uint32_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return uint32_t((z ^ (z >> 31)) >> 16);
  }
  uint32_t bits(unsigned n) { return next() & ((1u << n) - 1); }
};

class Comparison {
public:
  explicit Comparison(const char* name) : name_(name) {}
  ~Comparison() {
    std::printf("[ %s ] %zu words compared: %zu decoded by LLVM (%zu of them unprintable by "
                "LLVM, compared on acceptance only), %zu rejected, %zu mismatches\n",
                name_, words_, decoded_, unprintable_, rejected_, mismatches_);
    EXPECT_EQ(mismatches_, 0u) << name_;
  }

  void check(uint32_t word) {
    ++words_;
    const LlvmOracle::Result llvm = oracle().disassemble(word);
    const auto ours = decode(word);
    if (!llvm.decoded) ++rejected_;
    else if (!llvm.printable) ++decoded_, ++unprintable_;
    else ++decoded_;
    std::string our_text = ours ? disassemble(*ours) : "<rejected>";
    std::string llvm_text = !llvm.decoded ? "<rejected>" : llvm.printable ? llvm.text : "<decoded, unprintable>";
    const bool same = llvm.decoded == ours.has_value() && (!llvm.printable || llvm.text == our_text);
    if (same) return;
    if (++mismatches_ <= 25)
      ADD_FAILURE() << "word 0x" << hex(word) << "\n  llvm: " << llvm_text << "\n  ours: " << our_text;
  }

private:
  static std::string hex(uint32_t w) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%08" PRIx32, w);
    return buf;
  }
  const char* name_;
  size_t words_ = 0, decoded_ = 0, unprintable_ = 0, rejected_ = 0, mismatches_ = 0;
};

uint32_t put(uint32_t value, unsigned lo) { return value << lo; }

// Offsets that exercise the memory operand spellings: 0, +-1, +-2, +-4 (the ++/-- forms
// for byte, half and word accesses), +-8, the extremes, and one random value.
std::vector<uint32_t> interesting_offsets(Rng& rng, unsigned bits) {
  const uint32_t mask = (1u << bits) - 1;
  std::vector<uint32_t> v;
  for (int32_t x : {0, 1, -1, 2, -2, 4, -4, 8, -8}) v.push_back(uint32_t(x) & mask);
  v.push_back(mask >> 1);       // largest positive
  v.push_back((mask >> 1) + 1); // most negative
  v.push_back(rng.bits(bits));
  return v;
}

TEST(IsaLlvmDiff, FormatSweep) {
  Comparison cmp("FormatSweep");
  Rng rng{1};

  // RI (major 0..7): AAA x F x H x every Rs1 (r0/r1 trigger the mov aliases) x constants.
  for (uint32_t major = 0; major < 8; ++major)
    for (uint32_t fh = 0; fh < 4; ++fh)
      for (uint32_t rs1 = 0; rs1 < 32; ++rs1)
        for (uint32_t k : {0u, 1u, 0x7fffu, 0x8000u, 0xffffu, rng.bits(16), rng.bits(16)})
          cmp.check(put(major, 28) | put(rng.bits(5), 23) | put(rs1, 18) | put(fh, 16) | k);
  // Around the fixed words (nop, log_*), which live inside RI's add.
  for (uint32_t w = 0; w < 64; ++w) cmp.check(w);

  // RR (major 1100): F x I x BBB x JJJJJ x DDD, with Rd pc or random, Rs1 and Rs2 r0 or
  // random (the mov and indirect-jump aliases).
  for (uint32_t f = 0; f < 2; ++f)
    for (uint32_t i = 0; i < 2; ++i)
      for (uint32_t bbb = 0; bbb < 8; ++bbb)
        for (uint32_t j = 0; j < 32; ++j)
          for (uint32_t ddd = 0; ddd < 8; ++ddd)
            for (uint32_t regs = 0; regs < 8; ++regs) {
              const uint32_t rd = regs & 1 ? uint32_t(PC) : rng.bits(5);
              const uint32_t rs1 = regs & 2 ? 0 : rng.bits(5);
              const uint32_t rs2 = regs & 4 ? 0 : rng.bits(5);
              cmp.check(put(0b1100, 28) | put(rd, 23) | put(rs1, 18) | put(f, 17) | put(i, 16) |
                        put(rs2, 11) | put(bbb, 8) | put(j, 3) | ddd);
            }

  // RM (major 1000/1001): S x PQ x offsets; RET's exact word is among the hand-written.
  for (uint32_t s = 0; s < 2; ++s)
    for (uint32_t pq = 0; pq < 4; ++pq)
      for (uint32_t off : interesting_offsets(rng, 16))
        for (int rep = 0; rep < 4; ++rep)
          cmp.check(put(0b1000 | s, 28) | put(rng.bits(5), 23) | put(rng.bits(5), 18) |
                    put(pq, 16) | off);

  // RRM (major 1010/1011): S x PQ x BBB x JJJJJ x YLE, Rs2 r0 or random.
  for (uint32_t s = 0; s < 2; ++s)
    for (uint32_t pq = 0; pq < 4; ++pq)
      for (uint32_t bbb = 0; bbb < 8; ++bbb)
        for (uint32_t j = 0; j < 32; ++j)
          for (uint32_t yle = 0; yle < 8; ++yle)
            for (uint32_t rs2 : {0u, rng.bits(5)})
              cmp.check(put(0b1010 | s, 28) | put(rng.bits(5), 23) | put(rng.bits(5), 18) |
                        put(pq, 16) | put(rs2, 11) | put(bbb, 8) | put(j, 3) | yle);

  // Special (major 1101): F x each single bit of the must-be-zero field x OP.
  for (uint32_t f = 0; f < 2; ++f)
    for (int zero_bit = -1; zero_bit < 14; ++zero_bit)
      for (uint32_t op = 0; op < 8; ++op)
        cmp.check(put(0b1101, 28) | put(rng.bits(5), 23) | put(rng.bits(5), 18) | put(f, 17) |
                  (zero_bit < 0 ? 0 : put(1, 3 + zero_bit)) | op);

  // Branch group (major 1110): DDD x bit 24 x bit 23 x Rs1 zero/not x bits 17..16 x
  // bits 15..2 (zero, random) x bit 1 x I.
  for (uint32_t ddd = 0; ddd < 8; ++ddd)
    for (uint32_t b24 = 0; b24 < 2; ++b24)
      for (uint32_t b23 = 0; b23 < 2; ++b23)
        for (uint32_t rs1 : {0u, 1u + rng.bits(4)})
          for (uint32_t b1716 = 0; b1716 < 4; ++b1716)
            for (uint32_t mid : {0u, rng.bits(14), 0x3fffu, 0x2000u})
              for (uint32_t b1 = 0; b1 < 2; ++b1)
                for (uint32_t b0 = 0; b0 < 2; ++b0)
                  cmp.check(put(0b1110, 28) | put(ddd, 25) | put(b24, 24) | put(b23, 23) |
                            put(rs1, 18) | put(b1716, 16) | put(mid, 2) | put(b1, 1) | b0);
  // SCC's must-be-zero bits 17..2, one at a time.
  for (uint32_t b = 2; b < 18; ++b)
    for (uint32_t i = 0; i < 2; ++i) cmp.check(0xe0000002u | put(rng.bits(5), 18) | put(1, b) | i);

  // 1111 group: bits 17..15 x Y S E P Q x offsets (SLS/SLI take them as address bits).
  for (uint32_t sel = 0; sel < 8; ++sel)
    for (uint32_t ysepq = 0; ysepq < 32; ++ysepq)
      for (uint32_t off : interesting_offsets(rng, 10))
        cmp.check(put(0b1111, 28) | put(rng.bits(5), 23) | put(rng.bits(5), 18) | put(sel, 15) |
                  put(ysepq, 10) | off);
}

TEST(IsaLlvmDiff, RandomWords) {
  Comparison cmp("RandomWords");
  Rng rng{0x1a2a1};
  for (int n = 0; n < 1'000'000; ++n) cmp.check(rng.next());
}

// Special cases, each with the text we expect (which is LLVM's, checked here too).
TEST(IsaLlvmDiff, HandWritten) {
  struct Case {
    uint32_t word;
    const char* text; // nullptr: rejected
  };
  const Case cases[] = {
      // Fixed words and their neighbourhood.
      {0x00000000, "mov\t0x0, %r0"},
      {0x00000001, "nop"},
      {0x00000002, "log_0"},
      {0x00000006, "log_4"},
      {0x00000007, "mov\t0x7, %r0"},
      // RI: placement, the `and` fill, shift signs, mov aliases.
      {0x00c48001, "add\t%r17, 0x8001, %r1"},
      {0x00c58001, "add\t%r17, 0x80010000, %r1"},
      {0x00818001, "mov\t0x80010000, %r1"},
      {0x00828001, "add.f\t%r0, 0x8001, %r1"},
      {0x40c48001, "and\t%r17, 0xffff8001, %r1"},
      {0x40c58001, "and\t%r17, 0x8001ffff, %r1"},
      {0x40848001, "mov\t0xffff8001, %r1"},
      {0x40808001, "and\t%r0, 0xffff8001, %r1"},
      {0x7000ffff, "sh\t%r0, -0x1, %r0"},
      {0x70010001, "sha\t%r0, 0x1, %r0"},
      {0x70c68001, "sh.f\t%r17, -0x7fff, %r1"},
      // RR: predicates, mov, select, shifts, indirect jumps (or with Rd=pc).
      {0xc0c40000, "mov\t%r17, %r1"},
      {0xc0c40001, "add.ugt\t%r17, %r0, %r1"},
      {0xc0c50007, "add.le\t%r17, %r0, %r1"},
      {0xc0c60001, "add.f.ugt\t%r17, %r0, %r1"},
      {0xc1c40000, "mov\t%r17, %r3"},
      {0xc10c0700, "sel.t %r3, %r0, %pc"},
      {0xc10c0702, "sel.ult %r3, %r0, %pc"},
      {0xc10e0700, nullptr}, // select with F
      {0xc10c0780, "sh\t%r3, %r0, %pc"},
      {0xc10e07c5, "sha.f.pl\t%r3, %r0, %pc"},
      {0xc10c0788, nullptr}, // JJJJJ=10001
      {0xc0c48508, nullptr}, // JJJJJ!=0 with BBB!=111
      {0xc1008500, "bt\t%r16"},
      {0xc1000501, "bugt\t%r0"},
      {0xc1040500, "bt\t%r1"},
      {0xc1048505, "bpl\t%r1 add %r16"},
      {0xc10e0500, "or.f\t%r3, %r0, %pc"},
      // Special.
      {0xd0c40001, "popc\t%r17, %r1"},
      {0xd0c40002, "leadz\t%r17, %r1"},
      {0xd0c40003, "trailz\t%r17, %r1"},
      {0xd0c40000, nullptr},
      {0xd0c60001, nullptr}, // F
      {0xd0c40009, nullptr}, // bit 3
      // RM: modes, ++/-- forms, PQ=00 zeroing the offset, RET.
      {0x80c40004, "ld\t0[%r17], %r1"},
      {0x80c4fffc, "ld\t0[%r17], %r1"},
      {0x80c6fffc, "ld\t-4[%r17], %r1"},
      {0x80c50004, "ld\t[%r17++], %r1"},
      {0x80c50000, "ld\t0[%r17*], %r1"},
      {0x80c70004, "ld\t[++%r17], %r1"},
      {0x80c7fffc, "ld\t[--%r17], %r1"},
      {0x80c7fff8, "ld\t-8[*%r17], %r1"},
      {0x90c7fffc, "st\t%r1, [--%r17]"},
      {0x90c7fff0, "st\t%r1, -16[*%r17]"},
      {0x8116fffc, "ld\t-4[%fp], %pc ! return"},
      {0x8116fff8, "ld\t-8[%fp], %pc"},
      // RRM: widths, PQ=00 printing %r0, shifts, rejected YLE.
      {0xa0c48000, "ld.h\t[%r17 add %r0], %r1"},
      {0xa0c48003, "uld\t[%r17 add %r0], %r1"},
      {0xa0c48005, "uld.b\t[%r17 add %r0], %r1"},
      {0xa0c48006, nullptr},
      {0xa0c58002, "ld\t[%r17* add %r16], %r1"},
      {0xa0c78202, "ld\t[*%r17 sub %r16], %r1"},
      {0xa0c780fa, "ld\t[*%r17 add %r16], %r1"}, // JJJJJ ignored for BBB!=111
      {0xa0c78702, "ld\t[*%r17 sh %r16], %r1"},
      {0xa0c78742, "ld\t[*%r17 sha %r16], %r1"},
      {0xa0c787da, "ld\t[*%r17 sha %r16], %r1"},
      {0xb0c48001, nullptr}, // zero-extending store
      {0xb0c48004, "st.b\t%r1, [%r17 add %r0]"},
      // Branch group.
      {0xe0000000, "bt\t0x0"},
      {0xe0000001, "bf\t0x0"},
      {0xe1fffffc, "bt\t0x1fffffc"},
      {0xee000001, "ble\t0x0"},
      {0xe2000000, "bugt\t0x0"},
      {0xe1000002, "bt.r\t0x0"},
      {0xe100fffe, "bt.r\t0xfffc"},
      {0xe1040002, nullptr}, // BRR with Rs1 != 0
      {0xe1020002, nullptr},
      {0xe0040002, "st\t%r1"}, // SCC t: reads like a store mnemonic
      {0xe0040003, "sf\t%r1"},
      {0xe0040006, nullptr},
      {0xe0840002, nullptr},
      // 1111 group.
      {0xf0c40000, "ld\t[0x110000], %r1"},
      {0xf0c5fffe, "st\t%r1, [0x11fffe]"},
      {0xf0c6ffff, "mov\t0x11ffff, %r1"},
      {0xf0c70000, "ld.h\t0[%r17], %r1"},
      {0xf0c71000, "uld.h\t0[%r17], %r1"},
      {0xf0c74000, "ld.b\t0[%r17], %r1"},
      {0xf0c75000, "uld.b\t0[%r17], %r1"},
      {0xf0c72000, "st.h\t%r1, 0[%r17]"},
      {0xf0c76000, "st.b\t%r1, 0[%r17]"},
      {0xf0c73000, nullptr},
      {0xf0c77000, nullptr},
      {0xf0c78000, nullptr}, // bits 17..15 = 111
      {0xf0c703ff, "ld.h\t0[%r17], %r1"},
      {0xf0c70bff, "ld.h\t-1[%r17], %r1"},
      {0xf0c70a00, "ld.h\t-512[%r17], %r1"},
      {0xf0c70c02, "ld.h\t[++%r17], %r1"},
      {0xf0c707fe, "ld.h\t[%r17--], %r1"},
      {0xf0c70ffc, "ld.h\t-4[*%r17], %r1"},
      {0xf0c74c01, "ld.b\t[++%r17], %r1"},
      {0xf0c72c01, "st.h\t%r1, 1[*%r17]"},
      {0xf0c767ff, "st.b\t%r1, [%r17--]"},
  };
  Comparison cmp("HandWritten");
  for (const auto& c : cases) {
    cmp.check(c.word);
    const std::string expected = c.text ? c.text : "<unknown>";
    EXPECT_EQ(disassemble(c.word), expected) << std::hex << c.word;
    const auto llvm = oracle().disassemble(c.word);
    EXPECT_EQ(llvm.decoded ? llvm.text : "<unknown>", expected) << std::hex << c.word;
  }
}

// LLVM decodes RRM words with BBB=111 and JJJJJ bit 2 set but cannot print them; check
// that this is the only class of such words in the RRM space, and that we accept them.
TEST(IsaLlvmDiff, UnprintableClass) {
  Rng rng{7};
  for (uint32_t s = 0; s < 2; ++s)
    for (uint32_t j = 0; j < 32; ++j)
      for (uint32_t yle : {0u, 2u, 4u}) {
        const uint32_t w = put(0b1010 | s, 28) | put(rng.bits(5), 23) | put(rng.bits(5), 18) |
                           put(rng.bits(2), 16) | put(rng.bits(5), 11) | put(7, 8) | put(j, 3) |
                           yle;
        const auto llvm = oracle().disassemble(w);
        EXPECT_TRUE(llvm.decoded);
        EXPECT_EQ(llvm.printable, !(j & 0b00100)) << std::hex << w;
        const auto ours = decode(w);
        ASSERT_TRUE(ours);
        EXPECT_EQ(ours->mem_op, j & 0b01000 ? AluOp::Sra : AluOp::Shl);
      }
}

TEST(IsaLlvmDiff, DISABLED_AllWords) {
  Comparison cmp("AllWords");
  uint32_t w = 0;
  do {
    cmp.check(w);
  } while (++w != 0);
}

} // namespace
} // namespace lanaikit::isa
