// The ATM cell link: CRC-32 and HEC, exact per-cell timing at 155.52 / 622.08 Mb/s (SONET)
// and 140 Mb/s (plain), AAL5 segmentation and reassembly, CRC and cell-loss detection,
// raw cells, a stalling sink, determinism.
#include "net/atm.h"

#include "test_sinks.h"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

using namespace lanaikit::net;
using lanaikit::net::testing::Arrival;
using lanaikit::net::testing::Collector;
using lanaikit::net::testing::pattern;
using lanaikit::sim::Kernel;
using lanaikit::sim::kNanosecond;
using lanaikit::sim::Time;

namespace {

CellLinkConfig oc3() { return CellLinkConfig{}; } // 155.52 Mb/s, SONET 26/27, 50 ns

CellLinkConfig oc12() {
  CellLinkConfig c;
  c.line_bits_per_s = 622'080'000;
  return c;
}

CellLinkConfig taxi140() {
  CellLinkConfig c;
  c.line_bits_per_s = 140'000'000;
  c.cell_rate_num = c.cell_rate_den = 1;
  return c;
}

Packet packet(uint64_t id, size_t n) {
  Packet p;
  p.id = id;
  p.bytes = pattern(n, uint32_t(id + n));
  return p;
}

const Time kLatency = 50 * kNanosecond;

} // namespace

TEST(AtmCrc, Aal5CheckValueAndHec) {
  const std::string check = "123456789";
  EXPECT_EQ(crc32_aal5({reinterpret_cast<const uint8_t*>(check.data()), check.size()}),
            0xFC891918u);
  // The idle cell's header is 00 00 00 01 with HEC 0x52 (ITU-T I.432).
  const std::array<uint8_t, 4> idle{0, 0, 0, 1};
  EXPECT_EQ(atm_hec(idle), 0x52);
  // Continuing the register over two pieces equals one pass.
  const std::vector<uint8_t> data = pattern(1000, 7);
  const uint32_t reg = crc32_aal5_update(0xFFFFFFFFu, {data.data(), 400});
  EXPECT_EQ(~crc32_aal5_update(reg, {data.data() + 400, 600}), crc32_aal5(data));
}

TEST(AtmCellLink, CellTimesAreExactAtBothSonetRatesAndPlain) {
  Kernel k;
  CellLink a(k, oc3()), b(k, oc12()), c(k, taxi140());
  // 424 bits at 149.76 Mb/s (26/27 of 155.52): 2.8311966 us, floored per cell count.
  EXPECT_EQ(a.cells_time(1), 2831196);
  EXPECT_EQ(a.cells_time(2), 5662393);
  EXPECT_EQ(a.cells_time(1000), 2831196581);
  EXPECT_EQ(a.cells_time(1366), 3867414529);
  EXPECT_EQ(b.cells_time(1), 707799);
  EXPECT_EQ(b.cells_time(3), 2123397);
  EXPECT_EQ(b.cells_time(1000), 707799145);
  EXPECT_EQ(c.cells_time(1), 3028571);
  EXPECT_EQ(c.cells_time(1000), 3028571428);
  EXPECT_DOUBLE_EQ(a.cell_rate(), 149.76e6 / 424);
  EXPECT_DOUBLE_EQ(b.cell_rate(), 599.04e6 / 424);
  EXPECT_DOUBLE_EQ(c.cell_rate(), 140e6 / 424);
}

TEST(AtmCellLink, OneCellArrivesAfterItsWireTimePlusLatency) {
  for (const CellLinkConfig& cfg : {oc3(), oc12(), taxi140()}) {
    Kernel k;
    CellLink link(k, cfg);
    Collector sink(k);
    link.set_sink(&sink);
    link.send(packet(1, 40)); // 40 + 8 trailer = one cell
    k.run();
    ASSERT_EQ(sink.packets.size(), 1u);
    EXPECT_EQ(sink.packets[0].tail_ps, link.cells_time(1) + kLatency);
    EXPECT_EQ(link.counters().cells_sent, 1u);
  }
}

