// Code quality of the firmware language compiler (docs/language.md, "Compiling"): what the
// Lanai backend emits for pinned globals, wide constants, masks, bit tests and poll loops,
// and the frame-size limit. Each test reads --emit=asm or --emit=ir of a small program.
#include "assembler/fw/compile.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace lanaikit::fw {
namespace {

namespace fs = std::filesystem;

fs::path write_temp(const std::string& name, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / "lanaikit_fw_codegen_test";
  fs::create_directories(dir);
  std::ofstream(dir / name) << text;
  return dir / name;
}

CompileOptions options(assembler::OptLevel opt = assembler::OptLevel::O2) {
  CompileOptions o;
  o.opt = opt;
  o.import_dirs.push_back(LANAIKIT_FW_LIB);
  return o;
}

std::string emit(const std::string& name, const std::string& src, Emit what,
                 assembler::OptLevel opt = assembler::OptLevel::O2) {
  CompileResult r = emit_text(write_temp(name, src).string(), what, options(opt));
  EXPECT_TRUE(r.ok) << r.diagnostics;
  return r.text;
}

// The instructions of function `fn` in --emit=asm text (labels, directives and comments
// dropped), one per element, tabs turned into single spaces: "ld [0x9000], %r3".
std::vector<std::string> instructions(const std::string& asm_text, const std::string& fn) {
  std::vector<std::string> out;
  std::istringstream in(asm_text);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind(fn + ":", 0) == 0) {
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (line.rfind(".Lfunc_end", 0) == 0) break;
    if (line.size() < 2 || line[0] != '\t' || line[1] == '.' || line[1] == '!') continue;
    std::string insn = line.substr(1);
    for (char& c : insn)
      if (c == '\t') c = ' ';
    if (auto bang = insn.find(" !"); bang != std::string::npos) insn.resize(bang);
    out.push_back(insn);
  }
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& i : v) s += i + "\n";
  return s;
}

// The frame set-up and return every function has: st %fp; add %sp, 8, %fp; sub %sp, N,
// %sp; ld -4[%fp], %pc; add %fp, 0, %sp; ld -8[%fp], %fp.
constexpr size_t kFrameInsns = 6;

