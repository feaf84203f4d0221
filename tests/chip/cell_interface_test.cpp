// The chip's ATM side (vm/cell_interface.h): cells into a ring in SRAM with exact DMA
// timing and a per-VCI AAL5 CRC, raw cells and AAL5 frames out with the SAR's pacing, lost
// cells counted, misuse reported naming the register, the firmware's header in step with
// the simulator's map, and a firmware cell echo whose results batching cannot change.
#include "firmware.h"
#include "base/bytes.h"
#include "sim/cluster.h"
#include "sim/node.h"
#include "vm/cell_interface.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>

namespace lanaikit {
namespace {

using sim::Time;
using vm::CellInterface;
constexpr uint32_t kBase = vm::kCellInterfaceBase;

// What arrives at the far end of the chip's transmit link.
struct Received {
  Time at;
  uint16_t vci;
  bool raw;
  uint32_t status;
  std::vector<uint8_t> bytes;
};
struct Sink : net::PacketSink {
  sim::Kernel& kernel;
  std::vector<Received> got;
  explicit Sink(sim::Kernel& k) : kernel(k) {}
  uint32_t accept(const net::Chunk& c) override {
    auto p = std::static_pointer_cast<net::AtmPacket>(c.packet.ptr());
    got.push_back({kernel.now(), p->vci, p->raw_cell, p->status, p->bytes});
    return c.whole();
  }
};

net::CellLinkConfig link_config(uint64_t bits_per_s = 622'080'000) {
  net::CellLinkConfig c;
  c.line_bits_per_s = bits_per_s;
  return c;
}

struct Rig {
  sim::Kernel kernel;
  std::unique_ptr<sim::Node> node;
  net::CellLink to_chip, from_chip;
  CellInterface* atm = nullptr;
  Sink sink{kernel};
  bool stopped = false;

