// The firmware library (firmware/lib/*.fw, docs/firmware-lib.md): its routines run on one
// simulated node, the protocols' structs keep the library's layouts, and no inline
// assembly names a register by number.
#include "../chip/firmware.h"
#include "host/kit/sram.h"
#include "sim/cluster.h"
#include "sim/node.h"
#include "sim/platform.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace lanaikit {
namespace {

namespace fs = std::filesystem;
using sim::Time;

constexpr uint32_t kArgs = 0x10000, kQueue = 0x10100, kRoute = 0x10200, kPacket = 0x13000;

struct Rig {
  sim::Kernel kernel;
  std::unique_ptr<sim::Node> node;
  bool stopped = false;

  Rig() {
    static const assembler::FirmwareImage image =
        test::build_firmware({test::source("tests/firmware/fw/libtest.fw")});
    // VMMC's testbed node (LANai 4.1, 430FX PCI): the library's routines on a real NIC.
    static const sim::NodeParams params =
        sim::cluster_params(sim::load_platform(test::source("lua-scripts/platforms/vmmc.lua")), 1).node;
    node = std::make_unique<sim::Node>(kernel, params, 0, "n0");
    node->load(image);
    node->chip().on_stop([this](vm::Chip&) { stopped = true; });
  }
  void put(uint32_t addr, uint32_t v) { kit::poke32(*node, addr, v); }
  uint32_t get(uint32_t addr) { return kit::peek32(*node, addr); }
  uint32_t result(int i) { return get(kArgs + 12 + 4 * i); }
  void run(uint32_t test, uint32_t host, uint32_t len) {
    put(kArgs, test);
    put(kArgs + 4, host);
    put(kArgs + 8, len);
    node->start();
    const Time until = 10 * sim::kMillisecond;
    while (!stopped && kernel.now() < until) kernel.run_until(until);
    ASSERT_TRUE(node->chip().cpu().halted()) << node->chip().cpu().fault_report();
  }
};

TEST(FirmwareLib, HostDmaBothWaysQueuedAndStartedWhenIdle) {
  Rig r;
  const uint32_t host = 0x40000, len = 1000;
  r.run(1, host, len);
  EXPECT_EQ(r.result(0), 1u) << "the engine is idle before the first transfer";
  EXPECT_EQ(r.result(1), 0u) << "bytes that differ after SRAM -> host -> SRAM";
  EXPECT_EQ(r.result(2), 1u) << "idle after dma_sync";
  for (uint32_t at : {host, host + 8192, host + 16384}) {
    std::vector<uint8_t> got(len);
    r.node->memory().read(at, got);
    for (uint32_t i = 0; i < len; ++i) ASSERT_EQ(got[i], uint8_t(i * 7 + 3)) << "host 0x" << std::hex << at + i;
  }
  // Nothing past the length was written.
  std::vector<uint8_t> after(4);
  r.node->memory().read(host + 8192 + len, after);
  EXPECT_EQ(after, std::vector<uint8_t>(4, 0));
  EXPECT_EQ(r.node->chip().counters().host_dmas, 5u);
}

// Entry k of a 4-slot ring: value at +0, seq at +12 (16 bytes each, after `consumed`).
void put_entry(Rig& r, uint32_t slot, uint32_t value, uint32_t seq) {
  r.put(kQueue + 4 + 16 * slot, value);
  r.put(kQueue + 4 + 16 * slot + 12, seq);
}

TEST(FirmwareLib, QueueConsumesPublishedEntriesInOrderAcrossTheWrap) {
  Rig r;
  // Entries 3 and 4 in slots 2 and 3, then 5 and 6 in slots 0 and 1 (the host's second
  // lap); slot 2 still holds entry 3, which is not entry 7.
  put_entry(r, 2, 30, 3);
  put_entry(r, 3, 400, 4);
  put_entry(r, 0, 5000, 5);
  put_entry(r, 1, 60000, 6);
  r.run(2, 0, 3);
  EXPECT_EQ(r.result(0), 65430u) << "sum of the four entries' values";
  EXPECT_EQ(r.get(kQueue), 6u) << "consumed";
  EXPECT_EQ(r.result(1), 2u * 16) << "the next entry is looked for in slot 2";
}

TEST(FirmwareLib, QueueStopsAtAnEntryNotYetPublished) {
  Rig r;
  put_entry(r, 0, 7, 1);
  put_entry(r, 1, 8, 0); // fields written, seq not yet
  r.run(2, 0, 1);
  EXPECT_EQ(r.result(0), 7u);
  EXPECT_EQ(r.get(kQueue), 1u);
  EXPECT_EQ(r.result(1), 16u);
}

TEST(FirmwareLib, RouteGoesRightAlignedBeforeTheHeader) {
  Rig r;
  r.put(kRoute, 3);                  // Route.len
  r.put(kRoute + 4, 0x00000000);     // hops, right-aligned: 0x0A 0x0B 0x0C
  r.put(kRoute + 8, 0x000A0B0C);
  r.run(3, 0, 0);
  EXPECT_EQ(r.result(0), 13u) << "the packet starts route.len bytes before the header at 16";
  EXPECT_EQ(r.get(kPacket + 12), 0x000A0B0Cu);
}

// The host libraries find routes as VmmcRoute and RawRoute; both must keep the library's
// Route layout, and every protocol header starts with the library's PacketHeader.
TEST(FirmwareLib, ProtocolsKeepTheLibraryLayouts) {
  for (const char* src : {"firmware/vmmc/vmmc.fw", "firmware/raw/raw.fw"}) {
    SCOPED_TRACE(src);
    const assembler::FirmwareImage img = test::build_firmware({test::source(src)});
    const auto& route = img.layout("Route");
    const auto& hdr = img.layout("PacketHeader");
    const std::string p = std::string(src).find("vmmc") != std::string::npos ? "Vmmc" : "Raw";
    const auto& proute = img.layout(p + "Route");
    EXPECT_EQ(proute.size, route.size);
    for (const char* f : {"len", "hops"}) {
      EXPECT_EQ(proute.field(f).offset, route.field(f).offset) << f;
      EXPECT_EQ(proute.field(f).size, route.field(f).size) << f;
    }
    const auto& phdr = img.layout(p + "Header");
    EXPECT_EQ(phdr.field("pkt").offset, 0u);
    EXPECT_EQ(phdr.field("pkt").type, "PacketHeader");
    EXPECT_EQ(hdr.size, 12u);
  }
}

// Inline assembly takes register addresses as operands (lanai.fw's X_ADDR constants), never
// as numbers: a displacement from %r0 into the register block (-512..-1) in an asm string
// of any control program fails here.
TEST(FirmwareLib, NoInlineAssemblyNamesARegisterByNumber) {
  const std::regex asm_call(R"(asm\s*\(\s*"((?:[^"\\]|\\.)*)\")");
  const std::regex reg_disp(R"(-([0-9]+)\[%r0\])");
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(test::source("firmware"))) {
    if (e.path().extension() != ".fw") continue;
    ++files;
    std::ifstream in(e.path());
    std::stringstream s;
    s << in.rdbuf();
    const std::string text = s.str();
    for (auto it = std::sregex_iterator(text.begin(), text.end(), asm_call); it != std::sregex_iterator(); ++it) {
      const std::string tpl = (*it)[1];
      std::smatch m;
      if (std::regex_search(tpl, m, reg_disp) && std::stoul(m[1]) <= 512)
        ADD_FAILURE() << e.path().string() << ": inline assembly `" << tpl << "` names register 0x"
                      << std::hex << (0x100000000ull - std::stoul(m[1])) << " by number; pass its X_ADDR from lanai.fw as an \"n\" operand";
    }
  }
  EXPECT_GE(files, 10);
}

} // namespace
} // namespace lanaikit
