// Tests of the layout table: lookups and their errors, the binary encoding (round trip,
// rejection of truncated, corrupted and random bytes), merging, and its way through the
// linker (objects with a .lanaikit.layout section) into FirmwareImage and the ELF file.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <sstream>

#include "assembler/assemble.h"
#include "assembler/elf.h"
#include "assembler/layout.h"
#include "assembler/link.h"

using namespace lanaikit::assembler;

namespace {

StructLayout send_req() {
  return {"SendReq", 16, 4,
          {{"dest", 0, 2, "u16"}, {"flags", 2, 2, "u16"}, {"len", 4, 4, "u32"},
           {"buf", 8, 4, "*u8"}, {"next", 12, 4, "*SendReq"}}};
}

StructLayout header() {
  return {"Header", 8, 4, {{"route", 0, 4, "u8[4]"}, {"type", 4, 4, "u32"}}};
}

LayoutTable sample() {
  LayoutTable t;
  t.structs = {header(), send_req()};
  t.globals = {{"recvq", "Slot[64]", 1024, std::nullopt}, {"sendq", "SendReq[32]", 512, 0x8000}};
  t.handlers = {"on_packet", "on_send"};
  return t;
}

} // namespace

TEST(Layout, FieldLookupAndItsError) {
  StructLayout s = send_req();
  EXPECT_EQ(s.field("len").offset, 4u);
  EXPECT_EQ(s.field("next").type, "*SendReq");
  EXPECT_TRUE(s.has_field("buf"));
  EXPECT_FALSE(s.has_field("length"));
  try {
    (void)s.field("length");
    FAIL() << "expected std::out_of_range";
  } catch (const std::out_of_range& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("SendReq"), std::string::npos) << m;
    EXPECT_NE(m.find("'length'"), std::string::npos) << m;
    EXPECT_NE(m.find("dest, flags, len, buf, next"), std::string::npos) << m;
  }
}

TEST(Layout, TableLookups) {
  LayoutTable t = sample();
  ASSERT_NE(t.find_struct("Header"), nullptr);
  EXPECT_EQ(t.find_struct("Header")->size, 8u);
  EXPECT_EQ(t.find_struct("Nope"), nullptr);
  ASSERT_NE(t.find_global("sendq"), nullptr);
  EXPECT_EQ(t.find_global("sendq")->pinned_address, 0x8000u);
  EXPECT_FALSE(t.find_global("recvq")->pinned_address.has_value());
  EXPECT_EQ(t.find_global("nope"), nullptr);
  EXPECT_TRUE(t.is_handler("on_send"));
  EXPECT_FALSE(t.is_handler("main"));
  EXPECT_FALSE(t.empty());
  EXPECT_TRUE(LayoutTable{}.empty());
  try {
    (void)t.struct_layout("Slot");
    FAIL() << "expected std::out_of_range";
  } catch (const std::out_of_range& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("'Slot'"), std::string::npos) << m;
    EXPECT_NE(m.find("Header, SendReq"), std::string::npos) << m;
  }
}

TEST(Layout, EncodeDecodeRoundTrip) {
  LayoutTable t = sample();
  std::vector<uint8_t> b = encode_layout(t);
  ASSERT_GE(b.size(), 24u);
  EXPECT_EQ(std::string(b.begin(), b.begin() + 4), "LKLY");
  EXPECT_EQ(decode_layout(b.data(), b.size()), t);
  LayoutTable empty;
  std::vector<uint8_t> e = encode_layout(empty);
  EXPECT_EQ(e.size(), 24u);
  EXPECT_EQ(decode_layout(e.data(), e.size()), empty);
  // Odd strings: empty names, bytes that are not ASCII.
  LayoutTable odd;
  odd.structs = {{"", 0, 1, {{"", 0, 0, ""}}}};
  odd.globals = {{"g\xff\x00z", "u8", 1, 0xFFFFFFFFu}};
  odd.globals[0].name = std::string("g\xff\0z", 4);
  odd.handlers = {""};
  std::vector<uint8_t> ob = encode_layout(odd);
  EXPECT_EQ(decode_layout(ob.data(), ob.size()), odd);
}

TEST(Layout, DecodeRejectsEveryTruncation) {
  std::vector<uint8_t> b = encode_layout(sample());
  for (size_t n = 0; n < b.size(); ++n) {
    // A copy of exactly n bytes, so that ASan catches any read past the end.
    std::vector<uint8_t> cut(b.begin(), b.begin() + n);
    EXPECT_THROW(decode_layout(cut.data(), cut.size()), std::runtime_error) << "length " << n;
  }
  std::vector<uint8_t> longer = b;
  longer.push_back(0);
  EXPECT_THROW(decode_layout(longer.data(), longer.size()), std::runtime_error);
}

