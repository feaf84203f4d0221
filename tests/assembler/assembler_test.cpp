// Tests of the assembler library: in-process assembly, the clang driver, the linker (every
// relocation type, layout, symbols, errors, archive semantics), line tables, and the ELF
// writer/reader.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "assembler/build.h"
#include "assembler/elf.h"
#include "assembler/mc_guard.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

using namespace lanaikit::assembler;

namespace {

Object as(const std::string& src, const std::string& name) {
  auto o = assemble(src, name);
  if (!o) {
    ADD_FAILURE() << "assembling " << name << " failed:\n" << llvm::toString(o.takeError());
    return Object{name, {}, {}};
  }
  return std::move(*o);
}

FirmwareImage ok(llvm::Expected<FirmwareImage> img) {
  if (!img) {
    ADD_FAILURE() << "link failed:\n" << llvm::toString(img.takeError());
    return {};
  }
  return std::move(*img);
}

std::string err(llvm::Expected<FirmwareImage> img) {
  if (img) {
    ADD_FAILURE() << "expected an error";
    return "";
  }
  return llvm::toString(img.takeError());
}

// A startup object: _start at 0 branches to main and halts.
const char* kStart = R"(
	.text
	.globl _start
	.type _start,@function
_start:
	bt main
	nop
	st %rv, -4092[%r0]
.Lhang:
	bt .Lhang
	nop
	.size _start, .-_start
)";

uint32_t addr(const FirmwareImage& img, const std::string& name) {
  auto a = img.symbol(name);
  EXPECT_TRUE(a.has_value()) << "no symbol " << name;
  return a.value_or(0xDEADBEEF);
}

// A scratch directory for files that clang and llvm-objdump need on disk.
class TempDir {
public:
  TempDir() {
    llvm::SmallString<128> p;
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("lanaikit-asm-test", p));
    path_ = std::string(p);
  }
  ~TempDir() { llvm::sys::fs::remove_directories(path_); }
  std::string file(const std::string& name, const std::string& contents) const {
    std::string p = path_ + "/" + name;
    std::ofstream(p) << contents;
    return p;
  }
  std::string path(const std::string& name) const { return path_ + "/" + name; }

private:
  std::string path_;
};

// Rewrites the type of every relocation of `from` type into `to` in an object's RELA
// sections (MC never emits R_LANAI_21_F, so tests make one this way).
void retype_relocations(Object& o, uint8_t from, uint8_t to) {
  auto ef = llvm::object::ELFFile<llvm::object::ELF32BE>::create(o.data);
  ASSERT_TRUE(bool(ef));
  auto secs = ef->sections();
  ASSERT_TRUE(bool(secs));
  for (const auto& sh : *secs) {
    if (sh.sh_type != llvm::ELF::SHT_RELA)
      continue;
    for (uint32_t off = sh.sh_offset; off + 12 <= sh.sh_offset + sh.sh_size; off += 12)
      if (uint8_t(o.data[off + 7]) == from)
        o.data[off + 7] = char(to);
  }
}

// Sets one field of every RELA section header of an object (ELF32 big-endian): `offset`
// is the field's offset in the section header (24 sh_link, 36 sh_entsize).
void patch_rela_headers(Object& o, uint32_t offset, uint32_t value) {
  auto ef = llvm::object::ELFFile<llvm::object::ELF32BE>::create(o.data);
  ASSERT_TRUE(bool(ef));
  const auto& eh = ef->getHeader();
  auto secs = ef->sections();
  ASSERT_TRUE(bool(secs));
  for (size_t i = 0; i < secs->size(); ++i) {
    if ((*secs)[i].sh_type != llvm::ELF::SHT_RELA)
      continue;
    const size_t at = eh.e_shoff + i * eh.e_shentsize + offset;
    for (int b = 0; b < 4; ++b)
      o.data[at + b] = char(value >> (24 - 8 * b));
  }
}

} // namespace

// ---------------------------------------------------------------------------------------
// Assembler

TEST(Assemble, ProducesLanaiRelocatableObject) {
  Object o = as(kStart, "start.s");
  ASSERT_GE(o.data.size(), 52u);
  EXPECT_EQ(o.data.substr(0, 4), "\x7f" "ELF");
  EXPECT_EQ(uint8_t(o.data[18]) << 8 | uint8_t(o.data[19]), 244); // EM_LANAI
  EXPECT_EQ(o.name, "start.s");
}

// ---- Limits checked before MC runs (assembler/asm_limits.h) --------------------------------
// Each of these aborted the process ("LLVM ERROR: out of memory") or ran for minutes.

namespace {

std::string asm_error(const std::string& src, const std::string& name, AssembleOptions o = {}) {
  auto r = assemble(src, name, o);
  if (r) {
    ADD_FAILURE() << name << " assembled";
    return "";
  }
  return llvm::toString(r.takeError());
}

class AsmDir {
public:
  AsmDir() {
    llvm::SmallString<128> p;
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("lanaikit-asm-limits", p));
    path_ = std::string(p);
  }
  ~AsmDir() { llvm::sys::fs::remove_directories(path_); }
  std::string file(const std::string& name, const std::string& contents) const {
    const std::string p = path_ + "/" + name;
    std::ofstream(p) << contents;
    return p;
  }

private:
  std::string path_;
};

} // namespace

TEST(AsmLimits, HugeFillIsRefusedWithItsPlace) {
  EXPECT_EQ(asm_error("\t.data\n\t.fill 0x40000000, 4, 0\n", "fill.s"),
            "fill.s:2:2: error: '.fill' fills 4294967296 bytes, more than the 262144-byte SRAM "
            "holds\n\t.fill 0x40000000, 4, 0\n\t^");
  EXPECT_NE(asm_error("x: .space 1 << 20\n", "s.s").find("s.s:1:4: error: '.space' reserves 1048576 bytes"),
            std::string::npos);
  EXPECT_NE(asm_error("\t.p2align 40\n", "a.s").find("'.p2align' aligns to 1099511627776 bytes"),
            std::string::npos);
  EXPECT_NE(asm_error("\t.org 0x80000000\n", "o.s").find("'.org' moves to offset 2147483648 bytes"),
            std::string::npos);
  // The bound is the SRAM the build targets.
  AssembleOptions big;
  big.sram_size = 1 << 21;
  EXPECT_TRUE(bool(assemble("\t.data\n\t.space 1 << 20\n", "s.s", big)));
}

TEST(AsmLimits, IncbinOfADeviceOrMoreThanSram) {
  EXPECT_EQ(asm_error("\t.data\n\t.incbin \"/dev/zero\"\n", "z.s"),
            "z.s:2:2: error: '.incbin' of '/dev/zero': not a regular file (a device or pipe may "
            "never end)\n\t.incbin \"/dev/zero\"\n\t^");
  AsmDir dir;
  const std::string blob = dir.file("blob.bin", "");
  ASSERT_FALSE(llvm::sys::fs::resize_file_before_mapping_readwrite(
      *llvm::sys::fs::openNativeFileForReadWrite(blob, llvm::sys::fs::CD_OpenExisting,
                                                 llvm::sys::fs::OF_None),
      1 << 20));
  EXPECT_NE(asm_error("\t.data\n\t.incbin \"" + blob + "\"\n", "b.s")
                .find("b.s:2:2: error: '.incbin' of '" + blob + "' includes 1048576 bytes, more than the 262144-byte SRAM holds"),
            std::string::npos);
  // A slice of it fits.
  auto sliced = assemble("\t.data\n\t.incbin \"" + blob + "\", 16, 64\n", "b.s");
  EXPECT_TRUE(bool(sliced)) << llvm::toString(sliced.takeError());
}