  explicit Rig(uint64_t clock_hz = 100'000'000, net::CellLinkConfig in = link_config(),
               net::CellLinkConfig out = link_config())
      : to_chip(kernel, with_cells(in), "to-chip"), from_chip(kernel, out, "from-chip") {
    sim::NodeParams params;
    params.chip = vm::ChipParams::lanaikit_default();
    params.chip.clock_hz = clock_hz;
    params.pci = host::PciParams::vmmc();
    node = std::make_unique<sim::Node>(kernel, params, 0, "n0");
    atm = static_cast<CellInterface*>(&chip().attach_block(
        kBase, std::make_unique<CellInterface>(from_chip, CellInterface::Config{})));
    to_chip.set_sink(atm);
    from_chip.set_sink(&sink);
    chip().on_stop([this](vm::Chip&) { stopped = true; });
  }
  static net::CellLinkConfig with_cells(net::CellLinkConfig c) {
    c.deliver_cells = true; // the interface takes cells, not frames
    return c;
  }
  vm::Chip& chip() { return node->chip(); }
  void set(uint32_t off, uint32_t v) { chip().host_write_block(kBase + off, v); }
  uint32_t get(uint32_t off) { return chip().host_read_block(kBase + off); }
  uint32_t sram_word(uint32_t addr) {
    uint8_t b[4];
    chip().host_read_sram(addr, b);
    return load_be32(b);
  }
  std::vector<uint8_t> sram_bytes(uint32_t addr, uint32_t n) {
    std::vector<uint8_t> b(n);
    chip().host_read_sram(addr, b);
    return b;
  }
  sim::Time cycles(uint64_t n) const { return node->chip().clock().time_of(n); }
};

std::array<uint8_t, 48> payload_of(uint8_t first) {
  std::array<uint8_t, 48> p{};
  for (size_t i = 0; i < p.size(); ++i) p[i] = uint8_t(first + i);
  return p;
}

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t(seed + 7 * i);
  return v;
}

// ---- receive ------------------------------------------------------------------------------

TEST(CellInterface, ACellLandsInItsSlotSixteenCyclesAfterItsLastBit) {
  Rig r;
  r.set(CellInterface::RX_BASE, 0x4000);
  r.set(CellInterface::RX_SLOTS, 4);
  const auto payload = payload_of(0x10);
  r.to_chip.send_cell(42, payload, 0, net::kPtiEndOfSdu);
  const Time arrives = r.to_chip.cells_time(1) + r.to_chip.config().latency_ps;
  const Time written = arrives + r.cycles(CellInterface::kRxCycles);
  r.kernel.run_until(written - 1);
  EXPECT_EQ(r.get(CellInterface::RX_HEAD), 0u);
  EXPECT_EQ(r.chip().isr() & 0x100, 0u);
  r.kernel.run_until(written);
  EXPECT_EQ(r.get(CellInterface::RX_HEAD), 1u);
  EXPECT_NE(r.chip().isr() & 0x100, 0u); // the receive ISR bit
  EXPECT_EQ(net::cell_header_vci(r.sram_bytes(0x4000, 4).data()), 42u);
  const uint32_t status = r.sram_word(0x4004);
  EXPECT_EQ(status & CellInterface::kStatusCellsMask, 1u);
  EXPECT_TRUE(status & CellInterface::kStatusEnd);
  EXPECT_EQ(r.sram_bytes(0x4008, 48), std::vector<uint8_t>(payload.begin(), payload.end()));
  EXPECT_EQ(r.sram_word(0x4038), 0u); // the slot's last 8 bytes are zero
  EXPECT_EQ(r.sram_word(0x403C), 0u);
}

TEST(CellInterface, Aal5CellsCarryTheirCountAndTheEndCellTheCrcVerdict) {
  Rig r;
  r.set(CellInterface::RX_BASE, 0x4000);
  r.set(CellInterface::RX_SLOTS, 8);
  const std::vector<uint8_t> sdu = pattern(100, 3); // 3 cells
  r.to_chip.send(net::Packet{1, sdu, 0}, 9);
  r.kernel.run_until(sim::kMillisecond);
  ASSERT_EQ(r.get(CellInterface::RX_HEAD), 3u);
  for (uint32_t i = 0; i < 3; ++i) {
    const uint32_t status = r.sram_word(0x4000 + 64 * i + 4);
    EXPECT_EQ(status & CellInterface::kStatusCellsMask, i + 1) << i;
    EXPECT_EQ(bool(status & CellInterface::kStatusEnd), i == 2) << i;
    EXPECT_EQ(bool(status & CellInterface::kStatusCrcOk), i == 2) << i;
  }
  // The slots hold the PDU: the SDU, padding, the trailer's length.
  std::vector<uint8_t> pdu;
  for (uint32_t i = 0; i < 3; ++i) {
    const auto b = r.sram_bytes(0x4000 + 64 * i + 8, 48);
    pdu.insert(pdu.end(), b.begin(), b.end());
  }
  EXPECT_EQ(pdu, net::aal5_pdu(sdu));
}

TEST(CellInterface, ACorruptedCellFailsItsFrameAndTheNextFrameStartsClean) {
  net::CellLinkConfig in = link_config();
  in.faults.corrupt_packets = {1}; // cell numbers count from 0: the first frame's second
  Rig r(100'000'000, in);
  r.set(CellInterface::RX_BASE, 0x4000);
  r.set(CellInterface::RX_SLOTS, 8);
  r.to_chip.send(net::Packet{1, pattern(100, 1), 0}, 9);
  r.to_chip.send(net::Packet{2, pattern(20, 2), 0}, 9);
  r.kernel.run_until(sim::kMillisecond);
  ASSERT_EQ(r.get(CellInterface::RX_HEAD), 4u);
  const uint32_t first_end = r.sram_word(0x4000 + 64 * 2 + 4);
  const uint32_t second = r.sram_word(0x4000 + 64 * 3 + 4);
  EXPECT_TRUE(first_end & CellInterface::kStatusEnd);
  EXPECT_FALSE(first_end & CellInterface::kStatusCrcOk);
  EXPECT_EQ(second & CellInterface::kStatusCellsMask, 1u);
  EXPECT_TRUE(second & CellInterface::kStatusCrcOk);
}

TEST(CellInterface, AFullRingLosesCellsAndCountsThemButTheCrcSeesEveryCell) {
  Rig r;
  r.set(CellInterface::RX_BASE, 0x4000);
  r.set(CellInterface::RX_SLOTS, 2);
  // A 5-cell frame: cells 3..5 find the ring full. The end cell is lost too, so the
  // verdict of the next frame must not inherit this frame's cells.
  r.to_chip.send(net::Packet{1, pattern(200, 1), 0}, 9);
  r.kernel.run_until(sim::kMillisecond);
  EXPECT_EQ(r.get(CellInterface::RX_HEAD), 2u);
  EXPECT_EQ(r.get(CellInterface::RX_DROPS), 3u);
  EXPECT_EQ(r.atm->counters().cells_dropped, 3u);
  r.set(CellInterface::RX_TAIL, 2); // the firmware finished both
  r.to_chip.send(net::Packet{2, pattern(10, 2), 0}, 9);
  r.kernel.run_until(2 * sim::kMillisecond);
  ASSERT_EQ(r.get(CellInterface::RX_HEAD), 3u);
  const uint32_t status = r.sram_word(0x4000 + 64 * (2 % 2) + 4);
  EXPECT_EQ(status & CellInterface::kStatusCellsMask, 1u);
  EXPECT_TRUE(status & CellInterface::kStatusCrcOk);
}

TEST(CellInterface, ReceiveOffOrPoweredOffLosesCells) {
  Rig r;
  r.to_chip.send_cell(1, payload_of(0), 0, 1); // RX_SLOTS is 0 after reset: receive off
  r.kernel.run_until(sim::kMillisecond);
  EXPECT_EQ(r.get(CellInterface::RX_DROPS), 1u);
  r.set(CellInterface::RX_SLOTS, 4);
  r.chip().set_powered(false);
  r.to_chip.send_cell(1, payload_of(0), 0, 1);
  r.kernel.run_until(2 * sim::kMillisecond);
  EXPECT_EQ(r.atm->counters().cells_dropped, 2u);
  EXPECT_EQ(r.atm->counters().cells_received, 0u);
}

// ---- transmit -----------------------------------------------------------------------------

TEST(CellInterface, ARawCellLeavesTwelveCyclesAfterItsLaunch) {
  net::CellLinkConfig out = link_config();
  out.raw_vcis = {77};
  Rig r(100'000'000, link_config(), out);
  const auto payload = payload_of(0x40);
  r.chip().host_write_sram(0x8000, payload);
  r.set(CellInterface::TX_ADDR, 0x8000);
  r.set(CellInterface::TX_LEN, 48);
  r.set(CellInterface::TX_CMD, 77 | (3u << 16));
  EXPECT_EQ(r.get(CellInterface::TX_QUEUED), 1u);
  r.kernel.run_until(sim::kMillisecond);
  ASSERT_EQ(r.sink.got.size(), 1u);
  const Received& g = r.sink.got[0];
  EXPECT_EQ(g.vci, 77u);
  EXPECT_EQ(net::cell_header_pti(g.bytes.data()), 3u);
  EXPECT_EQ(std::vector<uint8_t>(g.bytes.begin() + 5, g.bytes.end()),
            std::vector<uint8_t>(payload.begin(), payload.end()));
  EXPECT_EQ(g.at, r.cycles(CellInterface::kTxCycles) + r.from_chip.cells_time(1) +
                      r.from_chip.config().latency_ps);
  EXPECT_EQ(r.get(CellInterface::TX_QUEUED), 0u);
  EXPECT_EQ(r.get(CellInterface::TX_DONE), 1u);
  EXPECT_NE(r.chip().isr() & 0x200, 0u); // the transmit ISR bit
}

// At 100 MHz a cell's 12 read cycles (120 ns) are shorter than its 708 ns on an OC-12 wire:
// the wire paces the frame. At 10 MHz (1.2 us) the SAR does.
TEST(CellInterface, AnAal5FrameIsPacedByTheWireOrBySlowSramReads) {
  for (const uint64_t hz : {uint64_t(100'000'000), uint64_t(10'000'000)}) {
    Rig r(hz);
    const std::vector<uint8_t> sdu = pattern(452, 5); // 10 cells
    r.chip().host_write_sram(0x8000, sdu);
    r.set(CellInterface::TX_ADDR, 0x8000);
    r.set(CellInterface::TX_LEN, uint32_t(sdu.size()));
    r.set(CellInterface::TX_CMD, 12 | CellInterface::kTxAal5);
    r.kernel.run_until(sim::kMillisecond);
    ASSERT_EQ(r.sink.got.size(), 1u) << hz;
    EXPECT_EQ(r.sink.got[0].bytes, sdu) << hz;
    EXPECT_EQ(r.sink.got[0].status, 0u) << hz;
    const Time cell = r.from_chip.cells_time(1);
    const Time read = r.cycles(CellInterface::kTxCycles);
    const Time lat = r.from_chip.config().latency_ps;
    Time expected = 0;
    if (read <= cell) {
      expected = read + r.from_chip.cells_time(10) + lat; // wire-bound after the first read
    } else {
      // SAR-bound: cell k is handed over after k reads (each starts when the last ended).
      Time t = 0;
      for (int k = 0; k < 10; ++k) t += r.cycles(CellInterface::kTxCycles);
      expected = t + cell + lat;
    }
    EXPECT_EQ(r.sink.got[0].at, expected) << hz;
    EXPECT_EQ(r.atm->counters().cells_sent, 10u) << hz;
  }
}

TEST(CellInterface, MisuseIsAnErrorThatNamesTheRegister) {
  Rig r;
  auto error_of = [&](uint32_t off, uint32_t v) -> std::string {
    try {
      r.set(off, v);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(no error)";
  };
  using ::testing::HasSubstr;
  r.set(CellInterface::TX_ADDR, 0x8000);
  r.set(CellInterface::TX_LEN, 47);
  EXPECT_THAT(error_of(CellInterface::TX_CMD, 5),
              HasSubstr("cell_interface offset 0x1c: TX_LEN is 47; a raw cell is 48 bytes"));
  r.set(CellInterface::TX_LEN, 70000);
  EXPECT_THAT(error_of(CellInterface::TX_CMD, 5 | CellInterface::kTxAal5),
              HasSubstr("an AAL5 frame holds at most 65535 bytes"));
  r.set(CellInterface::TX_LEN, 48);
  r.set(CellInterface::TX_ADDR, r.chip().params().sram_bytes - 40);
  EXPECT_THAT(error_of(CellInterface::TX_CMD, 5), HasSubstr("is outside SRAM"));
  r.set(CellInterface::TX_ADDR, 0x8000);
  EXPECT_THAT(error_of(CellInterface::TX_CMD, 5 | (1u << 20)), HasSubstr("sets bits other than"));
  EXPECT_THAT(error_of(CellInterface::RX_BASE, 0x4010), HasSubstr("is not a multiple of 64"));
  EXPECT_THAT(error_of(CellInterface::RX_SLOTS, 1u << 20), HasSubstr("does not fit in SRAM"));
  EXPECT_THAT(error_of(CellInterface::RX_TAIL, 1), HasSubstr("RX_TAIL 1 is not between"));
  EXPECT_THAT(error_of(CellInterface::RX_HEAD, 0), HasSubstr("read-only"));
  for (uint32_t i = 0; i < CellInterface::kTxQueue; ++i) r.set(CellInterface::TX_CMD, 5);
  EXPECT_THAT(error_of(CellInterface::TX_CMD, 5), HasSubstr("transmit queue full (16 launches"));
  EXPECT_THROW(r.chip().host_read_block(kBase + CellInterface::TX_CMD), std::invalid_argument);
  r.kernel.run_until(sim::kMillisecond); // the 16 queued launches all go
  EXPECT_EQ(r.get(CellInterface::TX_DONE), 16u);
  EXPECT_THROW(CellInterface(r.from_chip, CellInterface::Config{0x1, 0x200}), std::invalid_argument);
  EXPECT_THROW(CellInterface(r.from_chip, CellInterface::Config{0x100, 0x100}), std::invalid_argument);
}

// firmware/lib/atm.h and atm.fw say what vm/cell_interface.h says.
TEST(CellInterface, TheFirmwareHeadersMatchTheSimulatorsMap) {
  std::ifstream in(test::source("firmware/lib/atm.h"));
  std::stringstream text;
  text << in.rdbuf();
  std::map<std::string, uint64_t> defs;
  const std::string s = text.str();
  const std::regex def(R"(#define (ATM_\w+)\s+(?:ATM_REG\()?(0x[0-9A-Fa-f]+|\d+)u?\)?)");
  for (auto it = std::sregex_iterator(s.begin(), s.end(), def); it != std::sregex_iterator(); ++it)
    defs[(*it)[1]] = std::stoull((*it)[2], nullptr, 0);
  const std::map<std::string, uint64_t> expected = {
      {"ATM_BASE", vm::kCellInterfaceBase},
      {"ATM_RX_BASE", CellInterface::RX_BASE},
      {"ATM_RX_SLOTS", CellInterface::RX_SLOTS},
      {"ATM_RX_HEAD", CellInterface::RX_HEAD},
      {"ATM_RX_TAIL", CellInterface::RX_TAIL},
      {"ATM_RX_DROPS", CellInterface::RX_DROPS},
      {"ATM_TX_ADDR", CellInterface::TX_ADDR},
      {"ATM_TX_LEN", CellInterface::TX_LEN},
      {"ATM_TX_CMD", CellInterface::TX_CMD},
      {"ATM_TX_QUEUED", CellInterface::TX_QUEUED},
      {"ATM_TX_DONE", CellInterface::TX_DONE},
      {"ATM_TX_AAL5", CellInterface::kTxAal5},
      {"ATM_TX_PTI_SHIFT", 16},
      {"ATM_TX_QUEUE", CellInterface::kTxQueue},
      {"ATM_SLOT_BYTES", CellInterface::kSlotBytes},
      {"ATM_SLOT_HEADER", 0},
      {"ATM_SLOT_STATUS", 4},
      {"ATM_SLOT_PAYLOAD", 8},
      {"ATM_STATUS_CELLS", CellInterface::kStatusCellsMask},
      {"ATM_STATUS_END", CellInterface::kStatusEnd},
      {"ATM_STATUS_CRC_OK", CellInterface::kStatusCrcOk},
      {"ATM_RX_INT_BIT", CellInterface::Config{}.rx_isr_bit},
      {"ATM_TX_INT_BIT", CellInterface::Config{}.tx_isr_bit},
  };
  EXPECT_EQ(defs, expected);

  // atm.fw: registers by absolute address, constants by value (ATM_HEADER_VCI is C's macro).
  std::ifstream fw_in(test::source("firmware/lib/atm.fw"));
  std::stringstream fw_text;
  fw_text << fw_in.rdbuf();
  const std::string f = fw_text.str();
  std::map<std::string, uint64_t> fw_defs;
  const std::regex reg(R"(reg (ATM_\w+): u32 @ (0x[0-9A-Fa-f]+);)");
  const std::regex constant(R"(const (ATM_\w+): u32 = (0x[0-9A-Fa-f]+|\d+);)");
  for (auto it = std::sregex_iterator(f.begin(), f.end(), reg); it != std::sregex_iterator(); ++it)
    fw_defs[(*it)[1]] = std::stoull((*it)[2], nullptr, 0) - vm::kCellInterfaceBase;
  for (auto it = std::sregex_iterator(f.begin(), f.end(), constant); it != std::sregex_iterator(); ++it)
    fw_defs[(*it)[1]] = std::stoull((*it)[2], nullptr, 0);
  EXPECT_EQ(fw_defs, expected);
}

// ---- firmware -----------------------------------------------------------------------------

struct EchoOutcome {
  uint64_t trace_hash = 0, instructions = 0, batches = 0;
  uint32_t ends = 0;
  std::vector<Received> got;
  Time halted_at = 0;
};

// Five cells, a few microseconds apart, echoed by tests/chip/fw/cellecho.c.
EchoOutcome echo_run(uint64_t max_batch) {
  static const assembler::FirmwareImage image =
      test::build_firmware({test::source("tests/chip/fw/cellecho.c")});
  net::CellLinkConfig out = link_config();
  for (uint16_t v = 1; v < 20; ++v) out.raw_vcis.insert(v);
  Rig r(100'000'000, link_config(), out);
  r.node->load(image);
  const uint8_t arg[4] = {0, 0, 0, 5};
  r.chip().host_write_sram(0x10004, arg);
  r.chip().set_max_batch(max_batch);
  r.node->start();
  for (int i = 0; i < 5; ++i)
    r.kernel.schedule_at(Time(3 + 4 * i) * sim::kMicrosecond, [&r, i] {
      r.to_chip.send_cell(uint16_t(10 + i), payload_of(uint8_t(i)), uint64_t(i), uint8_t(i % 2));
    });
  while (!r.stopped && r.kernel.now() < sim::kMillisecond) r.kernel.run_until(sim::kMillisecond);
  EXPECT_TRUE(r.chip().cpu().halted()) << r.chip().report();
  EchoOutcome o;
  o.trace_hash = r.kernel.trace_hash();
  o.instructions = r.chip().cpu().instructions();
  o.batches = r.kernel.agent_batches();
  o.ends = r.sram_word(0x1000C);
  o.got = r.sink.got;
  o.halted_at = r.chip().local_time();
  return o;
}

TEST(CellInterface, FirmwareEchoesCellsAndBatchingChangesNothing) {
  sim::Kernel k;
  const net::CellLink probe(k, link_config());
  const Time cell = probe.cells_time(1), latency = probe.config().latency_ps;
  const EchoOutcome ref = echo_run(1);
  ASSERT_EQ(ref.got.size(), 5u);
  EXPECT_EQ(ref.ends, 2u); // cells 1 and 3 carried the end-of-SDU PTI
  for (int i = 0; i < 5; ++i) {
    const Received& g = ref.got[i];
    EXPECT_EQ(g.vci, 11 + i);
    EXPECT_EQ(net::cell_header_pti(g.bytes.data()), uint32_t(i % 2));
    auto want = payload_of(uint8_t(i));
    store_be32(want.data(), load_be32(want.data()) + 1);
    EXPECT_EQ(std::vector<uint8_t>(g.bytes.begin() + 5, g.bytes.end()),
              std::vector<uint8_t>(want.begin(), want.end()))
        << i;
    // The reply cannot leave before the cell was in its slot, read and copied.
    const Time sent = Time(3 + 4 * i) * sim::kMicrosecond;
    EXPECT_GT(g.at, sent + 2 * (cell + latency)) << i;
  }
  const EchoOutcome fast = echo_run(0);
  EXPECT_EQ(fast.trace_hash, ref.trace_hash);
  EXPECT_EQ(fast.instructions, ref.instructions);
  EXPECT_EQ(fast.halted_at, ref.halted_at);
  EXPECT_EQ(fast.ends, ref.ends);
  ASSERT_EQ(fast.got.size(), ref.got.size());
  for (size_t i = 0; i < ref.got.size(); ++i) {
    EXPECT_EQ(fast.got[i].at, ref.got[i].at) << i;
    EXPECT_EQ(fast.got[i].bytes, ref.got[i].bytes) << i;
  }
  EXPECT_LT(fast.batches, ref.batches); // the schedules did differ
}

} // namespace
} // namespace lanaikit

