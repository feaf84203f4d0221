// Platform files: the real ones load with the paper's numbers; bad ones fail with the
// file and the field named.
#include "sim/platform.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

using namespace lanaikit::sim;

namespace {

std::string platform_path(const std::string& name) {
  return std::string(LANAIKIT_SOURCE_DIR) + "/lua-scripts/platforms/" + name + ".lua";
}

// Writes `text` to a scratch file and returns its path.
std::string scratch(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string load_error(const std::string& path) {
  try {
    load_platform(path);
  } catch (const LuaError& e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace

TEST(Platform, VmmcTestbed) {
  const Platform p = load_platform(platform_path("vmmc"));
  EXPECT_EQ(p.name, "vmmc");
  ASSERT_TRUE(p.nic.has_value());
  EXPECT_EQ(p.nic->clock_hz, 33000000u);
  EXPECT_EQ(p.nic->sram_bytes, 256u * 1024);
  const LuaTable pci = p.file->root().table("pci");
  EXPECT_EQ(pci.integer("pio_read_ns"), 422);
  EXPECT_EQ(pci.integer("pio_write_ns"), 121);
  const LuaTable dma = pci.table("dma");
  ASSERT_EQ(dma.length(), 2u);
  EXPECT_EQ(dma.table_at(1).integer("block_bytes"), 4096);
  EXPECT_EQ(dma.table_at(1).number("mb_per_s"), 110);
  EXPECT_EQ(dma.table_at(2).number("mb_per_s"), 128);
}

TEST(Platform, EveryTestbedFileLoads) {
  for (const char* name : {"vmmc", "bip", "hamlyn", "dart", "udm"}) {
    SCOPED_TRACE(name);
    const Platform p = load_platform(platform_path(name));
    EXPECT_EQ(p.name, name);
  }
  EXPECT_EQ(load_platform(platform_path("hamlyn")).nic->clock_hz, 40000000u);
  EXPECT_FALSE(load_platform(platform_path("dart")).nic.has_value());
}

TEST(Platform, UnknownSectionIsNamed) {
  const std::string msg = load_error(scratch("typo.lua", "return { name = 'x', nci = {} }"));
  EXPECT_NE(msg.find("typo.lua: nci: unknown field"), std::string::npos) << msg;
}

TEST(Platform, WrongTypeNamesTheFieldPath) {
  const std::string msg = load_error(scratch(
      "wrongtype.lua", "return { name = 'x', nic = { clock_hz = '33 MHz', sram_bytes = 1024 } }"));
  EXPECT_NE(msg.find("wrongtype.lua: nic.clock_hz: expected a number, got a string"),
            std::string::npos)
      << msg;
}

TEST(Platform, NonIntegralAndBadSramSizes) {
  std::string msg = load_error(
      scratch("frac.lua", "return { name = 'x', nic = { clock_hz = 33000000.5, sram_bytes = 1024 } }"));
  EXPECT_NE(msg.find("nic.clock_hz: expected an integer"), std::string::npos) << msg;
  msg = load_error(
      scratch("sram.lua", "return { name = 'x', nic = { clock_hz = 33e6, sram_bytes = 1022 } }"));
  EXPECT_NE(msg.find("nic.sram_bytes: must be a multiple of 4"), std::string::npos) << msg;
  msg = load_error(scratch("missing.lua", "return { name = 'x', nic = { sram_bytes = 1024 } }"));
  EXPECT_NE(msg.find("nic.clock_hz: expected a number, got nothing"), std::string::npos) << msg;
}

TEST(Platform, LuaSyntaxAndRuntimeErrorsKeepLuasLocation) {
  std::string msg = load_error(scratch("syntax.lua", "return {\n  name = 'x',\n  nic = {\n"));
  EXPECT_NE(msg.find("syntax.lua:4:"), std::string::npos) << msg;
  msg = load_error(scratch("runtime.lua", "local t = nil\nreturn t.field\n"));
  EXPECT_NE(msg.find("runtime.lua:2:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("stack traceback"), std::string::npos) << msg;
  msg = load_error(scratch("number.lua", "return 42\n"));
  EXPECT_NE(msg.find("must return a table, returned a number"), std::string::npos) << msg;
  msg = load_error("/nonexistent/platform.lua");
  EXPECT_NE(msg.find("/nonexistent/platform.lua"), std::string::npos) << msg;
}
