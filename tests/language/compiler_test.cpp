// The compiler as a whole: objects and their layout tables, line tables with -g, the
// emitted stages, speed on a large file, and robustness on mangled input.
#include "assembler/build.h"
#include "assembler/fw/compile.h"
#include "assembler/layout.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>

#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

namespace lanaikit::fw {
namespace {

namespace fs = std::filesystem;

const char* const kProgram = R"(import "debug.fw";
struct Slot {
  len: u16;
  kind: u8;
  addr: u32;
  route: u8[3];
}
var sendq: Slot[4] @ 0x8000;
var count: u32;
handler on_packet() {
  count += 1;
}
handler on_doorbell() {
  sendq[0].len = 7;
}
fn main() -> i32 {
  on_packet();
  on_doorbell();
  PUTC = 'k';
  return count as i32;
}
)";

fs::path write_temp(const std::string& name, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / "lanaikit_fw_compiler_test";
  fs::create_directories(dir);
  std::ofstream(dir / name) << text;
  return dir / name;
}

CompileOptions options() {
  CompileOptions o;
  o.import_dirs.push_back(LANAIKIT_FW_LIB);
  return o;
}

std::optional<assembler::LayoutTable> layout_of(const assembler::Object& obj) {
  auto buf = llvm::MemoryBuffer::getMemBuffer(obj.data, obj.name, false);
  auto file = llvm::object::ObjectFile::createObjectFile(buf->getMemBufferRef());
  if (!file) {
    llvm::consumeError(file.takeError());
    return std::nullopt;
  }
  for (const auto& sec : (*file)->sections()) {
    auto name = sec.getName();
    if (!name || name->str() != assembler::kLayoutSection) {
      if (!name) llvm::consumeError(name.takeError());
      continue;
    }
    auto contents = sec.getContents();
    if (!contents) {
      llvm::consumeError(contents.takeError());
      return std::nullopt;
    }
    return assembler::decode_layout(reinterpret_cast<const uint8_t*>(contents->data()),
                                    contents->size());
  }
  return std::nullopt;
}

TEST(LanguageCompiler, ObjectCarriesTheLayoutTable) {
  CompileResult r = compile_source(kProgram, write_temp("layout.fw", kProgram).string(), options());
  ASSERT_TRUE(r.ok) << r.diagnostics;
  auto table = layout_of(r.object);
  ASSERT_TRUE(table.has_value());
  const assembler::StructLayout* slot = table->find_struct("Slot");
  ASSERT_NE(slot, nullptr);
  EXPECT_EQ(slot->size, 12u);
  EXPECT_EQ(slot->align, 4u);
  ASSERT_EQ(slot->fields.size(), 4u);
  EXPECT_EQ(slot->field("len").offset, 0u);
  EXPECT_EQ(slot->field("kind").offset, 2u);
  EXPECT_EQ(slot->field("addr").offset, 4u);
  EXPECT_EQ(slot->field("route").offset, 8u);
  EXPECT_EQ(slot->field("route").size, 3u);
  EXPECT_EQ(slot->field("route").type, "u8[3]");
  const assembler::GlobalLayout* q = table->find_global("sendq");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->type, "Slot[4]");
  EXPECT_EQ(q->size, 48u);
  EXPECT_EQ(q->pinned_address, std::optional<uint32_t>(0x8000));
  const assembler::GlobalLayout* c = table->find_global("count");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->pinned_address.has_value());
  EXPECT_TRUE(table->is_handler("on_packet"));
  EXPECT_TRUE(table->is_handler("on_doorbell"));
  EXPECT_FALSE(table->is_handler("main"));
}

TEST(LanguageCompiler, ImageHasPinnedSymbolsLayoutAndFwLines) {
  const fs::path src = write_temp("image.fw", kProgram);
  assembler::BuildOptions bo;
  bo.startup = LANAIKIT_CRT0;
  bo.debug = true;
  bo.include_dirs.push_back(LANAIKIT_FW_LIB);
  auto image = assembler::build({src.string()}, bo);
  ASSERT_TRUE(bool(image)) << llvm::toString(image.takeError());
  EXPECT_EQ(image->symbol("sendq"), std::optional<uint32_t>(0x8000));
  ASSERT_TRUE(image->symbol("on_packet").has_value());
  EXPECT_TRUE(image->layout_table.is_handler("on_packet"));
  // -g: the line table maps the handler's code to this .fw file and its lines.
  const uint32_t addr = *image->symbol("on_packet");
  auto loc = image->line_at(addr);
  ASSERT_TRUE(loc.has_value());
  EXPECT_NE(loc->file.find("image.fw"), std::string::npos) << loc->file;
  EXPECT_GE(loc->line, 10u);
  EXPECT_LE(loc->line, 12u);
  auto mloc = image->line_at(*image->symbol("main"));
  ASSERT_TRUE(mloc.has_value());
  EXPECT_GE(mloc->line, 16u);
  EXPECT_LE(mloc->line, 21u);
}

