// Platform files: the real ones load with the paper's numbers; bad ones fail with the
// file and the field named.
#include "sim/platform.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

using namespace lanaikit::sim;
using lanaikit::sim::kMicrosecond;
using lanaikit::sim::kNanosecond;

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

// What DART's code does with its section (the shape DART's own reader will have): DART's
// cell layout inside the 48-byte ATM payload.
struct DartCellFormat {
  uint32_t data_bytes, control_bytes, max_ops_per_message;
};
DartCellFormat read_dart(const PlatformSection& s) {
  s.only({"data_bytes", "control_bytes", "max_ops_per_message"});
  DartCellFormat f{uint32_t(s.integer("data_bytes", 0, 48)), uint32_t(s.integer("control_bytes", 0, 48)),
                   uint32_t(s.integer("max_ops_per_message", 1, 64))};
  if (f.data_bytes + f.control_bytes != 48)
    s.fail("data_bytes", "data_bytes + control_bytes must fill the 48-byte payload, got " +
                             std::to_string(f.data_bytes + f.control_bytes));
  return f;
}

} // namespace

TEST(Platform, VmmcTestbed) {
  const Platform p = load_platform(platform_path("vmmc"));
  EXPECT_EQ(p.name, "vmmc");
  EXPECT_EQ(p.nodes, 4u);
  ASSERT_TRUE(p.nic.has_value());
  EXPECT_EQ(p.nic->clock_hz, 33000000u);
  EXPECT_EQ(p.nic->sram_bytes, 256u * 1024);

  ASSERT_TRUE(p.pci.has_value());
  const lanaikit::host::PciParams& pci = *p.pci;
  EXPECT_EQ(pci.pio_read_latency, 422 * kNanosecond);
  EXPECT_EQ(pci.pio_write_issue, 121 * kNanosecond); // one number, used for both
  EXPECT_EQ(pci.pio_write_latency, 121 * kNanosecond);
  EXPECT_EQ(pci.dma_setup, 0);
  ASSERT_EQ(pci.dma_to_host.size(), 2u);
  EXPECT_EQ(pci.dma_to_host[0].block_bytes, 4096u);
  EXPECT_EQ(pci.dma_to_host[0].mb_per_s, 110);
  EXPECT_EQ(pci.dma_to_host[1].block_bytes, 65536u);
  EXPECT_EQ(pci.dma_to_host[1].mb_per_s, 128);
  ASSERT_EQ(pci.dma_from_host.size(), 2u);
  EXPECT_EQ(pci.dma_from_host[1].mb_per_s, 128);
  EXPECT_EQ(pci.dma_burst_bytes, 0u);
  // The file says what PciParams::vmmc() says.
  const lanaikit::host::PciParams ref = lanaikit::host::PciParams::vmmc();
  EXPECT_EQ(pci.pio_read_latency, ref.pio_read_latency);
  EXPECT_EQ(pci.pio_write_latency, ref.pio_write_latency);

  ASSERT_TRUE(p.link.has_value());
  EXPECT_EQ(p.link->bytes_per_s, 160000000u);
  const lanaikit::net::LinkConfig link_defaults;
  EXPECT_EQ(p.link->latency_ps, link_defaults.latency_ps);
  EXPECT_EQ(p.link->slack_bytes, link_defaults.slack_bytes);

  ASSERT_TRUE(p.net_switch.has_value());
  EXPECT_EQ(p.net_switch->ports, 8u);
  EXPECT_EQ(p.net_switch->fall_through_ps, 500 * kNanosecond); // lanaikit default

  ASSERT_TRUE(p.host.has_value());
  EXPECT_EQ(p.host->cpu_hz, 166000000u);
  EXPECT_EQ(p.host->page_bytes, 4096u);
  EXPECT_FALSE(p.host->interrupt_latency.has_value());
  EXPECT_EQ(p.host->costs.at("send_post"), 500 * kNanosecond);
  EXPECT_FALSE(p.cells.has_value());

  // What the file left to lanaikit is listed.
  for (const char* f : {"pci.dma_setup_ns", "pci.dma_burst_bytes", "link.latency_ns",
                        "link.slack_bytes", "switch.fall_through_ns"})
    EXPECT_NE(std::find(p.defaulted.begin(), p.defaulted.end(), f), p.defaulted.end()) << f;
  for (const char* f : {"pci.pio_read_ns", "pci.pio_write_issue_ns", "link.mb_per_s"})
    EXPECT_EQ(std::find(p.defaulted.begin(), p.defaulted.end(), f), p.defaulted.end()) << f;
}