TEST(Layout, DecodeRejectsBadHeaders) {
  std::vector<uint8_t> b = encode_layout(sample());
  auto expect_error = [](std::vector<uint8_t> v, const std::string& part) {
    try {
      decode_layout(v.data(), v.size());
      ADD_FAILURE() << "expected an error mentioning " << part;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  auto bad_magic = b;
  bad_magic[0] = 'X';
  expect_error(bad_magic, "LKLY");
  auto bad_version = b;
  bad_version[7] = 2;
  expect_error(bad_version, "version 2");
  auto bad_count = b;
  bad_count[12] = 0x7f; // a huge struct count must not allocate
  expect_error(bad_count, "count");
  auto bad_field_count = encode_layout(LayoutTable{{header()}, {}, {}});
  // struct name "Header" (4 + 6 bytes) then size, align, nfields at 24 + 10 + 8.
  bad_field_count[24 + 10 + 8] = 0xff;
  expect_error(bad_field_count, "field count");
  auto bad_flags = encode_layout(LayoutTable{{}, {{"x", "u32", 4, std::nullopt}}, {}});
  bad_flags[bad_flags.size() - 5] = 2; // flags word's low byte
  expect_error(bad_flags, "flags");
}

TEST(Layout, DecodeSurvivesRandomAndMutatedBytes) {
  std::mt19937 rng(12345);
  std::vector<uint8_t> good = encode_layout(sample());
  size_t rejected = 0, accepted = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::vector<uint8_t> v;
    if (iter % 2 == 0) {
      v.resize(rng() % 200);
      for (auto& x : v)
        x = uint8_t(rng());
      if (v.size() >= 12 && iter % 4 == 0) { // a plausible header over random content
        std::copy(good.begin(), good.begin() + 8, v.begin());
        v[8] = 0, v[9] = 0, v[10] = uint8_t(v.size() >> 8), v[11] = uint8_t(v.size());
      }
    } else {
      v = good;
      int flips = 1 + rng() % 4;
      for (int k = 0; k < flips; ++k)
        v[rng() % v.size()] ^= uint8_t(1u << (rng() % 8));
      if (rng() % 3 == 0)
        v.resize(rng() % v.size());
    }
    try {
      LayoutTable t = decode_layout(v.data(), v.size());
      // Whatever decodes must encode back to the same bytes.
      EXPECT_EQ(encode_layout(t), v);
      ++accepted;
    } catch (const std::runtime_error&) {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 10000u);
  EXPECT_GT(accepted, 0u); // flips inside names and numbers still decode
}

TEST(Layout, MergeCollapsesDuplicatesAndSorts) {
  LayoutTable a;
  a.structs = {send_req()};
  a.globals = {{"sendq", "SendReq[32]", 512, 0x8000}};
  a.handlers = {"on_send"};
  LayoutTable b;
  b.structs = {send_req(), header()};
  b.handlers = {"on_send", "on_packet"};
  merge_layout(a, b);
  ASSERT_EQ(a.structs.size(), 2u);
  EXPECT_EQ(a.structs[0].name, "Header");
  EXPECT_EQ(a.structs[1].name, "SendReq");
  EXPECT_EQ(a.handlers, (std::vector<std::string>{"on_packet", "on_send"}));
  EXPECT_EQ(a.globals.size(), 1u);
}

TEST(Layout, MergeConflictNamesTheEntityAndLeavesTheTargetAlone) {
  LayoutTable a;
  a.structs = {send_req()};
  LayoutTable b;
  StructLayout other = send_req();
  other.fields[2].offset = 8;
  b.structs = {header(), other};
  LayoutTable before = a;
  try {
    merge_layout(a, b);
    FAIL() << "expected a conflict";
  } catch (const std::runtime_error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("struct SendReq"), std::string::npos) << m;
    EXPECT_NE(m.find("len u32 @4+4"), std::string::npos) << m;
    EXPECT_NE(m.find("len u32 @8+4"), std::string::npos) << m;
  }
  EXPECT_EQ(a, before);

  LayoutTable g1, g2;
  g1.globals = {{"sendq", "SendReq[32]", 512, 0x8000}};
  g2.globals = {{"sendq", "SendReq[32]", 512, 0x9000}};
  try {
    merge_layout(g1, g2);
    FAIL() << "expected a conflict";
  } catch (const std::runtime_error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("global sendq"), std::string::npos) << m;
    EXPECT_NE(m.find("0x9000"), std::string::npos) << m;
  }
}

TEST(Layout, SectionWithSeveralTablesAndPadding) {
  LayoutTable a, b;
  a.structs = {send_req()};
  b.structs = {header()};
  b.handlers = {"on_packet"};
  std::vector<uint8_t> sec = encode_layout(a);
  const size_t first = sec.size();
  sec.insert(sec.end(), {0, 0, 0});
  std::vector<uint8_t> eb = encode_layout(b);
  sec.insert(sec.end(), eb.begin(), eb.end());
  LayoutTable t = decode_layout_section(sec.data(), sec.size());
  EXPECT_EQ(t.structs.size(), 2u);
  EXPECT_TRUE(t.is_handler("on_packet"));
  EXPECT_TRUE(decode_layout_section(nullptr, 0).empty());
  for (size_t n = 1; n < sec.size(); ++n) {
    if (n >= first && n <= first + 3)
      continue; // a cut right after a complete table (or in the padding) is still valid
    std::vector<uint8_t> cut(sec.begin(), sec.begin() + n);
    EXPECT_THROW(decode_layout_section(cut.data(), cut.size()), std::runtime_error) << n;
  }
}

// ---------------------------------------------------------------------------------------
// Through the linker and the ELF file.

namespace {

const char* kStart = R"(
	.text
	.globl _start
	.type _start,@function
_start:
	bt main
	nop
.Lhang:
	bt .Lhang
	nop
	.size _start, .-_start
)";

// A `.lanaikit.layout` section holding `table`, as the compiler emits it: a global symbol
// (the same name in every object) over the encoded bytes, with the given section flags.
std::string layout_asm(const LayoutTable& table, const std::string& flags = "a",
                       const std::string& symbol = "__lanaikit_layout") {
  std::string s = "\t.section .lanaikit.layout,\"" + flags + "\",@progbits\n";
  s += "\t.globl " + symbol + "\n\t.type " + symbol + ",@object\n" + symbol + ":\n";
  std::vector<uint8_t> b = encode_layout(table);
  for (size_t i = 0; i < b.size(); ++i)
    s += (i % 16 == 0 ? "\t.byte " : ",") + std::to_string(b[i]) + (i % 16 == 15 ? "\n" : "");
  s += "\n\t.size " + symbol + ", " + std::to_string(b.size()) + "\n";
  return s;
}