TEST(LanguageCompiler, EmitStages) {
  const fs::path src = write_temp("emit.fw", kProgram);
  CompileResult ast = emit_text(src.string(), Emit::Ast, options());
  ASSERT_TRUE(ast.ok) << ast.diagnostics;
  EXPECT_NE(ast.text.find("Handler on_packet"), std::string::npos) << ast.text;
  CompileResult ir = emit_text(src.string(), Emit::Ir, options());
  ASSERT_TRUE(ir.ok) << ir.diagnostics;
  EXPECT_NE(ir.text.find("define dso_local void @on_packet()"), std::string::npos) << ir.text;
  EXPECT_NE(ir.text.find("store volatile i32 107, i32* inttoptr (i32 -4096 to i32*)"),
            std::string::npos) << ir.text;
  CompileResult as = emit_text(src.string(), Emit::Asm, options());
  ASSERT_TRUE(as.ok) << as.diagnostics;
  EXPECT_NE(as.text.find("on_packet:"), std::string::npos) << as.text;
  CompileResult obj = emit_text(src.string(), Emit::Obj, options());
  ASSERT_TRUE(obj.ok);
  EXPECT_EQ(obj.object.data.substr(0, 4), "\x7f" "ELF");
}

TEST(LanguageCompiler, HelpersAreInternalAndHandlersNeverInlined) {
  const std::string src = "var n: u32;\n"
                          "fn helper(x: u32) -> u32 { return x + 1; }\n"
                          "handler h() { n = helper(n); }\n"
                          "fn main() -> i32 { h(); return 0; }\n";
  const fs::path path = write_temp("linkage.fw", src);
  CompileResult ir = emit_text(path.string(), Emit::Ir, options());
  ASSERT_TRUE(ir.ok) << ir.diagnostics;
  EXPECT_EQ(ir.text.find("@helper"), std::string::npos) << "helper should be inlined away";
  EXPECT_NE(ir.text.find("call void @h()"), std::string::npos) << ir.text;
}

// A pinned global the host writes by PIO: `volatile var` makes every access a volatile
// load/store (fields and elements included), so a poll loop reads it every time; a plain
// pinned global's loop load is hoisted (firmware/raw/compiler-bugs/pinned_poll.fw).
TEST(LanguageCompiler, VolatileGlobalsAreReadEveryTime) {
  const std::string src = "struct Box { flag: u32; words: u32[2]; }\n"
                          "volatile var box: Box @ 0x10000;\n"
                          "var plain: Box @ 0x10010;\n"
                          "var copy: Box;\n"
                          "fn main() -> i32 {\n"
                          "  while box.flag == 0 { }\n"
                          "  while box.words[1] == 0 { }\n"
                          "  while plain.flag == 0 { }\n"
                          "  copy = box;\n"
                          "  return 0;\n"
                          "}\n";
  const fs::path path = write_temp("volatile.fw", src);
  CompileOptions o = options();
  o.opt = assembler::OptLevel::O2;
  CompileResult ir = emit_text(path.string(), Emit::Ir, o);
  ASSERT_TRUE(ir.ok) << ir.diagnostics;
  EXPECT_NE(ir.text.find("load volatile i32, i32* inttoptr (i32 65536 to i32*)"), std::string::npos)
      << ir.text;
  EXPECT_NE(ir.text.find("load volatile i32, i32* inttoptr (i32 65544 to i32*)"), std::string::npos)
      << ir.text;
  EXPECT_EQ(ir.text.find("load volatile i32, i32* inttoptr (i32 65552"), std::string::npos)
      << "the plain global must stay an ordinary load\n" << ir.text;
  EXPECT_NE(ir.text.find("i1 true)"), std::string::npos) << "the struct copy is a volatile memcpy\n"
                                                          << ir.text;
  CompileResult ast = emit_text(path.string(), Emit::Ast, o);
  ASSERT_TRUE(ast.ok);
  EXPECT_NE(ast.text.find("VolatileVar box: Box"), std::string::npos) << ast.text;
}

