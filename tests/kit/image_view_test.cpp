// The kit's image view (host/kit/image_view.h): paths through globals, fields and array
// elements resolve to the addresses the layout table implies, constants read as built,
// and every wrong name fails with a message that says what exists instead.
#include "lcp_bench.h"

#include "host/kit/image_view.h"
#include "host/kit/sram.h"

#include <gtest/gtest.h>

namespace lanaikit {
namespace {

const assembler::FirmwareImage& image() {
  static const assembler::FirmwareImage img =
      test::build_firmware({test::source("tests/kit/fw/view.fw")});
  return img;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const kit::KitError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(KitImageView, PathsResolveThroughFieldsAndElements) {
  kit::ImageView v(image(), "viewtest", "tests/kit/fw/view.fw");
  const assembler::StructLayout& block = image().layout("Block");
  const assembler::StructLayout& inner = image().layout("Inner");
  const kit::Ref b = v.global("block");
  EXPECT_EQ(b.addr(), 0x9000u);
  EXPECT_EQ(b.size(), block.size);
  EXPECT_EQ(b.type(), "Block");
  const kit::Ref in2 = b.field("inner")[2];
  EXPECT_EQ(in2.addr(), 0x9000u + block.field("inner").offset + 2 * inner.size);
  EXPECT_EQ(in2.type(), "Inner");
  EXPECT_EQ(v.ref("block.inner[2].y[1]").addr(), in2.addr() + inner.field("y").offset + 1);
  EXPECT_EQ(v.ref("block.inner[2].y[1]").size(), 1u);
  EXPECT_EQ(b.field("inner").count(), 4u);
  EXPECT_EQ(b.field("inner").elem_size(), inner.size);
  EXPECT_EQ(v.ref("block.wide").size(), 8u);
  // A linker-placed global is found through its symbol.
  const kit::Ref t = v.global("table");
  EXPECT_EQ(t.addr(), *image().symbol("table"));
  EXPECT_EQ(t.count(), 8u);
  EXPECT_EQ(v.ref("table[7]").addr(), t.addr() + 28);
  EXPECT_EQ(v.handler("tick"), *image().handler_entry("tick"));
}

TEST(KitImageView, ConstantsAreTheImagesValues) {
  kit::ImageView v(image(), "viewtest");
  EXPECT_EQ(v.constant32("SLOTS"), 4u);
  EXPECT_EQ(v.constant32("LIMIT"), 0x12345678u);
  EXPECT_EQ(int64_t(v.constant("NEG")), -2);
  EXPECT_EQ(error_of([&] { v.constant("NOPE"); }), "viewtest: the image has no constant 'NOPE'");
}

TEST(KitImageView, WrongNamesSayWhatExists) {
  kit::ImageView v(image(), "viewtest", "tests/kit/fw/view.fw");
  EXPECT_EQ(error_of([&] { v.global("blok"); }),
            "viewtest: the image has no global 'blok' (is it tests/kit/fw/view.fw?)");
  EXPECT_EQ(error_of([&] { v.ref("block.inner[2].z"); }),
            "viewtest: block.inner[2] (Inner) has no field 'z' (it has: x, y)");
  EXPECT_EQ(error_of([&] { v.ref("block.inner[4]"); }),
            "viewtest: block.inner[4] is past the end (4 elements)");
  EXPECT_EQ(error_of([&] { v.ref("block.a[0]"); }),
            "viewtest: block.a is not an array (its type is 'u32')");
  EXPECT_EQ(error_of([&] { v.ref("block.a.b"); }),
            "viewtest: block.a is not a struct (its type is 'u32')");
  EXPECT_EQ(error_of([&] { v.ref("block.inner[x]"); }),
            "viewtest: malformed path 'block.inner[x]' (expected global.field[index]...)");
  EXPECT_EQ(error_of([&] { v.layout("Nope"); }),
            "viewtest: the image has no struct 'Nope' (it has: Block, Inner)");
  EXPECT_EQ(error_of([&] { v.handler("main"); }), "viewtest: the image has no handler 'main'");
  EXPECT_EQ(error_of([] { kit::Ref().field("x"); }),
            "an unresolved kit::Ref was used (assign it from an ImageView first)");
}

TEST(KitSram, PeekPokeByWidthAndStructFields) {
  test::LcpBench h(image(), "lua-scripts/platforms/vmmc.lua", 1, "viewtest");
  sim::Node& n = h.node(0);
  kit::poke(n, h.ref("block.a"), 0xA1B2C3D4u);
  kit::poke(n, h.ref("block.wide"), 0x0102030405060708ull);
  kit::poke(n, h.ref("block.inner[1].x"), 0xBEEF);
  kit::poke(n, h.ref("block.small"), 0x5A);
  EXPECT_EQ(kit::peek32(n, 0x9000), 0xA1B2C3D4u); // big-endian in SRAM
  EXPECT_EQ(kit::peek(n, h.ref("block.wide")), 0x0102030405060708ull);
  EXPECT_EQ(kit::peek(n, h.ref("block.inner[1].x")), 0xBEEFu);
  kit::poke(n, h.ref("block.state"), kit::ImageView(image(), "viewtest").constant("State.BUSY"));
  const auto fields = kit::read_fields(n, h.ref("block"));
  ASSERT_EQ(fields.size(), 4u); // a, wide, small, state: the array of structs is skipped
  EXPECT_EQ(fields[0], (std::pair<std::string, uint64_t>{"a", 0xA1B2C3D4u}));
  EXPECT_EQ(fields[2], (std::pair<std::string, uint64_t>{"small", 0x5A}));
  EXPECT_EQ(fields[3], (std::pair<std::string, uint64_t>{"state", 7})); // an enum: 2 bytes
  EXPECT_TRUE(h.ref("block.state").is_integer());
  EXPECT_FALSE(h.ref("block.inner").is_integer());
  EXPECT_THROW(kit::peek(n, h.ref("block.inner[0].y")), kit::KitError); // 3 bytes: no integer
}

} // namespace
} // namespace lanaikit