namespace lanaikit {
namespace {

// A cluster with an ATM network: every chip has its cell interface at the firmware's
// ATM_BASE, and a cell crosses the switch on a circuit into the other node's ring.
TEST(CellInterface, ClusterNodesTalkThroughTheirInterfacesOnCircuits) {
  sim::ClusterParams p;
  p.nodes = 3;
  p.node.chip = vm::ChipParams::lanaikit_default();
  p.node.pci = host::PciParams::vmmc();
  net::AtmNetworkConfig atm;
  atm.cell_switch = net::CellSwitchConfig{};
  atm.link.latency_ps = 20 * sim::kNanosecond; // shorter than the Myrinet links' 50 ns
  p.atm = atm;
  sim::Cluster c(p);
  EXPECT_EQ(c.kernel().lookahead(), 20 * sim::kNanosecond);
  ASSERT_NE(c.cell_interface(2), nullptr);
  vm::Chip& a = c.node(0).chip();
  vm::Chip& b = c.node(2).chip();
  c.atm()->connect(0, 50, 2, 60);
  b.host_write_block(kBase + CellInterface::RX_BASE, 0x4000);
  b.host_write_block(kBase + CellInterface::RX_SLOTS, 4);
  a.host_write_sram(0x8000, payload_of(9));
  a.host_write_block(kBase + CellInterface::TX_ADDR, 0x8000);
  a.host_write_block(kBase + CellInterface::TX_LEN, 48);
  a.host_write_block(kBase + CellInterface::TX_CMD, 50 | (1u << 16));
  c.kernel().run_until(sim::kMillisecond);
  EXPECT_EQ(b.host_read_block(kBase + CellInterface::RX_HEAD), 1u);
  uint8_t header[4];
  b.host_read_sram(0x4000, header);
  EXPECT_EQ(net::cell_header_vci(header), 60u);
  EXPECT_EQ(c.cell_interface(1)->counters().cells_received + c.cell_interface(1)->counters().cells_dropped, 0u);

  sim::ClusterParams plain = p;
  plain.atm.reset();
  sim::Cluster without(plain);
  EXPECT_EQ(without.cell_interface(0), nullptr);
  EXPECT_EQ(without.atm(), nullptr);
}

} // namespace
} // namespace lanaikit