TEST(AsmLimits, IncludeCyclesAndDepth) {
  AsmDir dir;
  const std::string self = dir.file("self.s", "");
  std::ofstream(self) << "\tnop\n\t.include \"" << self << "\"\n";
  auto r = assemble_file(self);
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(llvm::toString(r.takeError()),
            self + ":2:2: error: '.include' of '" + self + "' is a cycle (" + self + " includes " + self +
                ")\n\t.include \"" + self + "\"\n\t^");
  // a.s -> b.s -> a.s: reported where the cycle closes.
  const std::string a = dir.file("a.s", ""), b = dir.file("b.s", "");
  std::ofstream(a) << "\t.include \"" << b << "\"\n";
  std::ofstream(b) << "\n\t.include \"" << a << "\"\n";
  r = assemble_file(a);
  ASSERT_FALSE(bool(r));
  EXPECT_NE(llvm::toString(r.takeError()).find(b + ":2:2: error: '.include' of '" + a + "' is a cycle (" + a +
                                                 " includes " + b + " includes " + a + ")"),
            std::string::npos);
  // A chain of 17 distinct files nests too deep; 15 is fine (the includer counts as one).
  std::vector<std::string> chain;
  for (int i = 0; i <= 17; ++i)
    chain.push_back(dir.file(std::string("f").append(std::to_string(i)).append(".s"), ""));
  for (int i = 0; i < 17; ++i)
    std::ofstream(chain[i]) << "\tnop\n\t.include \"" << chain[i + 1] << "\"\n";
  std::ofstream(chain[17]) << "\tnop\n";
  r = assemble_file(chain[0]);
  ASSERT_FALSE(bool(r));
  EXPECT_NE(llvm::toString(r.takeError()).find(": error: '.include' of '" + chain[16] + "' nests deeper than 16 files"),
            std::string::npos);
  r = assemble_file(chain[2]);
  EXPECT_TRUE(bool(r)) << llvm::toString(r.takeError());
}

TEST(AsmLimits, ReptExpansionIsBounded) {
  EXPECT_EQ(asm_error("\t.text\n\t.rept 100000000\n\tnop\n\t.endr\n", "r.s"),
            "r.s:2:2: error: '.rept' expands to 100000000 statements, more than 1000000 (the limit "
            "of one assembly)\n\t.rept 100000000\n\t^");
  // Nested blocks multiply.
  EXPECT_NE(asm_error("\t.rept 1000\n\t.rept 1001\n\tnop\n\t.endr\n\t.endr\n", "n.s")
                .find("n.s:1:2: error: '.rept' expands to 1001000 statements"),
            std::string::npos);
}

TEST(AsmLimits, OrdinarySourcesAreUntouched) {
  // Comments and strings are not directives; symbolic sizes are left to MC; small sizes pass.
  auto r = assemble("\t.text\n\t.rept 1000\n\tnop\n\t.endr\n\t.data\n"
                    "\t.fill 16, 4, 0 ! .fill 0x40000000, 4, 0\n"
                    "\t.ascii \".fill 0x40000000, 4, 0\" ; .p2align 2\n"
                    "/* .rept 100000000 */ // .incbin \"/dev/zero\"\n"
                    "\t.set N, 8\n\t.fill N, 4, 0\n\t.space 150000\n",
                    "ok.s");
  EXPECT_TRUE(bool(r)) << llvm::toString(r.takeError());
}

// ---- Limits checked while MC runs (assembler/mc_guard.h) ----------------------------------
// Sizes written with symbols, which the scan above cannot evaluate: each of these ran out of
// memory, aborted or ran for minutes before.

TEST(McGuard, SymbolicFillSkipZeroAndSpaceAreCheckedAgainstSram) {
  EXPECT_EQ(asm_error(" .data\n .set N, 0x40000000\n .fill N, 4, 0\n", "f.s"),
            "f.s:3:8: error: '.fill' of 4294967296 bytes makes the image larger than the "
            "262144-byte SRAM\n .fill N, 4, 0\n       ^");
  EXPECT_EQ(asm_error(" .data\n .equ N, 0x40000000\n .skip N\n", "s.s"),
            "s.s:3:8: error: a reservation of 1073741824 bytes makes the image larger than the "
            "262144-byte SRAM\n .skip N\n       ^");
  EXPECT_EQ(asm_error(" .data\nN = 0x1000\n .zero N * N\n", "z.s"),
            "z.s:3:8: error: a reservation of 16777216 bytes makes the image larger than the "
            "262144-byte SRAM\n .zero N * N\n       ^");
  // Many fills that each fit add up: the running total is what counts.
  EXPECT_EQ(asm_error(" .data\n .set K, 0x10000\n .space K\n .space K\n .space K\n"
                      " .space K\n",
                      "t.s"),
            "t.s:6:9: error: a reservation of 65536 bytes makes the image larger than the "
            "262144-byte SRAM\n .space K\n        ^");
  // A larger SRAM admits the same source.
  AssembleOptions big;
  big.sram_size = 1u << 20;
  auto r = assemble(" .data\n .set K, 0x10000\n .space K\n .space K\n .space K\n"
                    " .space K\n",
                    "t.s", big);
  EXPECT_TRUE(bool(r)) << llvm::toString(r.takeError());
  // A size MC would only learn at layout cannot be bounded while assembling.
  EXPECT_EQ(asm_error(" .data\n .space later - 0\nlater:\n", "l.s"),
            "l.s:2:9: error: the size of this reservation is not known where it is written (a "
            "label defined later?); lanaikit needs sizes it can check against SRAM as it "
            "assembles\n .space later - 0\n        ^");
}

TEST(McGuard, SymbolicAlignmentAndOrgBeyondSram) {
  EXPECT_EQ(asm_error(" .set N, 30\n .p2align N\n", "p.s"),
            "p.s:2:2: error: an alignment to 1073741824 bytes, more than the 262144-byte "
            "SRAM\n .p2align N\n ^");
  EXPECT_EQ(asm_error(" .set N, 0x100000\n .balign N\n", "b.s"),
            "b.s:2:2: error: an alignment to 1048576 bytes, more than the 262144-byte "
            "SRAM\n .balign N\n ^");
  EXPECT_EQ(asm_error(" .data\n .set N, 0x40000000\n .org N\n", "o.s"),
            "o.s:3:7: error: '.org' to offset 1073741824, beyond the 262144-byte SRAM\n"
            " .org N\n      ^");
}

TEST(McGuard, SymbolicReptAndHugeIrpAreRefusedBeforeExpanding) {
  EXPECT_EQ(asm_error(" .set N, 100000000\n .rept N\n nop\n .endr\n nop\n", "r.s"),
            "r.s:2:2: error: '.rept' repeats a 1-line body 100000000 times, more than the "
            "1000000 statements one assembly may expand\n .rept N\n ^");
  // The count is MC's own evaluation: expressions of symbols work, and a body that is large
  // in bytes is refused even when its statements are few.
  EXPECT_EQ(asm_error(" .set A, 1000\n .rept A * A\n .ascii \"" + std::string(100, 'x') +
                          "\"\n .endr\n",
                      "b.s"),
            "b.s:2:2: error: '.rept' repeats a 1-line body 1000000 times, more than the 1000000 "
            "statements one assembly may expand\n .rept A * A\n ^");
  std::string list;
  for (int i = 0; i < 200000; ++i) {
    list += ',';
    list += std::to_string(i);
  }
  const std::string e = asm_error(" .irp x" + list + "\n nop\n nop\n nop\n nop\n .endr\n",
                                  "i.s");
  EXPECT_EQ(e.substr(0, e.find('\n')),
            "i.s:1:2: error: '.irp' repeats a 4-line body 200000 times, more than the 1000000 "
            "statements one assembly may expand");
  // What fits is expanded as before, nested too.
  AssembleOptions o;
  auto r = assemble(" .set N, 100\n .rept N\n .rept N\n nop\n .endr\n .endr\n", "ok.s", o);
  EXPECT_TRUE(bool(r)) << llvm::toString(r.takeError());
}

