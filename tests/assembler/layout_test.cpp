// Tests of the layout table: lookups and their errors, the binary encoding (round trip,
// rejection of truncated, corrupted and random bytes), merging, and its way through the
// linker (objects with a .lanaikit.layout section) into FirmwareImage and the ELF file.
#include <gtest/gtest.h>

#include <random>

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