// A dense switch is a jump table (one bounds check and one indirect branch whatever the
// number of arms); a sparse one is a tree of compares with no table.
TEST(LanguageCompiler, SwitchLowering) {
  // Each arm calls its own function (arms that only pick a value would become a lookup
  // table or arithmetic before the switch is lowered).
  auto program = [](int stride) {
    std::string src;
    for (int k = 0; k < 40; ++k) src += "extern fn arm" + std::to_string(k) + "();\n";
    src += "export fn f(x: u32) {\n  switch x {\n";
    for (int k = 0; k < 40; ++k)
      src += "    case " + std::to_string(k * stride) + " { arm" + std::to_string(k) + "(); }\n";
    return src + "  }\n}\n";
  };
  const std::string dense = program(1), sparse = program(100003);
  CompileOptions o = options();
  o.opt = assembler::OptLevel::O2;
  CompileResult d = emit_text(write_temp("dense.fw", dense).string(), Emit::Asm, o);
  ASSERT_TRUE(d.ok) << d.diagnostics;
  EXPECT_NE(d.text.find(".LJTI"), std::string::npos) << d.text;
  CompileResult s = emit_text(write_temp("sparse.fw", sparse).string(), Emit::Asm, o);
  ASSERT_TRUE(s.ok) << s.diagnostics;
  EXPECT_EQ(s.text.find(".LJTI"), std::string::npos) << s.text;
}

// Each enum variant is a constant "Enum.VARIANT" of the underlying type in the layout
// table; a field of enum type is spelled with the enum's name.
TEST(LanguageCompiler, EnumsInTheLayoutTable) {
  const std::string src = "enum Mode: i16 { NORMAL, PARANOID = -2, ONE_SHOT }\n"
                          "struct Slot { mode: Mode; key: u32; }\n"
                          "const DEFAULT: Mode = Mode.ONE_SHOT;\n"
                          "var slots: Slot[2] @ 0x8000;\n"
                          "fn main() -> i32 { slots[0].mode = DEFAULT; return 0; }\n";
  CompileResult r = compile_source(src, "enums.fw", options());
  ASSERT_TRUE(r.ok) << r.diagnostics;
  auto table = layout_of(r.object);
  ASSERT_TRUE(table);
  const assembler::ConstantLayout* p = table->find_constant("Mode.PARANOID");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->signed_value(), -2);
  EXPECT_EQ(p->type, "i16");
  ASSERT_NE(table->find_constant("Mode.ONE_SHOT"), nullptr);
  EXPECT_EQ(table->find_constant("Mode.ONE_SHOT")->signed_value(), -1);
  EXPECT_EQ(table->find_constant("Mode.NORMAL")->signed_value(), 0);
  ASSERT_NE(table->find_constant("DEFAULT"), nullptr);
  EXPECT_EQ(table->find_constant("DEFAULT")->signed_value(), -1);
  const assembler::StructLayout* slot = table->find_struct("Slot");
  ASSERT_NE(slot, nullptr);
  EXPECT_EQ(slot->field("mode").type, "Mode");
  EXPECT_EQ(slot->field("mode").size, 2u);
  EXPECT_EQ(slot->field("key").offset, 4u);
}

// noalias reaches LLVM, and lets the optimiser keep a value loaded through one parameter
// across a store through the other (one load of *src instead of two).
TEST(LanguageCompiler, NoaliasParameters) {
  const std::string src = "fn twice(dst: noalias *u32, src: noalias *u32) {\n"
                          "  dst[0] = src[0];\n  dst[1] = src[0];\n}\n"
                          "fn twice_plain(dst: *u32, src: *u32) {\n"
                          "  dst[0] = src[0];\n  dst[1] = src[0];\n}\n"
                          "export fn use(a: *u32, b: *u32) { twice(a, b); twice_plain(a, b); }\n";
  CompileOptions o = options();
  o.opt = assembler::OptLevel::O1;
  CompileResult ir = emit_text(write_temp("noalias.fw", src).string(), Emit::Ir, o);
  ASSERT_TRUE(ir.ok) << ir.diagnostics;
  EXPECT_NE(ir.text.find("noalias"), std::string::npos) << ir.text;
  CompileOptions none = options();
  none.opt = assembler::OptLevel::O0;
  CompileResult o0 = emit_text(write_temp("noalias.fw", src).string(), Emit::Ir, none);
  ASSERT_TRUE(o0.ok);
  auto signature = [&](const std::string& name) {
    const size_t at = o0.text.find("@" + name + "(");
    return at == std::string::npos ? std::string() : o0.text.substr(at, o0.text.find('\n', at) - at);
  };
  EXPECT_NE(signature("twice").find("noalias"), std::string::npos) << o0.text;
  EXPECT_EQ(signature("twice_plain").find("noalias"), std::string::npos) << o0.text;
}

// A call through a function address is an indirect call in the IR.
TEST(LanguageCompiler, CallsThroughAddresses) {
  const std::string src = "fn a(x: u32) -> u32 { return x + 1; }\n"
                          "fn b(x: u32) -> u32 { return x + 2; }\n"
                          "const T: fn(u32) -> u32[2] = [a, b];\n"
                          "export fn pick(i: u32, x: u32) -> u32 { return T[i & 1](x); }\n";
  CompileOptions o = options();
  o.opt = assembler::OptLevel::O2;
  CompileResult ir = emit_text(write_temp("indirect.fw", src).string(), Emit::Ir, o);
  ASSERT_TRUE(ir.ok) << ir.diagnostics;
  EXPECT_NE(ir.text.find("@T = internal unnamed_addr constant [2 x i32 (i32)*] [i32 (i32)* @a, "
                         "i32 (i32)* @b]"),
            std::string::npos)
      << ir.text;
  EXPECT_NE(ir.text.find("call i32 %"), std::string::npos) << ir.text;
}