TEST(McGuard, RecursiveAndExponentialMacrosEndWithAnError) {
  // A macro calling itself twice: MC's nesting limit (20) fails every branch at depth 20,
  // 2^19 times; the assembly stops after kMaxErrors errors.
  std::string e = asm_error(" .macro m\n m\n m\n .endm\n m\n", "self.s");
  EXPECT_EQ(e.substr(0, e.find('\n')),
            "self.s:5:2: error: macros cannot be nested more than 20 levels deep. Use "
            "-asm-macro-max-nesting-depth to increase this limit. (in a macro or '.rept' "
            "expansion)");
  size_t errors = 0;
  for (size_t at = e.find(": error: "); at != std::string::npos; at = e.find(": error: ", at + 1))
    ++errors;
  EXPECT_EQ(errors, kMaxErrors);
  EXPECT_NE(e.find("\nself.s: note: the assembly stopped after 20 errors"), std::string::npos) << e;
  // Macros that call each other ten times a level: 10^8 expansions of an empty macro. The
  // statement budget (a small one here, to keep the test fast) stops it at the call.
  std::string src = " .macro l0\n .endm\n";
  for (int i = 1; i <= 8; ++i) {
    src += " .macro l" + std::to_string(i) + "\n";
    for (int k = 0; k < 10; ++k)
      src += " l" + std::to_string(i - 1) + "\n";
    src += " .endm\n";
  }
  src += " nop\n l8\n nop\n";
  AssembleOptions o;
  o.max_statements = 10000;
  e = asm_error(src, "exp.s", o);
  EXPECT_EQ(e, "exp.s:100:2: error: the assembly expands to more than 10000 statements, the "
               "limit of one assembly (a macro that calls itself or others too often, or a "
               "'.rept' too large?) (in a macro or '.rept' expansion)\n l8\n ^");
}

// LLVM 14's Lanai backend writes only the low 16 bits of a fixup the assembler resolves
// itself (a symbol with an absolute value), and hi() unshifted: `.set X, 0x16000` then
// `mov X, %r9` was `mov 0x6000, %r9`, silently. They are applied as the linker applies the
// same relocation, and a value that does not fit is an error at the instruction.
TEST(McGuard, AbsoluteSymbolImmediatesAreExactOrAnError) {
  // The words at main, linked with `other` (which may define the symbols instead).
  auto words = [](const std::string& body, const std::string& other = "") {
    Object start = as(kStart, "start.s");
    Object code = as(" .text\n .globl main\nmain:\n" + body, "main.s");
    std::vector<Object> objects{code};
    if (!other.empty()) objects.push_back(as(other, "other.s"));
    FirmwareImage img = ok(link({start, objects, {}}));
    const uint32_t main = addr(img, "main");
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < 4; ++i)
      out.push_back(img.word_at(main + 4 * i));
    return out;
  };
  // Each symbolic form encodes as the literal form does (LLVM's own encoding is the oracle),
  // whether the symbol is set before or after its use.
  EXPECT_EQ(words(" .set X, 0x16000\n mov X, %r9\n ld [X], %r3\n mov hi(Z), %r9\n"
                  " mov lo(Z), %r9\n .set Z, 0x12345678\n"),
            words(" mov 0x16000, %r9\n ld [0x16000], %r3\n mov 0x12340000, %r9\n"
                  " mov 0x5678, %r9\n"));
  // And as the linker does when the symbol is defined in another object.
  EXPECT_EQ(words(" .set X, 0x1fffff\n mov X, %r1\n bt B\n nop\n .set B, 0x1000\n"),
            words(" mov X, %r1\n bt B\n nop\n",
                  " .globl X\n .set X, 0x1fffff\n .globl B\n .set B, 0x1000\n"));
  EXPECT_EQ(asm_error(" .set X, 0x200000\n mov X, %r9\n", "m.s"),
            "m.s:2:2: error: 'X' is 0x200000, which does not fit in the 21-bit unsigned "
            "immediate field (0..0x1fffff)\n mov X, %r9\n ^");
  EXPECT_EQ(asm_error(" ld [Y], %r3\n .set Y, 0x12340000\n", "l.s"),
            "l.s:1:2: error: 'Y' is 0x12340000, which does not fit in the 21-bit unsigned "
            "immediate field (0..0x1fffff)\n ld [Y], %r3\n ^");
  EXPECT_EQ(asm_error(" .set N, -4\n st %r3, [N]\n", "n.s"),
            "n.s:2:2: error: 'N' is -0x4, which does not fit in the 21-bit unsigned immediate "
            "field (0..0x1fffff)\n st %r3, [N]\n ^");
  EXPECT_EQ(asm_error(" bt T\n nop\n .set T, 0x2000000\n", "b.s"),
            "b.s:1:2: error: 'T' is 0x2000000, which does not fit in the 25-bit absolute "
            "branch field (0..0x1fffffc)\n bt T\n ^");
  EXPECT_EQ(asm_error(" .set H, 0x100000000\n mov hi(H), %r9\n", "h.s"),
            "h.s:2:2: error: 'hi(H)' is 0x100000000, which does not fit in 32 bits\n"
            " mov hi(H), %r9\n ^");
}

// llvm-mc accepts `.if end - start` for two labels in one fragment (it evaluates with the
// assembler's knowledge); so does lanaikit now.
TEST(Assemble, IfOfALabelDifferenceInOneFragment) {
  auto r = assemble(" .text\nstart:\n nop\n nop\nend:\n .if end - start == 8\n"
                    " .long 0x11111111\n .else\n .err\n .endif\n",
                    "if.s");
  EXPECT_TRUE(bool(r)) << llvm::toString(r.takeError());
  // A difference MC cannot know at that point (a label defined later) is MC's error.
  EXPECT_NE(asm_error(" .text\nstart:\n nop\n .if end - start\n nop\n .endif\nend:\n", "f.s")
                .find("f.s:4:6: error: expected absolute expression (a value known at this point: labels "
                      "count only if both are defined above, in one section, with no "
                      "alignment, '.org' or reservation between them)"),
            std::string::npos);
}

TEST(Assemble, DiagnosticsAreReturnedWithLocationAndCaret) {
  auto o = assemble("\tnop\n\tfrobnicate %r1, %r2\n\tadd %r1, %r2\n", "bad.s");
  ASSERT_FALSE(bool(o));
  std::string e = llvm::toString(o.takeError());
  EXPECT_NE(e.find("bad.s:2:2: error:"), std::string::npos) << e;
  EXPECT_NE(e.find("frobnicate %r1, %r2"), std::string::npos) << e; // the source line
  EXPECT_NE(e.find("^"), std::string::npos) << e;                   // the caret
  EXPECT_NE(e.find("bad.s:3:"), std::string::npos) << "all errors, not just the first:\n" << e;
}

// ---------------------------------------------------------------------------------------
// Relocations

TEST(Link, R25BranchesIncludingWithinAFunction) {
  Object start = as(kStart, "start.s");
  Object code = as(R"(
	.text
	.globl main
	.type main,@function
main:
	bt .Lloop          ! a branch within the function: still an R_LANAI_25
	nop
.Lloop:
	sub.f %r6, 1, %r6
	bne .Lloop
	nop
	bt _start
	nop
	.size main, .-main
)",
                   "main.s");
  FirmwareImage img = ok(link({start, {code}, {}}));
  uint32_t main = addr(img, "main");
  EXPECT_NE(main, 0u);
  EXPECT_EQ(main % 4, 0u);
  EXPECT_EQ(img.word_at(0), 0xE0000000u | main); // bt main
  EXPECT_EQ(img.word_at(main), 0xE0000000u | (main + 8));
  // bne keeps its condition bits (DDD=NE in bits 27..25, I bit 0) around the target.
  uint32_t bne = img.word_at(main + 12);
  EXPECT_EQ(bne & 0x01FFFFFCu, main + 8);
  EXPECT_EQ(bne & 0xFE000003u, 0xE6000000u) << std::hex << bne;
  EXPECT_EQ(img.word_at(main + 20), 0xE0000000u); // bt _start (address 0)
  EXPECT_EQ(img.entry, 0u);
}