Object as(const std::string& src, const std::string& name) {
  auto o = assemble(src, name);
  if (!o) {
    ADD_FAILURE() << "assembling " << name << " failed:\n" << llvm::toString(o.takeError());
    return Object{name, {}, {}};
  }
  return std::move(*o);
}

// Firmware with a handler and a data word, plus its layout section.
std::string module(const std::string& handler, const LayoutTable& table,
                   const std::string& flags = "a") {
  return "\t.text\n\t.globl " + handler + "\n\t.type " + handler + ",@function\n" + handler +
         ":\n\tor %r0, 1, %rv\n\tbt %rca\n\tnop\n\t.size " + handler + ", .-" + handler +
         "\n\t.data\n\t.globl data_" + handler + "\ndata_" + handler + ":\n\t.long 7\n" +
         layout_asm(table, flags);
}

LinkInputs inputs(std::vector<Object> objs) {
  LinkInputs in;
  in.startup = as(kStart, "start.s");
  in.objects = std::move(objs);
  return in;
}

// The error of a step that must fail (`what` says what was expected when it did not).
template <class T> std::string expected_error(llvm::Expected<T> r, const char* what) {
  if (r) {
    ADD_FAILURE() << what;
    return "";
  }
  return llvm::toString(r.takeError());
}

std::string link_error(const LinkInputs& in) { return expected_error(link(in), "expected a link error"); }

} // namespace

TEST(LayoutLink, TablesAreMergedAndNeverLoaded) {
  LayoutTable a;
  a.structs = {send_req(), header()};
  a.globals = {{"sendq", "SendReq[32]", 512, 0x8000}};
  a.handlers = {"main"};
  LayoutTable b;
  b.structs = {header()}; // the same struct from a shared import collapses
  b.handlers = {"on_packet"};
  // LLVM may mark the section writable as well; it is recognised by name either way.
  LinkInputs in = inputs({as(module("main", a, "a"), "a.fw"),
                          as(module("on_packet", b, "aw"), "b.fw")});
  auto img = link(in);
  ASSERT_TRUE(bool(img)) << llvm::toString(img.takeError());

  EXPECT_EQ(img->layout_table.structs.size(), 2u);
  EXPECT_EQ(img->layout("SendReq").field("len").offset, 4u);
  EXPECT_EQ(img->layout("Header").size, 8u);
  EXPECT_EQ(img->layout_table.find_global("sendq")->pinned_address, 0x8000u);
  EXPECT_EQ(img->layout_table.handlers, (std::vector<std::string>{"main", "on_packet"}));
  EXPECT_EQ(img->handler_entry("on_packet"), img->symbol("on_packet"));
  EXPECT_TRUE(img->handler_entry("on_packet").has_value());
  EXPECT_EQ(img->handler_entry("_start"), std::nullopt);
  EXPECT_THROW((void)img->layout("Nope"), std::out_of_range);

  // Not in SRAM: the image holds code and two data words only, and the tables' symbols
  // (the same global name in both objects) are neither duplicates nor image symbols.
  EXPECT_EQ(img->symbol("__lanaikit_layout"), std::nullopt);
  uint32_t code_and_data = 0;
  for (const Segment& s : img->segments) {
    EXPECT_TRUE(s.name == ".text" || s.name == ".data") << s.name;
    code_and_data += s.mem_size;
  }
  EXPECT_EQ(img->end(), *img->symbol("_end"));
  const Segment* data = img->segment_at(*img->symbol("data_main"));
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->name, ".data");
  EXPECT_EQ(data->mem_size, 8u);
}

TEST(LayoutLink, ObjectsWithoutTablesGiveAnEmptyTable) {
  auto img = link(inputs({as("\t.text\n\t.globl main\nmain:\n\tbt %rca\n\tnop\n", "m.s")}));
  ASSERT_TRUE(bool(img)) << llvm::toString(img.takeError());
  EXPECT_TRUE(img->layout_table.empty());
  try {
    (void)img->layout("SendReq");
    FAIL() << "expected std::out_of_range";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("structs: none"), std::string::npos) << e.what();
  }
}

TEST(LayoutLink, ConflictNamesBothObjects) {
  LayoutTable a;
  a.structs = {send_req()};
  LayoutTable b;
  StructLayout changed = send_req();
  changed.size = 20;
  b.structs = {changed};
  b.globals = {{"sendq", "SendReq[32]", 640, 0x8000}};
  LayoutTable c;
  c.globals = {{"sendq", "SendReq[32]", 512, 0x8000}};
  std::string e = link_error(inputs({as(module("main", a), "a.fw"),
                                     as(module("on_packet", b), "b.fw"),
                                     as(module("on_send", c), "c.fw")}));
  EXPECT_NE(e.find("a.fw and b.fw: layout conflict: struct SendReq"), std::string::npos) << e;
  EXPECT_NE(e.find("size 16"), std::string::npos) << e;
  EXPECT_NE(e.find("size 20"), std::string::npos) << e;
  EXPECT_NE(e.find("b.fw and c.fw: layout conflict: global sendq"), std::string::npos) << e;
}

TEST(LayoutLink, MalformedTableIsAnErrorNamingTheObject) {
  std::string bad = "\t.text\n\t.globl main\nmain:\n\tbt %rca\n\tnop\n"
                    "\t.section .lanaikit.layout,\"a\",@progbits\n\t.ascii \"LKLY\"\n"
                    "\t.long 1, 200, 0, 0, 0\n";
  std::string e = link_error(inputs({as(bad, "bad.fw")}));
  EXPECT_NE(e.find("bad.fw: .lanaikit.layout: malformed layout table"), std::string::npos) << e;
}