TEST(AtmCellLink, NCellsBackToBackHaveNoDrift) {
  for (const CellLinkConfig& cfg : {oc3(), oc12()}) {
    Kernel k;
    CellLink link(k, cfg);
    Collector sink(k);
    link.set_sink(&sink);
    // 1000 single-cell frames queued at once: frame i completes at cells_time(i+1).
    for (uint64_t i = 0; i < 1000; ++i) link.send(packet(i, 10));
    k.run();
    ASSERT_EQ(sink.packets.size(), 1000u);
    for (size_t i = 0; i < 1000; ++i)
      ASSERT_EQ(sink.packets[i].tail_ps, link.cells_time(i + 1) + kLatency) << i;
    // One 65535-byte frame: 1366 cells, exact.
    Kernel k2;
    CellLink big(k2, cfg);
    Collector sink2(k2);
    big.set_sink(&sink2);
    big.send(packet(9, 65535));
    k2.run();
    ASSERT_EQ(sink2.packets.size(), 1u);
    EXPECT_EQ(CellLink::aal5_cells(65535), 1366u);
    EXPECT_EQ(sink2.packets[0].tail_ps, big.cells_time(1366) + kLatency);
  }
}

TEST(AtmCellLink, IdleGapStartsANewBusyPeriod) {
  Kernel k;
  CellLink link(k, oc3());
  Collector sink(k);
  link.set_sink(&sink);
  link.send(packet(1, 0));
  const Time later = 10 * lanaikit::sim::kMicrosecond + 123;
  k.schedule_at(later, [&] { link.send(packet(2, 0)); });
  k.run();
  ASSERT_EQ(sink.packets.size(), 2u);
  EXPECT_EQ(sink.packets[1].tail_ps, later + link.cells_time(1) + kLatency);
}

TEST(AtmCellLink, Aal5RoundTripForEverySizeUpTo200AndLarge) {
  std::vector<size_t> sizes;
  for (size_t n = 0; n <= 200; ++n) sizes.push_back(n);
  for (size_t n : {1000u, 4096u, 9180u, 65534u, 65535u}) sizes.push_back(n);
  Kernel k;
  CellLink link(k, oc12());
  Collector sink(k);
  link.set_sink(&sink);
  uint64_t cells = 0;
  for (size_t n : sizes) {
    link.send(packet(n, n), uint16_t(100 + n % 3));
    cells += CellLink::aal5_cells(n);
  }
  k.run();
  ASSERT_EQ(sink.packets.size(), sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    SCOPED_TRACE(sizes[i]);
    EXPECT_EQ(sink.packets[i].id, sizes[i]);
    EXPECT_EQ(sink.packets[i].status, 0u);
    EXPECT_EQ(sink.packets[i].bytes, pattern(sizes[i], uint32_t(2 * sizes[i])));
  }
  EXPECT_EQ(CellLink::aal5_cells(0), 1u);
  EXPECT_EQ(CellLink::aal5_cells(40), 1u);
  EXPECT_EQ(CellLink::aal5_cells(41), 2u);
  EXPECT_EQ(CellLink::aal5_cells(88), 2u);
  EXPECT_EQ(CellLink::aal5_cells(89), 3u);
  EXPECT_EQ(link.counters().cells_sent, cells);
  EXPECT_EQ(link.counters().cells_received, cells);
  EXPECT_EQ(link.counters().frames_received, sizes.size());
  EXPECT_EQ(link.counters().crc_errors, 0u);
  EXPECT_EQ(link.counters().sdu_bytes_received, link.counters().sdu_bytes_sent);
  // The whole run is one busy period: the last frame ends after every cell's wire time.
  EXPECT_EQ(sink.packets.back().tail_ps, link.cells_time(cells) + kLatency);
}

TEST(AtmCellLink, TheLastCellCarriesTheEndOfSduBit) {
  struct CellSpy : PacketSink {
    std::vector<uint32_t> cells;
    uint32_t accept(const Chunk& c) override {
      cells.push_back(static_cast<const AtmPacket&>(*c.packet).cells);
      return c.whole();
    }
  };
  Kernel k;
  CellLink link(k, oc3());
  CellSpy spy;
  link.set_sink(&spy);
  link.send(packet(1, 100)); // 3 cells: reassembly closes only at the third
  link.send(packet(2, 0));
  k.run();
  EXPECT_EQ(spy.cells, (std::vector<uint32_t>{3, 1}));
}

TEST(AtmCellLink, CorruptedCellIsCaughtByTheCrc) {
  Kernel k;
  CellLinkConfig cfg = oc3();
  cfg.faults.corrupt_packets = {1}; // the second cell of the first frame
  CellLink link(k, cfg);
  Collector sink(k);
  link.set_sink(&sink);
  link.send(packet(1, 100)); // cells 0, 1, 2
  link.send(packet(2, 100)); // cells 3, 4, 5: clean
  k.run();
  ASSERT_EQ(sink.packets.size(), 2u);
  EXPECT_EQ(sink.packets[0].status, uint32_t(kCrcError));
  EXPECT_EQ(sink.packets[0].bytes.size(), 100u); // the length was intact
  EXPECT_NE(sink.packets[0].bytes, pattern(100, 101));
  EXPECT_EQ(sink.packets[1].status, 0u);
  EXPECT_EQ(sink.packets[1].bytes, pattern(100, 102));
  EXPECT_EQ(link.counters().corrupted, 1u);
  EXPECT_EQ(link.counters().crc_errors, 1u);
  EXPECT_EQ(link.counters().length_errors, 0u);
}