TEST(Link, Hi16Lo16WithPositiveAndNegativeAddends) {
  Object start = as(kStart, "start.s");
  Object code = as(R"(
	.text
	.globl main
main:
	mov hi(table+8), %r9
	or %r9, lo(table+8), %r9
	mov hi(table+-8), %r10
	or %r10, lo(table+-8), %r10
	mov hi(_start+-8), %r11      ! 0 - 8 wraps to 0xFFFFFFF8
	or %r11, lo(_start+-8), %r11
	ld -4[%fp], %pc
	nop
	.data
	.p2align 2
	.globl table
table:
	.long 1, 2, 3, 4
)",
                   "main.s");
  FirmwareImage img = ok(link({start, {code}, {}}));
  uint32_t main = addr(img, "main"), table = addr(img, "table");
  uint32_t plus = table + 8, minus = table - 8;
  EXPECT_EQ(img.word_at(main + 0), 0x04810000u | (plus >> 16));
  EXPECT_EQ(img.word_at(main + 4), 0x54A40000u | (plus & 0xFFFF));
  EXPECT_EQ(img.word_at(main + 8) & 0xFFFF, minus >> 16);
  EXPECT_EQ(img.word_at(main + 12) & 0xFFFF, minus & 0xFFFF);
  EXPECT_EQ(img.word_at(main + 16) & 0xFFFF, 0xFFFFu);
  EXPECT_EQ(img.word_at(main + 20) & 0xFFFF, 0xFFF8u);
  // Non-relocated fields are left alone.
  EXPECT_EQ(img.word_at(main + 16) & 0xFFFF0000u, 0x05810000u);
}

TEST(Link, NegativeOffsetsFromR0AndWrappingR32) {
  Object start = as(kStart, "start.s");
  Object code = as(R"(
	.text
	.globl main
main:
	st %rv, -4092[%r0]     ! the halt word at 0xFFFFF004, no relocation
	st %r6, -4096[%r0]     ! the stdout word at 0xFFFFF000
	.data
	.globl ptrs
ptrs:
	.long _start+-4        ! R_LANAI_32 wrapping below 0
	.long main+4
	.long ptrs
)",
                   "main.s");
  FirmwareImage img = ok(link({start, {code}, {}}));
  uint32_t main = addr(img, "main"), ptrs = addr(img, "ptrs");
  EXPECT_EQ(img.word_at(main), 0x9402F004u);
  EXPECT_EQ(img.word_at(main + 4), 0x9302F000u);
  EXPECT_EQ(img.word_at(ptrs), 0xFFFFFFFCu);
  EXPECT_EQ(img.word_at(ptrs + 4), main + 4);
  EXPECT_EQ(img.word_at(ptrs + 8), ptrs);
}

TEST(Link, R21SplitsTheAddressForSlsAndSli) {
  Object start = as(kStart, "start.s");
  Object code = as(R"(
	.text
	.globl main
main:
	mov far, %r4            ! SLI, R_LANAI_21
	ld [far+8], %r1         ! SLS load, R_LANAI_21
	st %r1, [near]          ! SLS store
	.globl near
	.set near, 0x1234
)",
                   "main.s");
  Object abs = as("\t.globl far\n\t.set far, 0x1A2B4\n", "abs.s");
  FirmwareImage img = ok(link({start, {code, abs}, {}}));
  uint32_t main = addr(img, "main");
  auto field = [](uint32_t v) { return ((v >> 16) & 0x1F) << 18 | (v & 0xFFFF); };
  EXPECT_EQ(img.word_at(main), 0xF2020000u | field(0x1A2B4));
  EXPECT_EQ(img.word_at(main + 4), 0xF0800000u | field(0x1A2BC));
  EXPECT_EQ(img.word_at(main + 8), 0xF0810000u | field(0x1234));
  EXPECT_EQ(addr(img, "far"), 0x1A2B4u);
}

TEST(Link, R21FKeepsTheLowTwoBits) {
  Object start = as(kStart, "start.s");
  Object code = as("\t.text\n\t.globl main\nmain:\n\tld [far], %r1\n", "main.s");
  retype_relocations(code, llvm::ELF::R_LANAI_21, llvm::ELF::R_LANAI_21_F);
  Object abs = as("\t.globl far\n\t.set far, 0x1A2B7\n", "abs.s");
  FirmwareImage img = ok(link({start, {code, abs}, {}}));
  uint32_t main = addr(img, "main");
  EXPECT_EQ(img.word_at(main), 0xF0800000u | (1u << 18) | 0xA2B4u);
}

TEST(Link, RelocationOverflowNamesSymbolAndObject) {
  Object start = as(kStart, "start.s");
  Object code = as(R"(
	.text
	.globl main
main:
	mov far21, %r4
	bt far25
	nop
	bt odd
)",
                   "over.s");
  Object abs = as("\t.globl far21, far25, odd\n\t.set far21, 0x200000\n"
                  "\t.set far25, 0x2000000\n\t.set odd, 0x102\n",
                  "abs.s");
  std::string e = err(link({start, {code, abs}, {}}));
  EXPECT_NE(e.find("over.s: R_LANAI_21 against far21"), std::string::npos) << e;
  EXPECT_NE(e.find("over.s: R_LANAI_25 against far25"), std::string::npos) << e;
  EXPECT_NE(e.find("R_LANAI_25 against odd"), std::string::npos) << e;
  EXPECT_NE(e.find("not word aligned"), std::string::npos) << e;
}

// ---------------------------------------------------------------------------------------
// Layout, symbols, bss

TEST(Link, LayoutAlignmentAndLinkerSymbols) {
  Object start = as(kStart, "start.s");
  Object a = as(R"(
	.text
	.globl main
	.type main,@function
main:
	nop
	.size main, 4
	.section .rodata
	.globl msg
msg:
	.asciz "abc"
	.data
	.p2align 4
	.globl d16
d16:
	.long 7
	.bss
	.p2align 3
	.globl zeros
zeros:
	.space 20
	.comm shared, 12, 8
)",
                "a.s");
  Object b = as(R"(
	.text
	.globl helper
helper:
	nop
	.section .rodata.str1.1,"aMS",@progbits,1
	.globl msg2
msg2:
	.asciz "x"
	.section .rodata.cst,"a"
	.p2align 3
	.globl c8
c8:
	.long 1, 2
	.data
	.globl db
db:
	.byte 1
	.comm shared, 16, 4
)",
                "b.s");
  FirmwareImage img = ok(link({start, {a, b}, {}}));
  uint32_t text_end = addr(img, "__text_end"), data_start = addr(img, "__data_start"),
           bss_start = addr(img, "__bss_start"), bss_end = addr(img, "__bss_end");
  EXPECT_EQ(addr(img, "_start"), 0u);
  // start.s text (20 bytes) then a.s then b.s text.
  EXPECT_EQ(addr(img, "main"), 20u);
  EXPECT_EQ(addr(img, "helper"), 24u);
  EXPECT_EQ(text_end, 28u);
  EXPECT_GE(addr(img, "msg"), text_end);
  EXPECT_EQ(addr(img, "c8") % 8, 0u);
  EXPECT_LT(addr(img, "msg2"), data_start);
  EXPECT_EQ(addr(img, "d16") % 16, 0u);
  EXPECT_EQ(addr(img, "d16"), data_start);
  EXPECT_GT(addr(img, "db"), addr(img, "d16"));
  EXPECT_LT(addr(img, "db"), bss_start);
  EXPECT_EQ(bss_start % 4, 0u);
  EXPECT_EQ(addr(img, "zeros") % 8, 0u);
  EXPECT_GE(addr(img, "zeros"), bss_start);
  // COMMON: one allocation, the largest size and alignment.
  ASSERT_EQ(img.symbols_named("shared").size(), 1u);
  EXPECT_EQ(addr(img, "shared") % 8, 0u);
  EXPECT_EQ(img.symbols_named("shared")[0]->size, 16u);
  EXPECT_LE(addr(img, "shared") + 16, bss_end);
  EXPECT_EQ(bss_end % 4, 0u);
  EXPECT_EQ(addr(img, "_end"), bss_end);
  // Contents.
  EXPECT_EQ(img.word_at(addr(img, "msg")), 0x61626300u);
  EXPECT_EQ(img.word_at(addr(img, "d16")), 7u);
  EXPECT_EQ(img.word_at(addr(img, "c8") + 4), 2u);
  // Segments: text, rodata, data, bss; bss without bytes by default.
  ASSERT_EQ(img.segments.size(), 4u);
  EXPECT_EQ(img.segments[0].name, ".text");
  EXPECT_TRUE(img.segments[0].exec);
  EXPECT_FALSE(img.segments[0].write);
  EXPECT_EQ(img.segments[1].name, ".rodata");
  EXPECT_FALSE(img.segments[1].write);
  EXPECT_EQ(img.segments[2].name, ".data");
  EXPECT_TRUE(img.segments[2].write);
  EXPECT_EQ(img.segments[3].name, ".bss");
  EXPECT_EQ(img.segments[3].address, bss_start);
  EXPECT_EQ(img.segments[3].mem_size, bss_end - bss_start);
  EXPECT_TRUE(img.segments[3].bytes.empty());
  EXPECT_EQ(img.end(), bss_end);
  // Symbol kinds, sizes.
  const Symbol* m = img.symbols_named("main")[0];
  EXPECT_EQ(m->kind, SymbolKind::Function);
  EXPECT_EQ(m->size, 4u);
  EXPECT_EQ(m->binding, SymbolBinding::Global);
}