TEST(LayoutLink, CodeMayNotReferToTheTable) {
  LayoutTable a;
  a.handlers = {"main"};
  std::string src = "\t.text\n\t.globl main\nmain:\n\tmov hi(__lanaikit_layout), %r9\n"
                    "\tbt %rca\n\tnop\n" + layout_asm(a);
  std::string e = link_error(inputs({as(src, "ref.fw")}));
  EXPECT_NE(e.find("ref.fw: R_LANAI_HI16 against __lanaikit_layout"), std::string::npos) << e;
  EXPECT_NE(e.find("not loaded into SRAM"), std::string::npos) << e;
}

TEST(LayoutLink, ElfRoundTripKeepsTheTableOutsideTheLoadedImage) {
  LinkInputs in = inputs({as(module("main", sample()), "a.fw")});
  auto img = link(in);
  ASSERT_TRUE(bool(img)) << llvm::toString(img.takeError());
  std::vector<uint8_t> bytes = elf_bytes(*img);
  std::string_view data(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  auto back = parse_elf(data, "img.elf");
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(*back, *img);
  EXPECT_EQ(back->layout("SendReq").field("next").type, "*SendReq");

  // The image without its table differs (operator== compares it) and writes no section.
  FirmwareImage bare = *img;
  bare.layout_table = {};
  EXPECT_FALSE(bare == *img);
  std::vector<uint8_t> bare_bytes = elf_bytes(bare);
  auto bare_back = parse_elf(
      std::string_view(reinterpret_cast<const char*>(bare_bytes.data()), bare_bytes.size()),
      "bare.elf");
  ASSERT_TRUE(bool(bare_back));
  EXPECT_EQ(*bare_back, bare);
  EXPECT_EQ(std::string_view(reinterpret_cast<const char*>(bare_bytes.data()),
                             bare_bytes.size())
                .find(".lanaikit.layout"),
            std::string_view::npos);

  // A corrupted table in the file is reported, not trusted.
  size_t at = data.find("LKLY");
  ASSERT_NE(at, std::string_view::npos);
  std::vector<uint8_t> broken = bytes;
  broken[at + 11] ^= 1; // the length word
  auto bad = parse_elf(
      std::string_view(reinterpret_cast<const char*>(broken.data()), broken.size()), "x.elf");
  ASSERT_FALSE(bool(bad));
  std::string m = llvm::toString(bad.takeError());
  EXPECT_NE(m.find("x.elf: .lanaikit.layout: malformed layout table"), std::string::npos) << m;
}

// ---------------------------------------------------------------------------------------
// End to end: firmware-language sources built into an image export their layouts.

#if __has_include("assembler/fw/compile.h")
#include <fstream>

#include "assembler/build.h"
#include "llvm/Support/FileSystem.h"

namespace {

class ScratchDir {
public:
  ScratchDir() {
    llvm::SmallString<128> p;
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("lanaikit-layout-test", p));
    path_ = std::string(p);
  }
  ~ScratchDir() { llvm::sys::fs::remove_directories(path_); }
  std::string file(const std::string& name, const std::string& contents) const {
    std::string p = path_ + "/" + name;
    std::ofstream(p) << contents;
    return p;
  }

private:
  std::string path_;
};

const char* kShared = R"(
struct SendReq {
    dest: u16;
    flags: u16;
    len: u32;
    buf: *u8;
    next: *SendReq;
}
)";

BuildOptions bare() {
  BuildOptions bo;
  bo.nostdlib = true; // start.s defines _start: no dependence on the runtime's build
  return bo;
}

} // namespace

TEST(LayoutBuild, FirmwareLanguageObjectsExportTheirLayouts) {
  ScratchDir dir;
  dir.file("shared.fw", kShared);
  std::string start = dir.file("start.s", kStart);
  std::string a = dir.file("a.fw", R"(
import "shared.fw";
var sendq: SendReq[32] @ 0x20000;
handler on_send() { sendq[0].len = 1; }
fn main() -> i32 { on_send(); return 0; }
)");
  std::string b = dir.file("b.fw", R"(
import "shared.fw";
struct Header { kind: u8; len: u16; seq: u32; }
var hdr: Header;
var pending: *SendReq;
handler on_packet() { hdr.seq += 1; }
)");
  auto img = build({start, a, b}, bare());
  ASSERT_TRUE(bool(img)) << llvm::toString(img.takeError());

  const StructLayout& req = img->layout("SendReq"); // from both objects: collapsed
  EXPECT_EQ(req.size, 16u);
  EXPECT_EQ(req.align, 4u);
  EXPECT_EQ(req.field("len").offset, 4u);
  EXPECT_EQ(req.field("len").size, 4u);
  EXPECT_EQ(req.field("flags").offset, 2u);
  EXPECT_EQ(req.field("next").offset, 12u);
  EXPECT_EQ(req.field("len").type, "u32");
  EXPECT_EQ(req.field("next").type, "*SendReq");
  EXPECT_EQ(img->layout("Header").field("seq").offset, 4u);
  EXPECT_EQ(img->layout("Header").size, 8u);
  EXPECT_THROW((void)img->layout("Slot"), std::out_of_range);

  const GlobalLayout* sendq = img->layout_table.find_global("sendq");
  ASSERT_NE(sendq, nullptr);
  EXPECT_EQ(sendq->pinned_address, 0x20000u);
  EXPECT_EQ(sendq->size, 32u * 16u);
  EXPECT_EQ(img->symbol("sendq"), 0x20000u);
  const GlobalLayout* hdr = img->layout_table.find_global("hdr");
  ASSERT_NE(hdr, nullptr);
  EXPECT_FALSE(hdr->pinned_address.has_value());
  EXPECT_EQ(hdr->type, "Header");

  EXPECT_TRUE(img->handler_entry("on_send").has_value());
  EXPECT_EQ(img->handler_entry("on_send"), img->symbol("on_send"));
  EXPECT_EQ(img->handler_entry("on_packet"), img->symbol("on_packet"));
  EXPECT_EQ(img->handler_entry("main"), std::nullopt);
  EXPECT_EQ(img->symbol("__lanaikit_layout"), std::nullopt);

  std::vector<uint8_t> bytes = elf_bytes(*img);
  auto back = parse_elf(std::string_view(reinterpret_cast<const char*>(bytes.data()),
                                         bytes.size()),
                        "fw.elf");
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(*back, *img);
  EXPECT_EQ(back->layout("SendReq").field("len").offset, 4u);
}