// Distinct pinned globals never alias: a store into one does not force a reload of another
// (the optimiser sees two identified objects). A store through a pointer still does (no
// strict-aliasing rule).
TEST(LanguageCodegen, PinnedGlobalsNeverAliasEachOther) {
  const std::string src = "struct Ring { head: u32; tail: u32; }\n"
                          "var ring: Ring @ 0x8000;\n"
                          "var stats: u32[4] @ 0x9000;\n"
                          "export fn push(v: u32) -> u32 {\n"
                          "  var h = ring.head;\n"
                          "  stats[h & 3] = v;\n"
                          "  return ring.head + 1;\n"
                          "}\n"
                          "export fn through(p: *u32, v: u32) -> u32 {\n"
                          "  var h = ring.head;\n"
                          "  *p = v;\n"
                          "  return ring.head + h;\n"
                          "}\n";
  const std::string ir = emit("alias.fw", src, Emit::Ir);
  const auto count = [&](const std::string& fn) {
    const size_t from = ir.find("@" + fn + "(");
    const size_t to = ir.find("\n}", from);
    const std::string body = ir.substr(from, to - from);
    size_t n = 0;
    for (size_t p = body.find("load i32, i32* inttoptr (i32 32768 to i32*)");
         p != std::string::npos; p = body.find("load i32, i32* inttoptr (i32 32768", p + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(count("push"), 1u) << "the store into stats must not reload ring.head\n" << ir;
  EXPECT_EQ(count("through"), 2u) << "a store through a pointer may hit ring.head\n" << ir;
}

// A word field of a pinned global below 1 MiB is one instruction: the SLS form with the
// absolute address (`st %r6, [0x9004]`), also at or above 0x8000 where %r0's 16-bit signed
// offset no longer reaches.
TEST(LanguageCodegen, PinnedWordFieldIsOneInstruction) {
  const std::string src = "struct Box { a: u32; b: u32; c: u32[2]; }\n"
                          "var low: Box @ 0x6000;\n"
                          "var high: Box @ 0x16000;\n"
                          "var far: Box @ 0x3F000;\n"
                          "export fn fill(v: u32) {\n"
                          "  low.b = v;\n"
                          "  high.b = v;\n"
                          "  high.c[1] = v;\n"
                          "  far.a = v;\n"
                          "}\n";
  const auto insns = instructions(emit("pinned.fw", src, Emit::Asm), "fill");
  const std::string text = joined(insns);
  EXPECT_EQ(insns.size(), kFrameInsns + 4) << text;
  EXPECT_NE(text.find("st %r6, 24580[%r0]"), std::string::npos) << text;
  EXPECT_NE(text.find("st %r6, [0x16004]"), std::string::npos) << text;
  EXPECT_NE(text.find("st %r6, [0x1600c]"), std::string::npos) << text;
  EXPECT_NE(text.find("st %r6, [0x3f000]"), std::string::npos) << text;
}

// An element of a pinned array above 0x8000 at a variable index: the row's address is
// computed once and each field is one load at a small offset from it, not `mov 0x20008;
// add; ld` per access.
TEST(LanguageCodegen, PinnedArrayRowIsComputedOnce) {
  const std::string src = "struct E { tag: u32; ppage: u32; }\n"
                          "var tlb: E[2][1024][4] @ 0x20000;\n"
                          "export fn look(p: u32, vpage: u32) -> u32 {\n"
                          "  var e = &tlb[p][vpage & 1023][0];\n"
                          "  if e[0].tag == vpage + 1 { return 1; }\n"
                          "  if e[1].tag == vpage + 1 { return 2; }\n"
                          "  return 0;\n"
                          "}\n";
  const std::string t = joined(instructions(emit("row.fw", src, Emit::Asm), "look"));
  EXPECT_EQ(t.find("0x20008"), std::string::npos) << t;
  EXPECT_NE(t.find("ld 8[%r"), std::string::npos) << t;
}

// A 32-bit constant costs at most two instructions (`mov hi; or lo`), never a chain rebased
// on another constant; an `and` mask with one all-ones half is the immediate itself.
TEST(LanguageCodegen, WideConstantsAreAtMostTwoInstructions) {
  const std::string src = "export fn f(x: u32) -> u32 {\n"
                          "  return (x & 0xFFFFFF) + 0x12345678;\n"
                          "}\n"
                          "export fn g(x: u32, y: u32) -> u32 {\n"
                          "  return (x & 0xFFFF0FFF) ^ (y | 0x7FFF0000);\n"
                          "}\n";
  const std::string as = emit("consts.fw", src, Emit::Asm);
  const auto f = instructions(as, "f");
  EXPECT_EQ(joined(f).find("and %r6, 0xffffff, %r3"), joined(f).find("and")) << joined(f);
  EXPECT_EQ(f.size(), kFrameInsns + 4) << joined(f); // and; mov hi; or lo; add
  const auto g = instructions(as, "g");
  EXPECT_EQ(g.size(), kFrameInsns + 3) << joined(g); // and imm; or hi imm; xor
}

// A single-bit test is one shift that sets the flags (`sh.f x, 27` for bit 4), not a `mov`
// of the mask and an `and.f`; a bit field is two shifts, not a shift, a `mov` and an `and`;
// a range check compares with an immediate.
TEST(LanguageCodegen, BitTestsAndFieldsAreShifts) {
  const std::string src = "import \"lanai.fw\";\n"
                          "var hits: u32;\n"
                          "export fn test_bit() {\n"
                          "  if (ISR & DMA_INT_BIT) != 0 { hits += 1; }\n"
                          "}\n"
                          "export fn node_of(e: u32) -> u32 {\n"
                          "  return (e >> 24) & 0x7F;\n"
                          "}\n"
                          "export fn range(len: u32) {\n"
                          "  if len - 1 >= 4096 { hits += 1; }\n"
                          "}\n";
  const std::string as = emit("bits.fw", src, Emit::Asm);
  const std::string t = joined(instructions(as, "test_bit"));
  EXPECT_NE(t.find("sh.f %r3, 0x1b, %r3"), std::string::npos) << t;
  EXPECT_EQ(t.find("mov 0x10"), std::string::npos) << t;
  const auto n = instructions(as, "node_of");
  EXPECT_EQ(n.size(), kFrameInsns + 2) << joined(n);
  EXPECT_EQ(joined(n).find("mov"), std::string::npos) << joined(n);
  // LLVM's `len - 4097 u< 0xFFFFF000` needs a `mov` of the constant; `len - 1 u>= 4096`
  // compares with an immediate.
  const std::string r = joined(instructions(as, "range"));
  EXPECT_NE(r.find("sub.f %r3, 0x1000, %r0"), std::string::npos) << r;
  EXPECT_EQ(r.find("0xfffff000"), std::string::npos) << r;
}

// A poll loop keeps its mask and its addresses in registers: each turn is the register
// load, the test, the branch and its delay slot, whatever the mask.
TEST(LanguageCodegen, PollLoopKeepsMasksInRegisters) {
  const std::string src = "import \"lanai.fw\";\n"
                          "export fn go_when_idle(len: u32) {\n"
                          "  while (ISR & DMA_INT_BIT) == 0 { }\n"
                          "  CTR = len;\n"
                          "}\n"
                          "export fn wait_events() -> u32 {\n"
                          "  var ev = ISR & (RECV_INT_BIT | HOST_SIG_BIT | TIME0_INT_BIT);\n"
                          "  while ev == 0 {\n"
                          "    ev = ISR & (RECV_INT_BIT | HOST_SIG_BIT | TIME0_INT_BIT);\n"
                          "  }\n"
                          "  return ev;\n"
                          "}\n";
  const std::string as = emit("poll.fw", src, Emit::Asm);
  for (const char* fn : {"go_when_idle", "wait_events"}) {
    // The loop: from the label the backward branch targets to that branch.
    std::istringstream in(as.substr(as.find(std::string(fn) + ":")));
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l) && l.rfind(".Lfunc_end", 0) != 0;) lines.push_back(l);
    size_t branch = 0, label = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].rfind(".LBB", 0) == 0) {
        const std::string name = lines[i].substr(0, lines[i].find(':'));
        for (size_t j = i + 1; j < lines.size(); ++j)
          if (lines[j].find("\t" + name) != std::string::npos && lines[j].rfind("\tb", 0) == 0) {
            label = i;
            branch = j;
          }
      }
      if (branch) break;
    }
    ASSERT_NE(branch, 0u) << fn << ": no loop\n" << as;
    size_t turn = 0;
    for (size_t i = label + 1; i <= branch + 1; ++i) {
      if (lines[i].rfind("\t", 0) != 0 || lines[i][1] == '.' || lines[i][1] == '!') continue;
      EXPECT_EQ(lines[i].find("mov"), std::string::npos) << fn << ": " << lines[i];
      EXPECT_EQ(lines[i].find("\tor\t"), std::string::npos) << fn << ": " << lines[i];
      ++turn;
    }
    EXPECT_EQ(turn, 4u) << fn << "\n" << as; // ld; test; branch; delay slot
  }
}