TEST(Link, LinkerSymbolsAreUsableFromCode) {
  Object start = as(R"(
	.text
	.globl _start
_start:
	mov hi(__bss_start), %r9
	or %r9, lo(__bss_start), %r9
	.data
	.long __bss_end, _end, __data_start, __text_end
	.bss
	.space 10
)",
                    "start.s");
  FirmwareImage img = ok(link({start, {}, {}}));
  uint32_t d = addr(img, "__data_start");
  EXPECT_EQ(img.word_at(d), addr(img, "__bss_end"));
  EXPECT_EQ(img.word_at(d + 4), addr(img, "_end"));
  EXPECT_EQ(img.word_at(d + 8), d);
  EXPECT_EQ(img.word_at(d + 12), addr(img, "__text_end"));
  EXPECT_EQ(img.word_at(4) & 0xFFFF, addr(img, "__bss_start"));
  EXPECT_EQ(addr(img, "__bss_end") - addr(img, "__bss_start"), 12u); // 10 rounded to 4
}

TEST(Link, ZeroBssOptionPutsZerosInTheImage) {
  Object start = as("\t.globl _start\n_start:\n\tnop\n\t.bss\n\t.space 32\n", "s.s");
  LinkOptions o;
  o.zero_bss = true;
  FirmwareImage img = ok(link({start, {}, {}}, o));
  ASSERT_EQ(img.segments.back().name, ".bss");
  EXPECT_EQ(img.segments.back().bytes, std::vector<uint8_t>(32, 0));
}

TEST(Link, WeakSymbols) {
  Object start = as(kStart, "start.s");
  Object a = as(R"(
	.text
	.weak main
main:
	nop
	.weak hook
	.data
	.long hook
)",
                "weak.s");
  Object b = as("\t.text\n\t.globl main\nmain:\n\tnop\n\tnop\n", "strong.s");
  FirmwareImage img = ok(link({start, {a, b}, {}}));
  // The strong definition (in strong.s, after weak.s's 4 bytes) wins; the undefined weak
  // hook is 0.
  EXPECT_EQ(addr(img, "main"), 24u);
  EXPECT_EQ(img.word_at(addr(img, "__data_start")), 0u);
}

TEST(Link, StartMustBeAtZero) {
  Object start = as("\t.text\n\tnop\n\t.globl _start\n_start:\n\tnop\n", "s.s");
  std::string e = err(link({start, {}, {}}));
  EXPECT_NE(e.find("_start"), std::string::npos) << e;
  EXPECT_NE(e.find("offset 0"), std::string::npos) << e;
  std::string e2 = err(link({std::nullopt, {as("\tnop\n", "x.s")}, {}}));
  EXPECT_NE(e2.find("undefined symbol: _start"), std::string::npos) << e2;
}

// ---------------------------------------------------------------------------------------
// Errors

TEST(Link, UndefinedSymbolsNameEveryReferrer) {
  Object start = as(kStart, "start.s");
  Object a = as("\t.text\n\t.globl main\nmain:\n\tbt missing\n\tnop\n\tbt gone\n", "a.s");
  Object b = as("\t.data\n\t.long missing\n", "b.s");
  std::string e = err(link({start, {a, b}, {}}));
  EXPECT_NE(e.find("undefined symbol: missing (referenced by a.s, b.s)"), std::string::npos) << e;
  EXPECT_NE(e.find("undefined symbol: gone (referenced by a.s)"), std::string::npos) << e;
}

TEST(Link, DuplicateSymbolsNameEveryDefiner) {
  Object start = as(kStart, "start.s");
  Object a = as("\t.text\n\t.globl main, dup\nmain:\ndup:\n\tnop\n", "a.s");
  Object b = as("\t.data\n\t.globl dup\ndup:\n\t.long 0\n", "b.s");
  Object c = as("\t.text\n\t.globl main\nmain:\n\tnop\n", "c.s");
  std::string e = err(link({start, {a, b, c}, {}}));
  EXPECT_NE(e.find("duplicate symbol: dup (defined in a.s, b.s)"), std::string::npos) << e;
  EXPECT_NE(e.find("duplicate symbol: main (defined in a.s, c.s)"), std::string::npos) << e;
}

TEST(Link, SramOverflowSaysByHowMuch) {
  Object start = as(kStart, "start.s");
  // Two objects: one object beyond SRAM is refused when it is assembled (asm_limits.h,
  // mc_guard.h), so it is the link that overflows.
  Object a = as("\t.text\n\t.globl main\nmain:\n\tnop\n\t.bss\n\t.space 150000\n", "big.s");
  Object b = as("\t.bss\n\t.space 150000\n", "big2.s");
  std::string e = err(link({start, {a, b}, {}}));
  // 24 bytes of text + 300000 of bss = 300024 > 262144.
  EXPECT_NE(e.find("overflow by 37880 bytes"), std::string::npos) << e;
  LinkOptions o;
  o.sram_size = 512 * 1024;
  ok(link({start, {a, b}, {}}, o));
}

TEST(Link, RejectsNonLanaiObjects) {
  Object junk{"junk.o", "not an object", {}};
  std::string e = err(link({std::nullopt, {junk}, {}}));
  EXPECT_NE(e.find("junk.o"), std::string::npos) << e;
}

// ---------------------------------------------------------------------------------------
// Archive semantics

TEST(Link, LibraryObjectsAreLinkedOnlyWhenNeeded) {
  Object start = as(kStart, "start.s");
  Object main = as("\t.text\n\t.globl main\nmain:\n\tbt used_fn\n\tnop\n", "main.s");
  // helper.o comes before used.o but is only needed by it: needs a second pass.
  Object helper = as("\t.text\n\t.globl helper\nhelper:\n\tnop\n", "helper.o");
  Object used = as("\t.text\n\t.globl used_fn\nused_fn:\n\tbt helper\n\tnop\n", "used.o");
  Object unused = as("\t.text\n\t.globl unused_fn\nunused_fn:\n\tbt nowhere\n", "unused.o");
  // A library symbol the program defines itself does not pull the library in either.
  Object dup_main = as("\t.text\n\t.globl main\nmain:\n\tnop\n", "libmain.o");
  FirmwareImage img = ok(link({start, {main}, {helper, used, unused, dup_main}}));
  EXPECT_TRUE(img.symbol("used_fn"));
  EXPECT_TRUE(img.symbol("helper"));
  EXPECT_FALSE(img.symbol("unused_fn"));
  EXPECT_EQ(img.symbols_named("main").size(), 1u);
  // Nothing needed: nothing pulled.
  FirmwareImage img2 = ok(link({start, {as("\t.globl main\nmain:\n", "m.s")}, {used, helper}}));
  EXPECT_FALSE(img2.symbol("used_fn"));
  EXPECT_FALSE(img2.symbol("helper"));
}