TEST(LayoutBuild, ConflictingStructsInTwoSourcesNameBoth) {
  ScratchDir dir;
  dir.file("shared.fw", kShared);
  std::string start = dir.file("start.s", kStart);
  std::string a = dir.file("a.fw", R"(
import "shared.fw";
var q: SendReq;
fn main() -> i32 { return 0; }
)");
  std::string c = dir.file("c.fw", R"(
struct SendReq { dest: u32; len: u32; }
var other: SendReq;
)");
  auto img = build({start, a, c}, bare());
  ASSERT_FALSE(bool(img));
  std::string e = llvm::toString(img.takeError());
  EXPECT_NE(e.find("layout conflict: struct SendReq"), std::string::npos) << e;
  EXPECT_NE(e.find(a), std::string::npos) << e;
  EXPECT_NE(e.find(c), std::string::npos) << e;
}
#endif

// ---------------------------------------------------------------------------------------
// Constants: `const` declarations of the firmware language in the layout table.

namespace {

LayoutTable with_constants() {
  LayoutTable t = sample();
  t.constants = {{"MAX_PROCS", "u32", 8, false, false},
                 {"MIN_DELTA", "i16", uint64_t(int64_t(-3)), true, false},
                 {"PACKET_BYTES", "u32", 256, false, true}};
  return t;
}

} // namespace

TEST(LayoutConstants, LookupAndItsError) {
  LayoutTable t = with_constants();
  ASSERT_NE(t.find_constant("MAX_PROCS"), nullptr);
  EXPECT_EQ(t.constant("PACKET_BYTES").value, 256u);
  EXPECT_TRUE(t.constant("PACKET_BYTES").overridable);
  EXPECT_EQ(t.constant("MIN_DELTA").signed_value(), -3);
  EXPECT_EQ(t.find_constant("NOPE"), nullptr);
  try {
    (void)t.constant("NOPE");
    ADD_FAILURE() << "expected std::out_of_range";
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "no constant 'NOPE' in the image (constants: MAX_PROCS, MIN_DELTA, "
                           "PACKET_BYTES)");
  }
  FirmwareImage img;
  img.layout_table = t;
  EXPECT_EQ(img.constant("MAX_PROCS").value, 8u);
  EXPECT_THROW((void)FirmwareImage{}.constant("MAX_PROCS"), std::out_of_range);
  EXPECT_FALSE((LayoutTable{{}, {}, {}, {t.constants[0]}}.empty()));
}

TEST(LayoutConstants, EncodeDecodeRoundTripAndOldTablesUnchanged) {
  LayoutTable t = with_constants();
  t.constants.push_back({"BIG", "u64", 0xFFFFFFFFFFFFFFFFull, false, false});
  std::vector<uint8_t> b = encode_layout(t);
  EXPECT_EQ(decode_layout(b.data(), b.size()), t);
  // A table without constants has no constants block: the bytes of before.
  std::vector<uint8_t> plain = encode_layout(sample());
  EXPECT_EQ(std::string(plain.begin(), plain.end()).find("LKCN"), std::string::npos);
  EXPECT_GT(b.size(), plain.size());
  EXPECT_EQ(std::string(b.begin(), b.end()).find("LKCN"), plain.size());
}

TEST(LayoutConstants, DecodeRejectsTruncationBadFlagsAndAnEmptyBlock) {
  std::vector<uint8_t> b = encode_layout(with_constants());
  for (size_t n = 0; n < b.size(); ++n) {
    std::vector<uint8_t> cut(b.begin(), b.begin() + n);
    EXPECT_THROW(decode_layout(cut.data(), cut.size()), std::runtime_error) << "length " << n;
  }
  auto expect_error = [](std::vector<uint8_t> v, const std::string& part) {
    try {
      decode_layout(v.data(), v.size());
      ADD_FAILURE() << "expected an error mentioning " << part;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  LayoutTable one;
  one.constants = {{"X", "u32", 1, false, false}};
  std::vector<uint8_t> flags = encode_layout(one);
  flags[flags.size() - 9] = 4; // the flags word's low byte, before the 8 value bytes
  expect_error(flags, "unknown constant flags 4");
  std::vector<uint8_t> count = encode_layout(one);
  count[24 + 4] = 0x7f; // the constant count after the tag: must not allocate
  expect_error(count, "constant count");
  // An empty block (never written) would not encode back to the same bytes.
  std::vector<uint8_t> empty = encode_layout(LayoutTable{});
  const uint8_t block[8] = {'L', 'K', 'C', 'N', 0, 0, 0, 0};
  empty.insert(empty.end(), block, block + 8);
  empty[11] = uint8_t(empty.size());
  expect_error(empty, "empty constants block");
}

TEST(LayoutConstants, MergeCollapsesIdenticalAndRejectsConflicts) {
  LayoutTable a = with_constants(), b;
  b.constants = {{"MAX_PROCS", "u32", 8, false, false}, {"AAA", "int", 1, false, false}};
  merge_layout(a, b);
  ASSERT_EQ(a.constants.size(), 4u);
  EXPECT_EQ(a.constants[0].name, "AAA"); // sorted by name
  LayoutTable c;
  c.constants = {{"MAX_PROCS", "u32", 16, false, false}};
  LayoutTable before = a;
  try {
    merge_layout(a, c);
    ADD_FAILURE() << "expected a conflict";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "layout conflict: constant MAX_PROCS has two different definitions: "
                           "constant MAX_PROCS (u32 = 8) and constant MAX_PROCS (u32 = 16)");
  }
  EXPECT_EQ(a, before);
}

#if __has_include("assembler/fw/compile.h")
namespace {

const char* kConfig = R"(
option const PACKET_BYTES: u32 = 256;
const SLOTS = 4;
const HALF = PACKET_BYTES / 2;
const MIN_DELTA: i16 = -3;
const DEBUG: bool = false;
)";

// The error of a build that must fail.
std::string build_error(const std::vector<std::string>& inputs, const BuildOptions& bo) {
  return expected_error(build(inputs, bo), "the build succeeded");
}

} // namespace