TEST(Platform, HamlynHasADmaCurvePerDirection) {
  const Platform p = load_platform(platform_path("hamlyn"));
  ASSERT_TRUE(p.pci.has_value());
  ASSERT_EQ(p.pci->dma_to_host.size(), 1u);
  EXPECT_EQ(p.pci->dma_to_host[0].mb_per_s, 106);
  ASSERT_EQ(p.pci->dma_from_host.size(), 1u);
  EXPECT_EQ(p.pci->dma_from_host[0].mb_per_s, 32);
  // A flat curve: the same bandwidth at every block size.
  EXPECT_EQ(lanaikit::host::interpolate_bandwidth(p.pci->dma_from_host, 16), 32);
  EXPECT_EQ(lanaikit::host::interpolate_bandwidth(p.pci->dma_from_host, 1 << 20), 32);
  EXPECT_EQ(p.pci->pio_write_issue, 175 * kNanosecond);
  EXPECT_EQ(p.pci->pio_write_latency, 175 * kNanosecond);
  EXPECT_EQ(p.pci->pio_read_latency, 0); // no figure in the paper
  EXPECT_NE(std::find(p.defaulted.begin(), p.defaulted.end(), "pci.pio_read_ns"),
            p.defaulted.end());
  ASSERT_TRUE(p.link.has_value());
  EXPECT_EQ(p.link->bytes_per_s, 80000000u);
  ASSERT_TRUE(p.net_switch.has_value());
  EXPECT_EQ(p.net_switch->fall_through_ps, 500 * kNanosecond); // "about 0.5 us"
  EXPECT_EQ(std::find(p.defaulted.begin(), p.defaulted.end(), "switch.fall_through_ns"),
            p.defaulted.end());
  ASSERT_TRUE(p.host.has_value());
  EXPECT_EQ(p.host->cpu_hz, 100000000u);
  EXPECT_EQ(p.host->cache_coherent_io, true);
  EXPECT_EQ(p.host->costs.at("context_switch"), 31 * kMicrosecond);
}

TEST(Platform, DartCellLinks) {
  const Platform p = load_platform(platform_path("dart"));
  EXPECT_FALSE(p.nic.has_value());
  EXPECT_FALSE(p.pci.has_value());
  EXPECT_FALSE(p.link.has_value());
  ASSERT_TRUE(p.cells.has_value());
  EXPECT_EQ(p.cells->link.line_bits_per_s, 140000000u);
  EXPECT_EQ(p.cells->link.cell_rate_num, 1u); // TAXI: no SONET frame
  EXPECT_EQ(p.cells->link.cell_rate_den, 1u);
  ASSERT_EQ(p.cells->projected.size(), 2u);
  EXPECT_EQ(p.cells->projected[0].line_bits_per_s, 155520000u);
  EXPECT_EQ(p.cells->projected[0].cell_rate_num, 26u);
  EXPECT_EQ(p.cells->projected[0].cell_rate_den, 27u);
  EXPECT_EQ(p.cells->projected[1].line_bits_per_s, 622080000u);
  // DART's cell format is DART's: kept raw, read by its code.
  const DartCellFormat f = read_dart(protocol_section(p, "dart"));
  EXPECT_EQ(f.data_bytes, 32u);
  EXPECT_EQ(f.control_bytes, 16u);
  EXPECT_EQ(f.max_ops_per_message, 4u);
}

TEST(Platform, UdmCountsCycles) {
  const Platform p = load_platform(platform_path("udm"));
  EXPECT_EQ(p.nodes, 8u);
  ASSERT_TRUE(p.host.has_value());
  EXPECT_FALSE(p.host->cpu_hz.has_value());
  EXPECT_EQ(p.host->cache_bytes, 64u * 1024);
  EXPECT_EQ(p.host->cache_line_bytes, 16u);
  // FUGU's send buffer and UDM's cycle counts are UDM's section.
  const PlatformSection& udm = protocol_section(p, "udm");
  udm.only({"send_buffer_words", "cycles"});
  EXPECT_EQ(udm.integer("send_buffer_words", 1, 1024), 16u);
  const auto cycles = udm.named_integers("cycles", 0, UINT32_MAX);
  EXPECT_EQ(cycles.at("miss_penalty"), 10u);
  EXPECT_EQ(cycles.at("timeslice"), 500000u);
  EXPECT_EQ(cycles.size(), 2u);
}