// ---------------------------------------------------------------------------------------
// C through clang

TEST(Compile, TwoCFilesCallingEachOtherWithAPointerTable) {
  TempDir dir;
  std::string a = dir.file("a.c", R"(int b_fn(int);
int counter;
int a_fn(int x) { return x > 0 ? b_fn(x - 1) + 1 : 0; }
int main(void) { return a_fn(5); }
)");
  std::string b = dir.file("b.c", R"(int a_fn(int);
extern int counter;
static int local_table_value = 42;
int *table[] = { &counter, &local_table_value, 0 };
int (*fns[])(int) = { a_fn, b_fn_decl_guard_unused_never };
int b_fn(int x) { counter++; return a_fn(x); }
)");
  // (typo guard: make sure a compile error is reported with clang's diagnostics)
  auto bad = compile_c(b);
  ASSERT_FALSE(bool(bad));
  std::string e = llvm::toString(bad.takeError());
  EXPECT_NE(e.find("b.c:5:"), std::string::npos) << e;
  EXPECT_NE(e.find("error:"), std::string::npos) << e;

  b = dir.file("b.c", R"(int a_fn(int);
int b_fn(int);
extern int counter;
static int local_table_value = 42;
int *table[] = { &counter, &local_table_value, 0 };
int (*fns[])(int) = { a_fn, b_fn };
int b_fn(int x) { counter++; return a_fn(x); }
)");
  std::string s = dir.file("start.s", kStart);
  BuildOptions bo;
  bo.startup = s;
  FirmwareImage img = ok(build({a, b}, bo));
  uint32_t table = addr(img, "table"), fns = addr(img, "fns");
  EXPECT_EQ(img.word_at(table), addr(img, "counter"));
  EXPECT_EQ(img.word_at(table + 4), addr(img, "local_table_value"));
  EXPECT_EQ(img.word_at(addr(img, "local_table_value")), 42u);
  EXPECT_EQ(img.word_at(table + 8), 0u);
  EXPECT_EQ(img.word_at(fns), addr(img, "a_fn"));
  EXPECT_EQ(img.word_at(fns + 4), addr(img, "b_fn"));
  EXPECT_EQ(img.word_at(0), 0xE0000000u | addr(img, "main"));
  const Symbol* f = img.symbol_at(addr(img, "b_fn") + 4);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->name, "b_fn");
  EXPECT_EQ(f->kind, SymbolKind::Function);
  // Every branch in the program lands in a function.
  const Segment& text = img.segments[0];
  for (uint32_t a = 0; a + 4 <= text.bytes.size(); a += 4) {
    uint32_t w = img.word_at(a);
    if ((w & 0xF0000002u) == 0xE0000000u) { // BR (not BRR)
      uint32_t target = w & 0x01FFFFFCu;
      EXPECT_LT(target, text.end()) << "branch at " << a;
      EXPECT_NE(img.symbol_at(target), nullptr) << "branch at " << a;
    }
  }
}

TEST(Compile, AllOptLevelsAndLineTable) {
  TempDir dir;
  std::string c = dir.file("lines.c", "int g;\n"
                                      "int main(void) {\n"
                                      "  g = 3;\n"
                                      "  return g + 1;\n"
                                      "}\n");
  std::string s = dir.file("start.s", kStart);
  for (OptLevel o : {OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::Os}) {
    BuildOptions bo;
    bo.startup = s;
    bo.opt = o;
    FirmwareImage img = ok(build({c}, bo));
    EXPECT_TRUE(img.lines.empty());
    EXPECT_TRUE(img.symbol("main")) << opt_flag(o);
  }
  BuildOptions bo;
  bo.startup = s;
  bo.opt = OptLevel::O0;
  bo.debug = true;
  FirmwareImage img = ok(build({c}, bo));
  ASSERT_FALSE(img.lines.empty());
  uint32_t main = addr(img, "main");
  auto loc = img.line_at(main);
  ASSERT_TRUE(loc.has_value());
  EXPECT_TRUE(llvm::StringRef(loc->file).endswith("lines.c")) << loc->file;
  EXPECT_TRUE(llvm::sys::path::is_absolute(loc->file)) << loc->file;
  EXPECT_EQ(loc->line, 2u);
  // Some instruction of main maps to lines 3 and 4.
  bool saw3 = false, saw4 = false;
  const Symbol* m = img.symbols_named("main")[0];
  for (uint32_t a = main; a < main + m->size; a += 4)
    if (auto l = img.line_at(a)) {
      saw3 |= l->line == 3;
      saw4 |= l->line == 4;
      EXPECT_EQ(l->file, loc->file);
    }
  EXPECT_TRUE(saw3);
  EXPECT_TRUE(saw4);
  // The startup code (assembled without -g here... but build used debug for it too) and
  // addresses past the text have no C line.
  EXPECT_FALSE(img.line_at(addr(img, "__text_end") + 0x1000).has_value());
}

TEST(Compile, AssemblyWithDebugHasLines) {
  auto o = assemble("\t.globl _start\n_start:\n\tnop\n\tnop\n\tadd %r0, 1, %r3\n", "dbg.s",
                    AssembleOptions{true});
  ASSERT_TRUE(bool(o)) << llvm::toString(o.takeError());
  FirmwareImage img = ok(link({std::move(*o), {}, {}}));
  auto l = img.line_at(8);
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->line, 5u);
  EXPECT_TRUE(llvm::StringRef(l->file).endswith("dbg.s")) << l->file;
}

TEST(Compile, MissingCompilerIsAClearError) {
  TempDir dir;
  std::string c = dir.file("x.c", "int main(void){return 0;}\n");
  const char* old = std::getenv("LANAIKIT_CLANG");
  std::string saved = old ? old : "";
  setenv("LANAIKIT_CLANG", "/nonexistent/clang-14", 1);
  auto r = compile_c(c);
  if (old)
    setenv("LANAIKIT_CLANG", saved.c_str(), 1);
  else
    unsetenv("LANAIKIT_CLANG");
  ASSERT_FALSE(bool(r));
  std::string e = llvm::toString(r.takeError());
  EXPECT_NE(e.find("/nonexistent/clang-14"), std::string::npos) << e;
  EXPECT_NE(e.find("not found"), std::string::npos) << e;
}

TEST(Compile, CommandLine) {
  CompileOptions co;
  co.opt = OptLevel::Os;
  co.debug = true;
  co.include_dirs = {"inc"};
  auto cmd = compile_command("f.c", "f.o", co);
  std::string joined;
  for (auto& a : cmd)
    joined += a + " ";
  EXPECT_NE(joined.find("--target=lanai"), std::string::npos);
  EXPECT_NE(joined.find("-ffreestanding"), std::string::npos);
  EXPECT_NE(joined.find("-Os -g -Iinc -c -o f.o f.c"), std::string::npos) << joined;
  EXPECT_EQ(joined.find(" -S "), std::string::npos);
}

TEST(Build, CollectsErrorsFromAllInputsAndRejectsUnknownKinds) {
  TempDir dir;
  std::string s1 = dir.file("e1.s", "\tbogus1\n");
  std::string s2 = dir.file("e2.s", "\tbogus2\n");
  std::string t = dir.file("x.txt", "");
  BuildOptions bo;
  bo.nostdlib = true;
  std::string e = err(build({s1, s2, t}, bo));
  EXPECT_NE(e.find("e1.s:1:2: error"), std::string::npos) << e;
  EXPECT_NE(e.find("e2.s:1:2: error"), std::string::npos) << e;
  EXPECT_NE(e.find("x.txt: unknown input kind"), std::string::npos) << e;
}

