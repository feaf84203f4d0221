// DART's cells in a capture (sim/timeline.h, report/pcapng.h): a timeline with a pcapng
// output records every cell on every cell link as its 53 wire bytes under LINKTYPE_USER1,
// at its arrival, so Wireshark (with `lanaikit dissector --cell DartCell`) shows control
// cells and block frames. Checked here block by block; tshark reads it in the tools
// test (tests/tools/wireshark_test.py).
#include "dart_bench.h"

#include "report/pcapng.h"
#include "sim/timeline.h"
#include "tests/support/pcapng_reader.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace lanaikit {
namespace {

using namespace test;

TEST(DartCapture, EveryCellOnEveryCellLinkIsCapturedAsOnTheWire) {
  DartBench b;
  std::ostringstream file;
  auto timeline = std::make_unique<sim::Timeline>(b.h.cluster(), nullptr, &file);
  // A control cell and a 1,000-byte block from node 0; a READ whose answer comes back.
  b.send(with_data(Cell::make(WRITE, 0xFF, DIRECT, 0x40), 0x100));
  b.send(block_control(0xF00, 1000));
  b.h.cluster().atm()->node_tx(0).send(net::Packet{77, block_bytes(1000, 3), 0}, 5);
  Cell r = Cell::make(READ, 0x0F, DIRECT, 0x40);
  r.data[0] = 0x300;
  b.send(r);
  b.h.run([&] { return b.counter(0, "writes") >= 1 && b.counter(1, "blocks") == 1; }, 20 * sim::kMillisecond);
  timeline->finish();
  timeline.reset();

  const std::string text = file.str();
  if (const char* keep = std::getenv("LK_DART_PCAP")) std::ofstream(keep, std::ios::binary) << text; // to look at
  report::PcapngReader cap(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  std::vector<uint32_t> cell_ifaces;
  for (uint32_t i = 0; i < cap.interfaces().size(); ++i)
    if (cap.interfaces()[i].link_type == report::kLinktypeUser1) cell_ifaces.push_back(i);
  ASSERT_EQ(cell_ifaces.size(), 2u); // back to back: one link each way
  std::map<uint32_t, std::vector<const report::PcapngPacket*>> by_iface;
  sim::Time last = -1;
  for (const report::PcapngPacket& p : cap.packets()) {
    ASSERT_EQ(p.bytes.size(), net::kCellBytes);
    EXPECT_GE(p.time_ps, last);
    last = p.time_ps;
    by_iface[p.interface].push_back(&p);
  }
  const uint32_t to1 = cap.interfaces()[cell_ifaces[0]].name == b.h.cluster().atm()->node_tx(0).name() ? cell_ifaces[0]
                                                                                                     : cell_ifaces[1];
  const uint32_t to0 = to1 == cell_ifaces[0] ? cell_ifaces[1] : cell_ifaces[0];
  // Node 0 to node 1: the WRITE, the block's control cell, its frame, the READ.
  const auto& fwd = by_iface[to1];
  ASSERT_EQ(fwd.size(), 3u + net::CellLink::aal5_cells(1000));
  for (const auto* p : fwd) EXPECT_EQ(net::cell_header_vci(p->bytes.data()), 5u);
  // The WRITE's payload as sent: data words, then the control words.
  const Cell first = Cell::parse([&] {
    std::array<uint8_t, net::kCellPayloadBytes> a{};
    std::copy(fwd[0]->bytes.begin() + net::kCellHeaderBytes, fwd[0]->bytes.end(), a.begin());
    return a;
  }());
  EXPECT_EQ(first.op, Cell::make(WRITE, 0xFF, DIRECT, 0x40).op);
  EXPECT_EQ(first.data[3], 0x103u);
  // Only the frame's last cell carries the end-of-SDU mark among the frame's cells.
  for (size_t i = 2; i < 2 + net::CellLink::aal5_cells(1000); ++i)
    EXPECT_EQ(net::cell_header_pti(fwd[i]->bytes.data()) & net::kPtiEndOfSdu,
              i + 1 == 2 + net::CellLink::aal5_cells(1000) ? net::kPtiEndOfSdu : 0)
        << i;
  // Node 1 to node 0: the READ's answer, on the reply VCI.
  ASSERT_EQ(by_iface[to0].size(), 1u);
  EXPECT_EQ(net::cell_header_vci(by_iface[to0][0]->bytes.data()), 6u);
}

} // namespace
} // namespace lanaikit