TEST(Platform, ProtocolSectionErrorsNameTheFileAndField) {
  const Platform p = load_platform(scratch(
      "udmbad.lua", "return { name = 'x', protocol = { udm = { send_buffer_words = 0,"
                    " cycles = { timeslice = -1 }, sendbuffer_words = 16 } } }"));
  const PlatformSection& udm = protocol_section(p, "udm");
  auto message = [](auto fn) {
    try {
      fn();
    } catch (const LuaError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([&] { udm.only({"send_buffer_words", "cycles"}); })
                .find("udmbad.lua: protocol.udm.sendbuffer_words: unknown field"),
            std::string::npos);
  EXPECT_NE(message([&] { udm.integer("send_buffer_words", 1, 1024); })
                .find("udmbad.lua: protocol.udm.send_buffer_words: expected an integer 1 .. 1024, got 0"),
            std::string::npos);
  EXPECT_NE(message([&] { udm.named_integers("cycles", 0, 100); })
                .find("udmbad.lua: protocol.udm.cycles.timeslice: expected an integer 0 .. 100, got -1"),
            std::string::npos);
  EXPECT_NE(message([&] { udm.ns("missing"); }).find("protocol.udm.missing: expected a number, got nothing"),
            std::string::npos);
  EXPECT_NE(message([&] { protocol_section(p, "dart"); }).find("udmbad.lua: no `protocol.dart` section"),
            std::string::npos);
}

// A protocol that registers its check has its section checked when the file is loaded.
TEST(Platform, RegisteredProtocolCheckRunsAtLoad) {
  register_platform_section("dart", [](const PlatformSection& s) { read_dart(s); });
  EXPECT_NO_THROW(load_platform(platform_path("dart")));
  const std::string msg = load_error(scratch(
      "dartsplit.lua", "return { name = 'x', protocol = { dart = { data_bytes = 32,"
                       " control_bytes = 8, max_ops_per_message = 4 } } }"));
  EXPECT_NE(msg.find("dartsplit.lua: protocol.dart.data_bytes: data_bytes + control_bytes must fill"),
            std::string::npos)
      << msg;
}

TEST(Platform, EveryTestbedFileLoads) {
  for (const char* name : {"vmmc", "bip", "hamlyn", "dart", "udm"}) {
    SCOPED_TRACE(name);
    const Platform p = load_platform(platform_path(name));
    EXPECT_EQ(p.name, name);
  }
  EXPECT_EQ(load_platform(platform_path("hamlyn")).nic->clock_hz, 40000000u);
  EXPECT_FALSE(load_platform(platform_path("dart")).nic.has_value());
  const Platform bip = load_platform(platform_path("bip"));
  ASSERT_TRUE(bip.pci.has_value());
  EXPECT_EQ(bip.pci->dma_to_host[0].mb_per_s, 132);
  EXPECT_EQ(bip.link->bytes_per_s, 160000000u);
  EXPECT_EQ(bip.host->cpu_hz, 200000000u);
}

TEST(Platform, SectionErrorsNameFileAndField) {
  struct Case {
    const char* file;
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"dmatype.lua",
       "return { name = 'x', pci = { dma = { { block_bytes = 4096, mb_per_s = 110 },"
       " { block_bytes = 65536, mb_per_s = 'fast' } } } }",
       "dmatype.lua: pci.dma[2].mb_per_s: expected a number, got a string"},
      {"dmaorder.lua",
       "return { name = 'x', pci = { dma = { { block_bytes = 4096, mb_per_s = 110 },"
       " { block_bytes = 4096, mb_per_s = 128 } } } }",
       "dmaorder.lua: pci.dma[2].block_bytes: block sizes must increase strictly"},
      {"dmazero.lua", "return { name = 'x', pci = { dma = 0 } }",
       "dmazero.lua: pci.dma: expected a bandwidth in MB/s > 0"},
      {"nodma.lua", "return { name = 'x', pci = { pio_read_ns = 422, dma_to_host = 106 } }",
       "nodma.lua: pci.dma: give a DMA bandwidth curve"},
      {"dmastr.lua", "return { name = 'x', pci = { dma = 'fast' } }",
       "dmastr.lua: pci.dma: expected a number (MB/s) or a list"},
      {"pciunknown.lua", "return { name = 'x', pci = { dma = 1, pio_raed_ns = 4 } }",
       "pciunknown.lua: pci.pio_raed_ns: unknown field"},
      {"pioneg.lua", "return { name = 'x', pci = { dma = 1, pio_read_ns = -1 } }",
       "pioneg.lua: pci.pio_read_ns: expected a duration in ns"},
      {"linkrate.lua", "return { name = 'x', link = { mb_per_s = '160' } }",
       "linkrate.lua: link.mb_per_s: expected a number, got a string"},
      {"linkslack.lua", "return { name = 'x', link = { mb_per_s = 160, slack_bytes = 100 } }",
       "linkslack.lua: link: "},
      {"linkcrc.lua", "return { name = 'x', link = { mb_per_s = 160, crc_bits = 32 } }",
       "linkcrc.lua: link.crc_bits: the link model appends a CRC-8"},
      {"swports.lua", "return { name = 'x', switch = { ports = 0 } }",
       "swports.lua: switch.ports: expected an integer 1 .."},
      {"swmissing.lua", "return { name = 'x', switch = { fall_through_ns = 500 } }",
       "swmissing.lua: switch.ports: expected a number, got nothing"},
      {"hostcost.lua", "return { name = 'x', host = { costs = { send_post = '0.5 us' } } }",
       "hostcost.lua: host.costs.send_post: expected a number, got a string"},
      {"hostlist.lua", "return { name = 'x', host = { costs = { 500 } } }",
       "hostlist.lua: host.costs[1]: expected named entries only"},
      {"hostpage.lua", "return { name = 'x', host = { page_bytes = 4000 } }",
       "hostpage.lua: host.page_bytes: expected a power of two"},
      {"cellframe.lua", "return { name = 'x', cells = { line_mbit_per_s = 155.52, framing = 'sdh' } }",
       "cellframe.lua: cells.framing: expected \"sonet\" or \"plain\""},
      {"cellsize.lua",
       "return { name = 'x', cells = { cell_bytes = 64, line_mbit_per_s = 155.52, framing = 'sonet' } }",
       "cellsize.lua: cells.cell_bytes: ATM cells are 53 bytes"},
      {"cellproj.lua",
       "return { name = 'x', cells = { line_mbit_per_s = 140, framing = 'plain',"
       " projected = { { line_mbit_per_s = 622.08 } } } }",
       "cellproj.lua: cells.projected[1].framing: expected a string, got nothing"},
      {"celldart.lua",
       "return { name = 'x', cells = { line_mbit_per_s = 140, framing = 'plain',"
       " dart = { data_bytes = 32, control_bytes = 16 } } }",
       "celldart.lua: cells.dart: unknown field"}, // DART's fields moved to protocol.dart
      {"hostsend.lua", "return { name = 'x', host = { send_buffer_words = 16 } }",
       "hostsend.lua: host.send_buffer_words: unknown field"}, // now protocol.udm's
      {"protonum.lua", "return { name = 'x', protocol = { dart = 5 } }",
       "protonum.lua: protocol.dart: expected a table, got a number"},
      {"protolist.lua", "return { name = 'x', protocol = { {} } }",
       "protolist.lua: protocol[1]: expected protocol sections by name"},
      {"nodes.lua", "return { name = 'x', nodes = 0 }", "nodes.lua: nodes: expected an integer 1 .."},
  };
  for (const Case& c : cases) {
    const std::string msg = load_error(scratch(c.file, c.text));
    EXPECT_NE(msg.find(c.message), std::string::npos) << "got: " << msg << "\nwanted: " << c.message;
  }
}

TEST(Platform, PioWriteIssueAndLatencyCanBeGivenApart) {
  const Platform p = load_platform(scratch(
      "writes.lua", "return { name = 'x', pci = { dma = 100, pio_write_ns = 121,"
                    " pio_write_latency_ns = 300 } }"));
  EXPECT_EQ(p.pci->pio_write_issue, 121 * kNanosecond);
  EXPECT_EQ(p.pci->pio_write_latency, 300 * kNanosecond);
  EXPECT_EQ(p.pci->dma_to_host[0].mb_per_s, 100);
  EXPECT_EQ(p.pci->dma_from_host[0].mb_per_s, 100);
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