TEST(Build, RuntimeObjectsAndNostdlib) {
  TempDir dir;
  std::string start = dir.file("crt0.s", kStart);
  std::string rt = dir.file("rt.s", "\t.globl putc\nputc:\n\tst %r6, -4096[%r0]\n");
  std::string rt2 = dir.file("rt2.s", "\t.globl unused\nunused:\n\tnop\n");
  std::string m = dir.file("m.s", "\t.globl main\nmain:\n\tbt putc\n\tnop\n");
  BuildOptions bo;
  bo.startup = start;
  bo.runtime = {rt, rt2};
  FirmwareImage img = ok(build({m}, bo));
  EXPECT_TRUE(img.symbol("putc"));
  EXPECT_FALSE(img.symbol("unused"));
  bo.nostdlib = true;
  std::string e = err(build({m}, bo));
  EXPECT_NE(e.find("undefined symbol: putc"), std::string::npos) << e;
  EXPECT_NE(e.find("undefined symbol: _start"), std::string::npos) << e;
}

// ---------------------------------------------------------------------------------------
// Image lookups

TEST(Image, SymbolAtAndLineAt) {
  FirmwareImage img;
  img.segments.push_back({".text", 0, std::vector<uint8_t>(64, 0), 64, true, false});
  img.symbols = {{"_start", 0, 0, SymbolKind::NoType, SymbolBinding::Global},
                 {"f", 16, 16, SymbolKind::Function, SymbolBinding::Global},
                 {"g", 40, 0, SymbolKind::NoType, SymbolBinding::Global},
                 {"obj", 60, 4, SymbolKind::Object, SymbolBinding::Local}};
  EXPECT_EQ(img.symbol_at(4)->name, "_start");
  EXPECT_EQ(img.symbol_at(16)->name, "f");
  EXPECT_EQ(img.symbol_at(31)->name, "f");
  EXPECT_EQ(img.symbol_at(32), nullptr); // after the sized f, before g
  EXPECT_EQ(img.symbol_at(44)->name, "g");
  EXPECT_EQ(img.symbol_at(100), nullptr);
  img.files = {"a.c"};
  img.lines = {{0, 0, 1, 1, false}, {8, 0, 2, 0, false}, {12, 0, 0, 0, true},
               {12, 0, 7, 3, false}, {20, 0, 0, 0, true}};
  EXPECT_EQ(img.line_at(0)->line, 1u);
  EXPECT_EQ(img.line_at(11)->line, 2u);
  EXPECT_EQ(img.line_at(12)->line, 7u);
  EXPECT_EQ(img.line_at(12)->column, 3u);
  EXPECT_FALSE(img.line_at(20).has_value());
  EXPECT_EQ(img.symbol("f"), 16u);
  EXPECT_FALSE(img.symbol("nope"));
}

// ---------------------------------------------------------------------------------------
// ELF

TEST(Elf, WriteDisassembleAndReadBack) {
  TempDir dir;
  std::string c = dir.file("prog.c", "int data[4] = {1, 2, 3, 4};\n"
                                     "int bss[8];\n"
                                     "const char msg[] = \"hi\";\n"
                                     "int main(void) {\n"
                                     "  for (int i = 0; i < 4; i++) bss[i] = data[i] + msg[0];\n"
                                     "  return bss[3];\n"
                                     "}\n");
  std::string s = dir.file("start.s", kStart);
  BuildOptions bo;
  bo.startup = s;
  bo.debug = true;
  FirmwareImage img = ok(build({c}, bo));
  ASSERT_FALSE(img.lines.empty());
  std::string out = dir.path("prog.elf");
  ASSERT_FALSE(bool(write_elf(img, out)));

  auto back = read_elf(out);
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->segments, img.segments);
  EXPECT_EQ(back->symbols, img.symbols);
  EXPECT_EQ(back->files, img.files);
  EXPECT_EQ(back->lines, img.lines);
  EXPECT_EQ(back->entry, img.entry);
  EXPECT_TRUE(*back == img);

  // zero_bss images round-trip too.
  bo.zero_bss = true;
  FirmwareImage z = ok(build({c}, bo));
  auto zb = parse_elf(
      [&] {
        auto v = elf_bytes(z);
        return std::string(v.begin(), v.end());
      }(),
      "z");
  ASSERT_TRUE(bool(zb)) << llvm::toString(zb.takeError());
  EXPECT_TRUE(*zb == z);

#ifdef LANAIKIT_OBJDUMP
  std::string dis = dir.path("dis.txt");
  llvm::StringRef args[] = {LANAIKIT_OBJDUMP, "-d", "-t", out};
  llvm::Optional<llvm::StringRef> redirects[] = {llvm::None, llvm::StringRef(dis),
                                                 llvm::StringRef(dis)};
  int rc = llvm::sys::ExecuteAndWait(LANAIKIT_OBJDUMP, args, llvm::None, redirects);
  std::ifstream in(dis);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  EXPECT_EQ(rc, 0) << text;
  EXPECT_NE(text.find("elf32-lanai"), std::string::npos) << text;
  EXPECT_NE(text.find("<_start>:"), std::string::npos) << text;
  EXPECT_NE(text.find("<main>:"), std::string::npos) << text;
  EXPECT_NE(text.find("bt\t0x"), std::string::npos) << text;
  EXPECT_NE(text.find("st\t%rv, -4092[%r0]"), std::string::npos) << text;
  EXPECT_NE(text.find("\tld\t"), std::string::npos) << text;
  EXPECT_EQ(text.find("<unknown>"), std::string::npos) << text;
#else
  GTEST_SKIP() << "llvm-objdump-14 not found; disassembly check skipped";
#endif
}

TEST(Elf, ReadRejectsOtherFiles) {
  TempDir dir;
  auto e1 = read_elf(dir.file("t.txt", "hello, this is not an ELF file at all"));
  ASSERT_FALSE(bool(e1));
  EXPECT_NE(llvm::toString(e1.takeError()).find("not an ELF file"), std::string::npos);

  auto e2 = read_elf("/proc/self/exe"); // the host test binary: ELF64 x86-64
  ASSERT_FALSE(bool(e2));
  EXPECT_NE(llvm::toString(e2.takeError()).find("not a Lanai"), std::string::npos);

  Object o = as(kStart, "start.s");
  auto e3 = parse_elf(o.data, "start.o");
  ASSERT_FALSE(bool(e3));
  EXPECT_NE(llvm::toString(e3.takeError()).find("relocatable object"), std::string::npos);

  auto e4 = read_elf(dir.path("missing.elf"));
  ASSERT_FALSE(bool(e4));
  EXPECT_NE(llvm::toString(e4.takeError()).find("cannot read"), std::string::npos);
}

// Images a loader would load wrongly without a word: overlapping segments (the later one
// would win), nothing to load (SRAM would run whatever it held), a segment past 4 GiB.
TEST(Elf, ReadRejectsImagesThatCannotLoadAsWritten) {
  auto parse = [](const FirmwareImage& img) {
    const std::vector<uint8_t> b = elf_bytes(img);
    auto r = parse_elf(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()), "x.elf");
    return r ? std::string("parsed") : llvm::toString(r.takeError());
  };
  FirmwareImage img;
  img.segments.push_back({".text", 0, std::vector<uint8_t>(16, 1), 16, true, false});
  img.segments.push_back({".data", 8, std::vector<uint8_t>(16, 2), 16, false, true});
  EXPECT_EQ(parse(img), "x.elf: segments overlap: .text [0x00000000, 0x00000010) and .data "
                        "[0x00000008, 0x00000018)");
  img.segments[1].address = 16; // adjacent is fine
  EXPECT_EQ(parse(img), "parsed");
  img.segments[1].address = 0xFFFFFFF8;
  EXPECT_EQ(parse(img), "x.elf: segment .data [0xfffffff8, 0x100000008) runs past the 32-bit "
                        "address space");
  EXPECT_EQ(parse(FirmwareImage{}), "x.elf: nothing to load (no PT_LOAD segment with a size); "
                                    "not a firmware image built by `lanaikit build`?");
}

// ---------------------------------------------------------------------------------------
// With the real runtime (firmware/lib), when the build has it.