TEST(LayoutBuild, FirmwareConstantsAreExported) {
  ScratchDir dir;
  dir.file("config.fw", kConfig);
  std::string start = dir.file("start.s", kStart);
  std::string a = dir.file("a.fw", R"(
import "config.fw";
const HUGE = 0xFFFFFFFFFFFFFFFF + 1;
const NEG_MAX = -0x8000000000000000;
var buf: u8[PACKET_BYTES];
fn main() -> i32 { return 0; }
)");
  std::string b = dir.file("b.fw", "import \"config.fw\";\nvar ring: u32[SLOTS];\n");
  std::vector<std::string> warnings;
  auto img = build({start, a, b}, bare(), &warnings);
  ASSERT_TRUE(bool(img)) << llvm::toString(img.takeError());

  const ConstantLayout& p = img->constant("PACKET_BYTES"); // from both objects: collapsed
  EXPECT_EQ(p.type, "u32");
  EXPECT_EQ(p.value, 256u);
  EXPECT_FALSE(p.is_signed);
  EXPECT_TRUE(p.overridable);
  EXPECT_EQ(img->constant("HALF").value, 128u);
  EXPECT_EQ(img->constant("HALF").type, "u32"); // typed by PACKET_BYTES
  EXPECT_EQ(img->constant("SLOTS").type, "int");
  EXPECT_FALSE(img->constant("HALF").overridable);
  EXPECT_EQ(img->constant("SLOTS").value, 4u);
  EXPECT_EQ(img->constant("MIN_DELTA").type, "i16");
  EXPECT_TRUE(img->constant("MIN_DELTA").is_signed);
  EXPECT_EQ(img->constant("MIN_DELTA").signed_value(), -3);
  EXPECT_EQ(img->constant("NEG_MAX").signed_value(), INT64_MIN);
  EXPECT_TRUE(img->constant("NEG_MAX").is_signed);
  // Bool constants and untyped ones beyond 64 bits are not exported; the latter warn.
  EXPECT_EQ(img->layout_table.find_constant("DEBUG"), nullptr);
  EXPECT_EQ(img->layout_table.find_constant("HUGE"), nullptr);
  std::string w;
  for (const auto& x : warnings) w += x;
  EXPECT_NE(w.find("a.fw:3:7: warning: constant 'HUGE' = 18446744073709551616 is outside the "
                   "64-bit range the layout table carries (-2^63 to 2^64-1); hosts cannot "
                   "read it from the image"),
            std::string::npos)
      << w;
  EXPECT_EQ(img->layout_table.find_global("buf")->size, 256u);

  std::vector<uint8_t> bytes = elf_bytes(*img);
  auto back = parse_elf(std::string_view(reinterpret_cast<const char*>(bytes.data()),
                                         bytes.size()),
                        "fw.elf");
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->layout_table.constants, img->layout_table.constants);
}

TEST(LayoutBuild, ConflictingConstantsInTwoSourcesNameBoth) {
  ScratchDir dir;
  std::string start = dir.file("start.s", kStart);
  std::string a = dir.file("a.fw", "const DEPTH: u32 = 8;\nfn main() -> i32 { return 0; }\n");
  std::string c = dir.file("c.fw", "const DEPTH: u32 = 16;\n");
  std::string e = build_error({start, a, c}, bare());
  EXPECT_NE(e.find(a + " and " + c + ": layout conflict: constant DEPTH has two different "
                                     "definitions: constant DEPTH (u32 = 8) and constant DEPTH "
                                     "(u32 = 16)"),
            std::string::npos)
      << e;
}

TEST(LayoutBuild, DefinesOverrideOptionConstantsBeforeSema) {
  ScratchDir dir;
  dir.file("config.fw", kConfig);
  std::string start = dir.file("start.s", kStart);
  std::string a = dir.file("a.fw", R"(
import "config.fw";
var buf: u8[PACKET_BYTES];
fn main() -> i32 { return 0; }
)");
  BuildOptions bo = bare();
  bo.defines = {"PACKET_BYTES=1024"};
  auto img = build({start, a}, bo);
  ASSERT_TRUE(bool(img)) << llvm::toString(img.takeError());
  EXPECT_EQ(img->constant("PACKET_BYTES").value, 1024u); // the value built
  EXPECT_EQ(img->constant("HALF").value, 512u);          // other constants see it
  EXPECT_EQ(img->layout_table.find_global("buf")->size, 1024u); // so do array sizes
  bo.defines = {"PACKET_BYTES=0x40", "PACKET_BYTES=0b1000_0000"}; // the last one wins
  img = build({start, a}, bo);
  ASSERT_TRUE(bool(img)) << llvm::toString(img.takeError());
  EXPECT_EQ(img->constant("PACKET_BYTES").value, 128u);
}