// The prologue allocates the frame with `sub %sp, FRAME, %sp`, a 16-bit immediate: a frame
// over 65535 bytes is an error at the function (LLVM would encode the low bits only), and
// a single local over the limit an error at the local.
TEST(LanguageCodegen, FrameOverTheImmediateIsAnError) {
  const std::string src = "extern fn use(a: *u8, b: *u8);\n"
                          "export fn f() {\n"
                          "  var a: u8[40000];\n"
                          "  var b: u8[40000];\n"
                          "  use(&a[0], &b[0]);\n"
                          "}\n";
  // (-O0 keeps a spill slot more.)
  for (auto [opt, bytes] : {std::pair{assembler::OptLevel::O0, "80024"},
                            std::pair{assembler::OptLevel::O2, "80016"}}) {
    CompileResult r = compile_source(src, "t.fw", options(opt));
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.diagnostics.substr(0, r.diagnostics.find('\n')),
              std::string("t.fw:2:11: error: the stack frame of 'f' is ") + bytes +
                  " bytes; a frame holds at most 65535 (the prologue's 16-bit immediate): make "
                  "large locals globals");
  }
  CompileResult one = compile_source("fn f() { var big: u8[65536]; big[1] = 2; }", "t.fw",
                                     options(assembler::OptLevel::O0));
  EXPECT_FALSE(one.ok);
  EXPECT_EQ(one.diagnostics.substr(0, one.diagnostics.find('\n')),
            "t.fw:1:14: error: local 'big' (65536 bytes) is too large for the stack (a frame "
            "holds at most 65535 bytes; use a global)");
  // Just under the limit compiles, and the prologue's immediate is the whole frame.
  const std::string ok = "extern fn use(a: *u8);\n"
                         "export fn g() { var a: u8[65000]; use(&a[0]); }\n";
  const auto insns = instructions(emit("frame.fw", ok, Emit::Asm), "g");
  EXPECT_NE(joined(insns).find("sub %sp, 0xfdf8, %sp"), std::string::npos) << joined(insns);
}

} // namespace
} // namespace lanaikit::fw