// A firmware-shaped file: per event a message struct, a constant, a helper with a
// data-dependent loop, and a handler touching registers and a pinned ring.
std::string big_program(int events) {
  std::string s = "import \"lanai.fw\";\n"
                  "struct Pkt { len: u16; kind: u8; seq: u32; data: u8[16]; }\n"
                  "var ring: Pkt[8] @ 0x20000;\nvar total: u32;\n";
  for (int i = 0; i < events; ++i) {
    const std::string n = std::to_string(i);
    s += "struct Msg" + n + " { len: u16; kind: u8; seq: u32; words: u32[4]; }\n"
         "const LIMIT" + n + " = " + n + " * 16 + 4;\n"
         "var last" + n + ": Msg" + n + ";\n"
         "fn step" + n + "(p: *Pkt, k: u32) -> u32 {\n"
         "  var acc: u32 = k ^ " + n + ";\n"
         "  var i: u32 = 0;\n"
         "  while i < (p.len & 15) as u32 {\n"
         "    acc = (acc << 1) ^ p.data[i];\n"
         "    i += 1;\n"
         "  }\n"
         "  if acc > LIMIT" + n + " { p.seq = acc; } else { p.kind = (acc & 0xFF) as u8; }\n"
         "  return acc;\n"
         "}\n"
         "handler on_" + n + "() {\n"
         "  var p = &ring[(total + " + n + ") & 7];\n"
         "  total += step" + n + "(p, total);\n"
         "  last" + n + ".seq = total;\n"
         "  last" + n + ".words[total & 3] = p.seq;\n"
         "  if (ISR & RECV_INT_BIT) != 0 { ISR = RECV_INT_BIT; RML = 0x20000 + sizeof(Pkt); }\n"
         "}\n";
  }
  s += "fn main() -> i32 {\n";
  for (int i = 0; i < events; ++i) s += "  on_" + std::to_string(i) + "();\n";
  s += "  return 0;\n}\n";
  return s;
}

TEST(LanguageCompiler, TwoThousandLinesBuildQuickly) {
  const std::string src = big_program(95);
  ASSERT_GT(std::count(src.begin(), src.end(), '\n'), 1900);
  const fs::path path = write_temp("big.fw", src);
  assembler::BuildOptions bo;
  bo.startup = LANAIKIT_CRT0;
  bo.include_dirs.push_back(LANAIKIT_FW_LIB);
  const auto start = std::chrono::steady_clock::now();
  auto image = assembler::build({path.string()}, bo);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(bool(image)) << llvm::toString(image.takeError());
  std::printf("2000-line .fw: parse to linked image in %.3f s\n", s);
  EXPECT_LT(s, 5.0); // < 0.5 s in a Release build; generous for sanitizer builds
}

// Mangled versions of a valid program: every one must come back with a result, never a
// crash or a hang (compile_source is the fuzzer's entry point).
TEST(LanguageCompiler, MangledInputNeverCrashes) {
  const std::string base = kProgram;
  std::mt19937 rng(12345);
  const std::string alphabet = "(){}[];:,.*&|^!~<>=+-/%@\"'0x9aZ_ \n";
  CompileOptions o = options();
  o.opt = assembler::OptLevel::O0;
  for (int i = 0; i < 150; ++i) {
    std::string s = base;
    const int edits = 1 + int(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % s.size();
      switch (rng() % 3) {
      case 0: s.erase(at, 1 + rng() % 3); break;
      case 1: s.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
      default: s[at] = alphabet[rng() % alphabet.size()]; break;
      }
    }
    CompileResult r = compile_source(s, "mangled.fw", o);
    if (!r.ok) {
      EXPECT_NE(r.diagnostics.find("error"), std::string::npos) << s;
    }
  }
  // Deep nesting of every kind is rejected, not a stack overflow.
  for (const std::string& deep :
       {std::string(100000, '('), std::string(100000, '-'), std::string(100000, '*'),
        "fn f() " + std::string(100000, '{'), "var x: " + std::string(100000, '*') + "u8;",
        "fn f() { if true {} " + [] {
          std::string e;
          for (int k = 0; k < 5000; ++k) e += "else if true {} ";
          return e;
        }() + "}"}) {
    CompileResult r = compile_source("const X = " + deep, "deep.fw", o);
    EXPECT_FALSE(r.ok);
  }
}

} // namespace
} // namespace lanaikit::fw