TEST(LayoutBuild, DefineErrors) {
  ScratchDir dir;
  dir.file("config.fw", kConfig);
  std::string start = dir.file("start.s", kStart);
  std::string a = dir.file("a.fw", "import \"config.fw\";\nfn main() -> i32 { return 0; }\n");
  const std::string config = dir.file("config.fw", kConfig);
  auto error_with = [&](std::vector<std::string> defines) {
    BuildOptions bo = bare();
    bo.defines = std::move(defines);
    return build_error({start, a}, bo);
  };
  EXPECT_EQ(error_with({"NOPE=1"}),
            "-D NOPE=1: no constant 'NOPE' in " + a + " or their imports");
  EXPECT_NE(error_with({"SLOTS=8"}).find(
                config + ":3:7: error: -D SLOTS=8: constant 'SLOTS' is not overridable "
                         "(declare it 'option const SLOTS' to let -D set it)"),
            std::string::npos);
  EXPECT_NE(error_with({"PACKET_BYTES=big"}).find(
                config + ":2:14: error: -D PACKET_BYTES=big: 'big' is not an integer "
                         "(decimal, 0x hex or 0b binary)"),
            std::string::npos);
  EXPECT_NE(error_with({"PACKET_BYTES=4294967296"}).find(
                config + ":2:14: error: -D PACKET_BYTES=4294967296: 4294967296 does not fit "
                         "constant 'PACKET_BYTES' of type u32 (0 to 4294967295)"),
            std::string::npos);
  EXPECT_NE(error_with({"PACKET_BYTES=-1"}).find("-1 does not fit constant 'PACKET_BYTES'"),
            std::string::npos);
  for (const char* bad : {"PACKET_BYTES", "PACKET_BYTES=", "=5", "1X=5"})
    EXPECT_EQ(error_with({bad}), std::string("malformed -D '") + bad +
                                     "': expected NAME=VALUE, NAME an option constant of a "
                                     ".fw input and VALUE an integer");
  // A build with C inputs passes unknown names and bare macros to clang only.
  std::string c = dir.file("m.c", "int macro_value(void) { return LIMIT; }\n");
  BuildOptions bo = bare();
  bo.defines = {"LIMIT=3", "NDEBUG", "PACKET_BYTES=512"};
  auto img = build({start, a, c}, bo);
  ASSERT_TRUE(bool(img)) << llvm::toString(img.takeError());
  EXPECT_EQ(img->constant("PACKET_BYTES").value, 512u);
}