TEST(AtmCellLink, CorruptingTheTrailerCellIsCaughtToo) {
  for (uint64_t cell : {0u, 2u}) {
    Kernel k;
    CellLinkConfig cfg = oc3();
    cfg.faults.corrupt_packets = {cell};
    CellLink link(k, cfg);
    Collector sink(k);
    link.set_sink(&sink);
    link.send(packet(1, 100));
    k.run();
    ASSERT_EQ(sink.packets.size(), 1u);
    EXPECT_TRUE(sink.packets[0].status & kCrcError) << cell;
  }
}

TEST(AtmCellLink, DroppedMiddleCellFailsReassembly) {
  Kernel k;
  CellLinkConfig cfg = oc3();
  cfg.faults.drop_packets = {1};
  CellLink link(k, cfg);
  Collector sink(k);
  link.set_sink(&sink);
  link.send(packet(1, 100));
  link.send(packet(2, 20));
  k.run();
  ASSERT_EQ(sink.packets.size(), 2u);
  EXPECT_EQ(sink.packets[0].status, uint32_t(kCrcError | kTruncated));
  EXPECT_EQ(sink.packets[1].status, 0u);
  EXPECT_EQ(link.counters().drops, 1u);
  EXPECT_EQ(link.counters().cells_received, 3u);
  EXPECT_EQ(link.counters().length_errors, 1u);
  EXPECT_EQ(link.counters().crc_errors, 1u);
  // The lost cell still took its wire time: the second frame ends after 4 cells.
  EXPECT_EQ(sink.packets[1].tail_ps, link.cells_time(4) + kLatency);
}

TEST(AtmCellLink, DroppedEndCellMergesTwoFramesThatFailTogether) {
  Kernel k;
  CellLinkConfig cfg = oc3();
  cfg.faults.drop_packets = {2}; // the end cell of frame 1
  CellLink link(k, cfg);
  Collector sink(k);
  link.set_sink(&sink);
  link.send(packet(1, 100)); // cells 0..2
  link.send(packet(2, 20));  // cell 3
  link.send(packet(3, 20));  // cell 4
  k.run();
  ASSERT_EQ(sink.packets.size(), 2u);
  EXPECT_EQ(sink.packets[0].id, 1u); // named after its first cell
  EXPECT_EQ(sink.packets[0].status, uint32_t(kCrcError | kTruncated));
  EXPECT_EQ(sink.packets[1].id, 3u);
  EXPECT_EQ(sink.packets[1].status, 0u);
  EXPECT_EQ(link.counters().frames_sent, 3u);
  EXPECT_EQ(link.counters().frames_received, 2u);
}

TEST(AtmCellLink, DelayedCellKeepsOrder) {
  Kernel k;
  CellLinkConfig cfg = oc3();
  cfg.faults.delay_packets = {1};
  cfg.faults.extra_delay_ps = 1000 * kNanosecond;
  CellLink link(k, cfg);
  Collector sink(k);
  link.set_sink(&sink);
  link.send(packet(1, 0));
  link.send(packet(2, 0));
  link.send(packet(3, 0));
  k.run();
  ASSERT_EQ(sink.packets.size(), 3u);
  const Time second = link.cells_time(1) + 1000 * kNanosecond + link.cells_time(1);
  EXPECT_EQ(sink.packets[1].tail_ps, second + kLatency);
  EXPECT_EQ(sink.packets[2].tail_ps, link.cells_time(1) + 1000 * kNanosecond +
                                         link.cells_time(2) + kLatency);
  EXPECT_EQ(link.counters().delayed, 1u);
}