TEST(Runtime, LinksCrt0AndPullsOnlyNeededHelpers) {
#if defined(LANAIKIT_CRT0) && defined(LANAIKIT_RUNTIME_OBJECTS)
  TempDir dir;
  std::string c = dir.file("prog.c", R"(struct S { int a[256]; } s1, s2;
unsigned long long q(unsigned long long a, unsigned b) { return a / b; }
int main(void) { s2 = s1; return (int)q(1000000000000ull, 7); }
)");
  BuildOptions bo;
  bo.startup = LANAIKIT_CRT0;
  std::stringstream list(LANAIKIT_RUNTIME_OBJECTS);
  for (std::string item; std::getline(list, item, ';');)
    if (!item.empty())
      bo.runtime.push_back(item);
  FirmwareImage img = ok(build({c}, bo));
  EXPECT_EQ(addr(img, "_start"), 0u);
  EXPECT_EQ(img.entry, 0u);
  EXPECT_TRUE(img.symbol("memcpy"));    // the struct copy
  EXPECT_TRUE(img.symbol("__udivdi3")); // 64-bit division
  EXPECT_FALSE(img.symbol("strlen"));   // not needed: not linked
  EXPECT_EQ(addr(img, "__bss_end") - addr(img, "__bss_start"), 2048u);
#else
  GTEST_SKIP() << "the firmware runtime is not part of this build";
#endif
}

// Found by tests/fuzz/link_fuzz (crashes/link-bad-rela-symtab, link-rela-outside-file): a
// relocation section whose symbol table index is not a section, or whose entries lie
// outside the file, made LLVM's DWARF reader abort the process ("LLVM ERROR: Invalid data
// was encountered while parsing the file"); one with a wrong entry size divides by it. All
// are refused with an error naming the section.
TEST(Link, MalformedRelocationSectionsAreErrorsNotAborts) {
  auto object = [] {
    AssembleOptions g;
    g.debug = true; // .rela.debug_line: the DWARF reader relocates it
    auto o = assemble("\t.text\n\t.globl main\nmain:\n\tbt main\n\tnop\n", "m.s", g);
    EXPECT_TRUE(bool(o));
    return o ? std::move(*o) : Object{};
  };
  Object bad_link = object();
  patch_rela_headers(bad_link, 24, 999);
  LinkInputs in;
  in.startup = as(kStart, "start.s");
  in.objects = {bad_link};
  EXPECT_NE(err(link(in)).find("m.s: relocation section "), std::string::npos);
  const std::string why = err(link(in));
  EXPECT_NE(why.find(" names section 999 as its symbol table; it is not one (the object has "),
            std::string::npos)
      << why;

  Object bad_size = object();
  patch_rela_headers(bad_size, 36, 0);
  in.objects = {bad_size};
  const std::string why0 = err(link(in));
  EXPECT_NE(why0.find("m.s: relocation section "), std::string::npos) << why0;
  EXPECT_NE(why0.find(" has entries of 0 bytes, not 12"), std::string::npos) << why0;

  Object outside = object();
  patch_rela_headers(outside, 16, 0x7FFFFFF0); // sh_offset past the end of the file
  in.objects = {outside};
  const std::string why1 = err(link(in));
  EXPECT_NE(why1.find("m.s: relocation section "), std::string::npos) << why1;
  EXPECT_NE(why1.find(" is unreadable: "), std::string::npos) << why1;
}

// Found by tests/fuzz/link_fuzz (crashes/link-nothing-to-load): without a startup object,
// inputs with no code or data linked into an image with no segment at all, which the image
// reader refuses ("nothing to load") and which would run whatever SRAM held. The linker
// refuses to make it.
TEST(Link, NothingToLoadIsAnError) {
  LinkInputs in;
  // _start labels an empty .text: the entry exists, the image holds nothing.
  in.objects = {as("\t.text\n\t.globl _start\n_start:\n", "empty.s")};
  const std::string why = err(link(in));
  EXPECT_EQ(why, "nothing to load: the inputs have no code or data (1 object(s), no startup object)");
  in.objects = {as("\t.text\n\t.globl _start\n_start:\n\tnop\n", "f.s")};
  FirmwareImage img = ok(link(in));
  EXPECT_EQ(img.segments.size(), 1u);
}

// Links `o` behind a minimal startup object, collecting the linker's warnings.
FirmwareImage link_collecting_warnings(const Object& o, std::vector<std::string>& warnings) {
  LinkInputs in;
  in.startup = as(kStart, "start.s");
  in.objects = {o};
  LinkOptions lo;
  lo.warnings = &warnings;
  return ok(link(in, lo));
}

// Found by tests/fuzz/link_fuzz (crashes/link-segv-in-libllvm): a DWARF 5 line table whose
// file entry format names form 0 made LLVM 14 jump into the void (llvm-dwarfdump-14
// crashes on it too). The linker reads every line-table header first and ignores the line
// tables of an object whose entry formats use forms outside what compilers write, with a
// warning; the link itself succeeds.
TEST(Link, LineTableFormsLlvmCannotReadAreIgnoredWithAWarning) {
  TempDir dir;
  BuildOptions bo;
  bo.debug = true;
  auto compiled = load_input(dir.file("f.c", "int f(int x) { return x * 3; }\n"
                                             "int main(void) { return f(2); }\n"),
                             bo);
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  Object o = std::move(*compiled);
  // clang's file entry format: path (line_strp), directory index (udata), MD5 (data16).
  const std::string format("\x03\x01\x1f\x02\x0f\x05\x1e", 7);
  const size_t at = o.data.find(format);
  ASSERT_NE(at, std::string::npos) << "clang-14 -g no longer writes the expected DWARF 5 format";
  std::vector<std::string> warnings;
  FirmwareImage good = link_collecting_warnings(o, warnings);
  EXPECT_FALSE(good.lines.empty());
  EXPECT_TRUE(warnings.empty());

  o.data[at + 6] = 0; // the MD5's form: 0, no form at all
  FirmwareImage img = link_collecting_warnings(o, warnings);
  EXPECT_TRUE(img.lines.empty());
  EXPECT_TRUE(img.symbol("main"));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find(": warning: line table ignored: form 0x0 in the file entry format of "
                             "the unit at offset 0"),
            std::string::npos)
      << warnings[0];
}

// Found by tests/fuzz/link_fuzz (crashes/link-empty-entry-format-hang): a DWARF 5 line
// table whose directory entry format is empty but whose directory count is huge. Such
// entries take no bytes, so nothing bounded the count: the header check spun over them
// (10 s of linking for the count the fuzzer found; far longer for the 2^34 here), and LLVM
// would have appended that many entries. The table is refused with a warning instead.
TEST(Link, LineTableWithCountedEntriesOfAnEmptyFormatIsIgnoredAtOnce) {
  TempDir dir;
  BuildOptions bo;
  bo.debug = true;
  auto compiled = load_input(dir.file("f.c", "int main(void) { return 0; }\n"), bo);
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  Object o = std::move(*compiled);
  // clang's directory entry format: one pair, path (line_strp); then the count (< 128).
  const std::string format("\x01\x01\x1f", 3);
  const size_t at = o.data.find(format);
  ASSERT_NE(at, std::string::npos) << "clang-14 -g no longer writes the expected DWARF 5 format";
  const uint8_t dirs = uint8_t(o.data[at + 3]);
  ASSERT_TRUE(dirs >= 1 && dirs < 0x80);
  // No pairs, 2^34 - 1 directories (a 5-byte ULEB128), then zeros over the old entries.
  std::string evil("\x00\xff\xff\xff\xff\x3f", 6);
  evil.resize(4 + 4 * size_t(dirs), '\0');
  o.data.replace(at, evil.size(), evil);
  std::vector<std::string> warnings;
  FirmwareImage img = link_collecting_warnings(o, warnings);
  EXPECT_TRUE(img.lines.empty());
  EXPECT_TRUE(img.symbol("main"));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find(": warning: line table ignored: 17179869183 directory entries with an "
                             "empty entry format in the unit at offset 0"),
            std::string::npos)
      << warnings[0];
}