// A pinned global has no storage: pinned inside the image it would alias code or data.
TEST(LayoutBuild, PinnedGlobalOnTopOfTheImageIsAnError) {
  ScratchDir dir;
  std::string start = dir.file("start.s", kStart);
  std::string a = dir.file("a.fw", "var table: u32[64] = [1];\nvar flag: u32 @ 0x10;\n"
                                   "fn main() -> i32 { return table[flag] as i32; }\n");
  std::string e = build_error({start, a}, bare());
  EXPECT_NE(e.find("pinned global flag [0x10, 0x14) lies on top of the image's .text [0x0, 0x"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("pin it at or above _end"), std::string::npos) << e;
}

TEST(LayoutBuild, OptionConstantsMustBeIntegers) {
  ScratchDir dir;
  std::string start = dir.file("start.s", kStart);
  std::string a = dir.file("a.fw", "option const TRACE: bool = false;\n");
  std::string e = build_error({start, a}, bare());
  EXPECT_NE(e.find(a + ":1:14: error: an option constant must have an integer type, not 'bool'"),
            std::string::npos)
      << e;
}
#endif

// ---------------------------------------------------------------------------------------
// The linker's merge of many objects' tables (LayoutMerger, O(n log n)) against merging
// them one entity at a time with merge_layout, as the linker did before (quadratic: it
// copied and re-sorted the merged table per entity). Same entries, same order, same
// conflicts, on the tree's own firmware.

#if __has_include("assembler/fw/compile.h")
#include "llvm/Object/ELFObjectFile.h"

namespace {

const std::string kSourceDir = LANAIKIT_SOURCE_DIR;

// The decoded `.lanaikit.layout` section of an object (an empty table without one).
LayoutTable layout_of(const Object& obj) {
  auto elf = llvm::object::ELF32BEObjectFile::create(llvm::MemoryBufferRef(obj.data, obj.name));
  if (!elf) {
    ADD_FAILURE() << obj.name << ": " << llvm::toString(elf.takeError());
    return {};
  }
  LayoutTable t;
  for (const llvm::object::SectionRef& sec : elf->sections()) {
    auto name = sec.getName();
    if (!name || std::string_view(*name) != kLayoutSection)
      continue;
    auto bytes = sec.getContents();
    if (!bytes) {
      ADD_FAILURE() << obj.name << ": " << llvm::toString(bytes.takeError());
      continue;
    }
    merge_layout(t, decode_layout_section(reinterpret_cast<const uint8_t*>(bytes->data()),
                                          bytes->size()));
  }
  return t;
}

struct Merged {
  LayoutTable table;
  std::vector<std::string> conflicts; // "<first input> and <input>: <message>"
};

// The linker's former algorithm: merge_layout per entity, remembering which input
// defined each name first.
Merged merge_entity_by_entity(const std::vector<LayoutTable>& inputs) {
  Merged out;
  std::map<std::string, unsigned> struct_from, global_from, constant_from;
  for (unsigned i = 0; i < inputs.size(); ++i) {
    auto add = [&](const std::string& name, std::map<std::string, unsigned>& from,
                   const LayoutTable& one) {
      try {
        merge_layout(out.table, one);
        from.emplace(name, i);
      } catch (const std::runtime_error& e) {
        out.conflicts.push_back(std::to_string(from.at(name)) + " and " + std::to_string(i) +
                                ": " + e.what());
      }
    };
    for (const StructLayout& s : inputs[i].structs)
      add(s.name, struct_from, LayoutTable{{s}, {}, {}});
    for (const GlobalLayout& g : inputs[i].globals)
      add(g.name, global_from, LayoutTable{{}, {g}, {}});
    for (const ConstantLayout& c : inputs[i].constants)
      add(c.name, constant_from, LayoutTable{{}, {}, {}, {c}});
    merge_layout(out.table, LayoutTable{{}, {}, inputs[i].handlers});
  }
  return out;
}

Merged merge_with_merger(const std::vector<LayoutTable>& inputs) {
  Merged out;
  LayoutMerger m;
  for (unsigned i = 0; i < inputs.size(); ++i)
    for (const LayoutMerger::Conflict& c : m.add(inputs[i], i))
      out.conflicts.push_back(std::to_string(c.first_input) + " and " + std::to_string(i) +
                              ": " + c.message);
  out.table = std::move(m).finish();
  return out;
}

Object compiled(const std::string& rel) {
  BuildOptions bo;
  bo.opt = OptLevel::O0; // the table does not depend on the optimisation level
  auto obj = load_input(kSourceDir + "/" + rel, bo);
  if (!obj) {
    ADD_FAILURE() << llvm::toString(obj.takeError());
    return {};
  }
  return std::move(*obj);
}

} // namespace

TEST(LayoutMerge, MergerEqualsEntityByEntityOnTheTreesFirmware) {
  // Control programs and the library they share: many identical duplicates (the library's
  // structs and constants in every program), programs with globals of the same name.
  std::vector<LayoutTable> inputs;
  for (const char* rel :
       {"firmware/vmmc/vmmc.fw", "firmware/raw/raw.fw", "tests/firmware/fw/libtest.fw",
        "tests/kit/fw/view.fw", "tests/kit/fw/queue_consumer.fw", "firmware/lib/lanai.fw",
        "firmware/lib/barrier.fw", "firmware/lib/dma.fw", "firmware/lib/packet.fw",
        "firmware/lib/queue.fw", "firmware/lib/debug.fw"})
    inputs.push_back(layout_of(compiled(rel)));
  size_t entities = 0;
  for (const LayoutTable& t : inputs)
    entities += t.structs.size() + t.globals.size() + t.constants.size();
  // And one table that disagrees with the first about a struct, a global and a constant.
  ASSERT_FALSE(inputs[0].structs.empty() || inputs[0].globals.empty() || inputs[0].constants.empty());
  LayoutTable odd;
  odd.structs = {inputs[0].structs.back()};
  odd.structs[0].size += 4;
  odd.globals = {inputs[0].globals.front()};
  odd.globals[0].pinned_address = 0x3FFF0;
  odd.constants = {inputs[0].constants.front()};
  odd.constants[0].value += 1;
  inputs.push_back(odd);

  const Merged before = merge_entity_by_entity(inputs);
  const Merged now = merge_with_merger(inputs);
  EXPECT_EQ(now.table, before.table);
  EXPECT_EQ(now.conflicts, before.conflicts);
  // The odd table's three, and the programs' own (raw's `st` is not VMMC's, ...).
  const std::string odd_input = " and " + std::to_string(inputs.size() - 1) + ": ";
  EXPECT_EQ(std::count_if(before.conflicts.begin(), before.conflicts.end(),
                          [&](const std::string& c) { return c.find(odd_input) != std::string::npos; }),
            3)
      << testing::PrintToString(before.conflicts);
  EXPECT_GT(before.conflicts.size(), 3u);
  const size_t merged = before.table.structs.size() + before.table.globals.size() +
                        before.table.constants.size();
  EXPECT_LT(merged, entities) << "no duplicates collapsed: the inputs do not share the library";
  EXPECT_GT(before.table.globals.size(), 20u);
}

#ifdef LANAIKIT_CRT0
// The VMMC control program (nine source files) linked with crt0 and the runtime library:
// the image's table is the entity-by-entity merge of every input's.
TEST(LayoutMerge, VmmcImageTableEqualsEntityByEntity) {
  BuildOptions bo;
  bo.opt = OptLevel::O0;
  bo.startup = LANAIKIT_CRT0;
  std::stringstream list(LANAIKIT_RUNTIME_OBJECTS);
  for (std::string item; std::getline(list, item, ';');)
    if (!item.empty())
      bo.runtime.push_back(item);
  const std::string vmmc = kSourceDir + "/firmware/vmmc/vmmc.fw";
  auto img = build({vmmc}, bo);
  ASSERT_TRUE(bool(img)) << llvm::toString(img.takeError());

  std::vector<LayoutTable> inputs;
  std::vector<std::string> paths = {bo.startup, vmmc};
  paths.insert(paths.end(), bo.runtime.begin(), bo.runtime.end());
  for (const std::string& p : paths) {
    auto obj = load_input(p, bo);
    ASSERT_TRUE(bool(obj)) << llvm::toString(obj.takeError());
    inputs.push_back(layout_of(*obj));
    if (p != vmmc) {
      EXPECT_TRUE(inputs.back().empty()) << p << " has a layout table";
    }
  }
  const Merged before = merge_entity_by_entity(inputs);
  EXPECT_TRUE(before.conflicts.empty());
  EXPECT_EQ(img->layout_table, before.table);
  EXPECT_GT(img->layout_table.structs.size(), 5u);
}
#endif
#endif