TEST(AtmCellLink, RawCellsCarryDartsOwnFormat) {
  Kernel k;
  CellLinkConfig cfg = oc12();
  cfg.raw_vcis = {42};
  CellLink link(k, cfg);
  Collector sink(k);
  link.set_sink(&sink);
  // DART: 32 data bytes then 16 control bytes in the 48-byte payload.
  std::array<uint8_t, kCellPayloadBytes> payload{};
  const std::vector<uint8_t> data = pattern(32, 5);
  std::copy(data.begin(), data.end(), payload.begin());
  payload[32] = 0x07; // an operation code
  link.send_cell(42, payload, 77);
  link.send(packet(2, 10), 43); // AAL5 on another VCI, unaffected
  k.run();
  ASSERT_EQ(sink.packets.size(), 2u);
  const Arrival& cell = sink.packets[0];
  EXPECT_EQ(cell.id, 77u);
  EXPECT_EQ(cell.tail_ps, link.cells_time(1) + kLatency);
  ASSERT_EQ(cell.bytes.size(), kCellBytes);
  // Header: GFC/VPI 0, VCI 42, PTI 0, CLP 0, valid HEC.
  EXPECT_EQ(cell.bytes[0], 0);
  EXPECT_EQ(((cell.bytes[1] & 0xF) << 12) | (cell.bytes[2] << 4) | (cell.bytes[3] >> 4), 42);
  EXPECT_EQ(cell.bytes[4], atm_hec(std::span<const uint8_t, 4>(cell.bytes.data(), 4)));
  EXPECT_TRUE(std::equal(payload.begin(), payload.end(), cell.bytes.begin() + kCellHeaderBytes));
  EXPECT_EQ(sink.packets[1].bytes, pattern(10, 12));
  EXPECT_EQ(link.counters().raw_cells_sent, 1u);
  EXPECT_EQ(link.counters().raw_cells_received, 1u);
  EXPECT_THROW(link.send(packet(3, 10), 42), std::invalid_argument);
}

TEST(AtmCellLink, StallingSinkHoldsFramesUntilReady) {
  struct Gate : PacketSink {
    bool open = false;
    std::vector<uint64_t> ids;
    uint32_t accept(const Chunk& c) override {
      if (!open) return 0;
      ids.push_back(c.packet->id);
      return c.whole();
    }
  };
  Kernel k;
  CellLink link(k, oc3());
  Gate gate;
  link.set_sink(&gate);
  link.send(packet(1, 100));
  link.send(packet(2, 100));
  k.run();
  EXPECT_TRUE(gate.ids.empty());
  gate.open = true;
  link.sink_ready();
  k.run();
  EXPECT_EQ(gate.ids, (std::vector<uint64_t>{1, 2}));
}

TEST(AtmCellLink, RejectsBadConfigurationsAndOversizedFrames) {
  Kernel k;
  CellLinkConfig c = oc3();
  c.line_bits_per_s = 0;
  EXPECT_THROW(CellLink(k, c), std::invalid_argument);
  c = oc3();
  c.cell_rate_num = 28;
  EXPECT_THROW(CellLink(k, c), std::invalid_argument);
  c = oc3();
  c.latency_ps = -1;
  EXPECT_THROW(CellLink(k, c), std::invalid_argument);
  CellLink link(k, oc3());
  EXPECT_THROW(link.send(packet(1, 65536)), std::invalid_argument);
}

namespace {
struct RunResult {
  uint64_t hash;
  CellLinkCounters counters;
  std::vector<uint32_t> statuses;
};
RunResult random_run(uint64_t seed) {
  Kernel k;
  CellLinkConfig cfg = oc3();
  cfg.faults.seed = seed;
  cfg.faults.drop_probability = 0.01;
  cfg.faults.corrupt_probability = 0.01;
  cfg.faults.delay_probability = 0.01;
  cfg.faults.extra_delay_ps = 777 * kNanosecond;
  CellLink link(k, cfg);
  Collector sink(k);
  link.set_sink(&sink);
  for (uint64_t i = 0; i < 300; ++i)
    k.schedule_at(Time(i) * 3 * lanaikit::sim::kMicrosecond,
                  [&link, i] { link.send(packet(i, (i * 37) % 500)); });
  k.run();
  RunResult r{k.trace_hash(), link.counters(), {}};
  for (const auto& p : sink.packets) r.statuses.push_back(p.status);
  return r;
}
} // namespace

TEST(AtmCellLink, SeededFaultsAreDeterministic) {
  const RunResult a = random_run(11), b = random_run(11), c = random_run(12);
  EXPECT_EQ(a.hash, b.hash);
  EXPECT_EQ(a.statuses, b.statuses);
  EXPECT_EQ(a.counters.drops, b.counters.drops);
  EXPECT_EQ(a.counters.crc_errors, b.counters.crc_errors);
  EXPECT_GT(a.counters.drops + a.counters.corrupted, 0u);
  EXPECT_NE(a.hash, c.hash);
  // Every damaged frame was flagged: the good ones are exactly those without faults.
  uint64_t bad = 0;
  for (uint32_t s : a.statuses) bad += s != 0;
  EXPECT_EQ(bad, a.counters.crc_errors);
  EXPECT_GE(a.counters.crc_errors, a.counters.length_errors);
}
