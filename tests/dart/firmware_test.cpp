// DART's Operation Logic (firmware/dart/dart.fw) on the LCP bench: two nodes on an ATM
// network, the driver's tables written straight into SRAM, control cells injected on
// node 0's link as a sender's card would send them. Masked deposits with the three
// addressing modes, translation through the card's TLB (pages scattered in physical
// memory, a block across a page boundary), register operations (store indirect with
// post-increment), the conditional and exceptions reaching the host, remote reads
// answered without the receiver's host, a TLB miss that parks the cell until the driver
// fills the entry (nothing lost, order kept), and every malformed or hostile cell refused,
// counted, with nothing written.
#include "dart_bench.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>

namespace lanaikit {
namespace {

using namespace test;

TEST(DartFirmware, WritesDepositTheMaskedWordsThroughTheTlbInEachAddressingMode) {
  DartBench b;
  b.set_reg(1, 100, 0x200); // addreg_i of the window (register 100 + 0)
  b.send(with_data(Cell::make(WRITE, 0xFF, DIRECT, 0x40), 0x1000));
  b.send(with_data(Cell::make(WRITE, 0x0F, INDIRECT, 0), 0x2000).regs(0));
  b.send(with_data(Cell::make(WRITE, 0xA5, INDEXED, 0x1000), 0x3000).regs(0)); // 0x1200: page 1
  b.run_until_cells(1, 3);
  for (uint32_t w = 0; w < 8; ++w) EXPECT_EQ(b.word(1, 0x40 + 4 * w), 0x1000 + w) << w;
  for (uint32_t w = 0; w < 8; ++w)
    EXPECT_EQ(b.word(1, 0x200 + 4 * w), w < 4 ? 0x2000 + w : 0xEEEEEEEEu) << w;
  for (uint32_t w = 0; w < 8; ++w)
    EXPECT_EQ(b.word(1, 0x1200 + 4 * w), (0xA5 >> w) & 1 ? 0x3000 + w : 0xEEEEEEEEu) << w;
  EXPECT_EQ(b.counter(1, "writes"), 3u);
  EXPECT_EQ(b.h.node(1).interrupts_delivered(), 0u); // deposits need no host
}

TEST(DartFirmware, ABlockAcrossAPageBoundaryLandsInBothFrames) {
  DartBench b;
  b.send(with_data(Cell::make(WRITE, 0xFF, DIRECT, 0x1000 - 12), 0x500));
  // Words 0 and 7 only: a run in each page, the second starting in the second page.
  b.send(with_data(Cell::make(WRITE, 0x81, DIRECT, 0x2000 - 16), 0x600));
  b.run_until_cells(1, 2);
  for (uint32_t w = 0; w < 8; ++w) EXPECT_EQ(b.word(1, 0x1000 - 12 + 4 * w), 0x500 + w) << w;
  EXPECT_EQ(b.word(1, 0x2000 - 16), 0x600u);
  EXPECT_EQ(b.word(1, 0x2000 + 12), 0x607u);
  for (uint32_t off = 0x2000 - 12; off < 0x2000 + 12; off += 4) EXPECT_EQ(b.word(1, off), 0xEEEEEEEEu);
  for (uint32_t off = 0; off < kBound; off += 4)
    if ((off < 0x1000 - 12 || off >= 0x1000 + 20) && (off < 0x2000 - 16 || off >= 0x2000 + 16)) {
      ASSERT_EQ(b.word(1, off), 0xEEEEEEEEu) << off;
    }
}

TEST(DartFirmware, StoreIndirectWithPostIncrementFillsABuffer) {
  DartBench b;
  b.set_reg(1, 102, 0x800); // addreg_k = register 2 of the window
  for (uint32_t m = 0; m < 4; ++m)
    b.send(with_data(Cell::make(WRITE, 0xFF, INDIRECT, 32), 0x100 * m)
               .regs(2)
               .reg_ops(RegOp::Add, Sel::I, Src::Operand));
  b.run_until_cells(1, 4);
  for (uint32_t m = 0; m < 4; ++m)
    for (uint32_t w = 0; w < 8; ++w) EXPECT_EQ(b.word(1, 0x800 + 32 * m + 4 * w), 0x100 * m + w);
  EXPECT_EQ(b.reg(1, 102), 0x800u + 4 * 32);
  b.expect_untouched_outside(1, 0x800, 0x880);
}

TEST(DartFirmware, RegisterOperationsAndTheConditionalReachTheHostOnlyWhenItFires) {
  DartBench b;
  uint32_t sigs = 0;
  b.h.on_interrupt(1, vm::regs::LAN0_SIG_BIT, [&] {
    if (b.h.take_isr(1, vm::regs::LAN0_SIG_BIT)) ++sigs;
  });
  // A counter in register 101 (j): += operand; fire when it reaches 3 (GEU against the
  // value, data word 0). Register 100 (k) is loaded from j by op B.
  for (int m = 0; m < 4; ++m) {
    Cell c = Cell::make(NOP, 0, DIRECT, 1).regs(0, 1, 0);
    c.data[0] = 3;
    c.reg_ops(RegOp::Add, Sel::J, Src::Operand, RegOp::Load, Sel::K, Src::J);
    c.cond(Cmp::Geu, Sel::J, Src::Value);
    b.send(c);
  }
  b.run_until_cells(1, 4);
  b.h.run_for(20 * sim::kMicrosecond);
  EXPECT_EQ(b.reg(1, 101), 4u);
  EXPECT_EQ(b.reg(1, 100), 4u);
  EXPECT_EQ(b.counter(1, "nops"), 4u);
  EXPECT_EQ(b.counter(1, "conds"), 2u); // at 3 and at 4
  EXPECT_EQ(b.get(1, "dart.ev_head"), 2u);
  EXPECT_EQ(b.get(1, "dart_events[0].kind"), b.h.constant("DartEventKind.COND"));
  EXPECT_EQ(b.get(1, "dart_events[0].vci"), 5u);
  EXPECT_EQ(b.get(1, "dart_events[0].a"), 3u);
  EXPECT_EQ(b.get(1, "dart_events[1].a"), 4u);
  EXPECT_GE(sigs, 1u);
  b.expect_untouched_outside(1, 0, 0);
}

TEST(DartFirmware, ARemoteReadIsAnsweredWithoutTheReadersOrTheOwnersHost) {
  for (const bool with_switch : {false, true}) {
    DartBench b(with_switch);
    std::vector<uint8_t> v(32);
    for (uint32_t i = 0; i < 32; ++i) v[i] = uint8_t(0x40 + i);
    b.h.node(1).memory().write(pa_of(0x2100), v);
    Cell r = Cell::make(READ, 0x3C, DIRECT, 0x2100); // words 2..5
    r.data[0] = 0x300;                                // where node 0's endpoint gets them
    r.data[1] = 0x7A6;                                // the tag: comes back in word 7
    b.send(r);
    b.h.run([&] { return b.counter(0, "writes") >= 1; }, 20 * sim::kMillisecond);
    for (uint32_t w = 0; w < 7; ++w)
      EXPECT_EQ(b.word(0, 0x300 + 4 * w), w >= 2 && w <= 5 ? load_be32(v.data() + 4 * w) : 0xEEEEEEEEu)
          << w << (with_switch ? " switch" : "");
    EXPECT_EQ(b.word(0, 0x300 + 28), 0x7A6u);
    EXPECT_EQ(b.counter(1, "reads"), 1u);
    EXPECT_EQ(b.h.node(0).interrupts_delivered() + b.h.node(1).interrupts_delivered(), 0u);
  }
}

TEST(DartFirmware, ATlbMissParksTheCellUntilTheDriverFillsTheEntryAndLosesNothing) {
  DartBench b;
  b.unmap(1, 2);
  uint32_t misses = 0;
  b.serve_misses(1, [&](const std::string& e) {
    ++misses;
    EXPECT_EQ(b.get(1, e + ".a"), kAsid);
    EXPECT_EQ(b.get(1, e + ".b"), kVa + 2 * 4096);
    b.map(1, 2);
  });
  b.send(with_data(Cell::make(WRITE, 0xFF, DIRECT, 0x2040), 0x700)); // page 2: a miss
  b.send(with_data(Cell::make(WRITE, 0xFF, DIRECT, 0x0040), 0x800)); // behind it, page 0
  b.run_until_cells(1, 2);
  EXPECT_EQ(misses, 1u);
  EXPECT_EQ(b.counter(1, "tlb_misses"), 1u);
  for (uint32_t w = 0; w < 8; ++w) {
    EXPECT_EQ(b.word(1, 0x2040 + 4 * w), 0x700 + w);
    EXPECT_EQ(b.word(1, 0x0040 + 4 * w), 0x800 + w);
  }
}

TEST(DartFirmware, HostileCellsAreRefusedCountedAndWriteNothing) {
  DartBench b;
  uint32_t sigs = 0;
  b.h.on_interrupt(1, vm::regs::LAN0_SIG_BIT, [&] {
    if (b.h.take_isr(1, vm::regs::LAN0_SIG_BIT)) ++sigs;
  });
  b.set_reg(1, 100, kBound - 16); // indirect: two words short of room for a block
  const std::vector<Cell> hostile = {
      with_data(Cell::make(WRITE, 0xFF, DIRECT, kBound - 28), 1),  // past the bound
      with_data(Cell::make(WRITE, 0xFF, DIRECT, 0xFFFFFFF0), 2),   // offset wraps
      with_data(Cell::make(WRITE, 0x01, DIRECT, 0x42), 3),         // unaligned
      with_data(Cell::make(WRITE, 0xFF, INDIRECT, 0), 4).regs(0),  // register points past
      with_data(Cell::make(WRITE, 0xFF, INDIRECT, 0), 5).regs(8),  // index outside window
      Cell::make(NOP, 0, DIRECT, 1).regs(0, 9).reg_ops(RegOp::Add, Sel::I, Src::J), // source outside
      with_data(Cell::make(WRITE, 0x00, DIRECT, 0), 6),            // mask selects nothing
      Cell::make(NOP, 0, DIRECT, 1).reg_ops(RegOp(15), Sel::I, Src::Operand), // no such op
      Cell::make(NOP, 0, DIRECT, 1).reg_ops(RegOp::Add, Sel(3), Src::Operand), // no such register
      Cell::make(Op(0x77), 0xFF, DIRECT, 0),                      // unknown opcode
      with_data(Cell::make(WRITE, 0xFF, DIRECT, 0), 7),            // on a closed VCI (below)
  };
  for (size_t i = 0; i + 1 < hostile.size(); ++i) b.send(hostile[i]);
  b.send(hostile.back(), 9);
  b.send(with_data(Cell::make(WRITE, 0xFF, DIRECT, 0x80), 0x900)); // legitimate, after all
  b.run_until_cells(1, hostile.size() + 1);
  b.h.run_for(20 * sim::kMicrosecond);
  EXPECT_EQ(b.counter(1, "bad_bound"), 4u);
  EXPECT_EQ(b.counter(1, "bad_reg"), 2u);
  EXPECT_EQ(b.counter(1, "bad_mask"), 1u);
  EXPECT_EQ(b.counter(1, "bad_op"), 3u);
  EXPECT_EQ(b.counter(1, "bad_vci"), 1u);
  EXPECT_EQ(b.counter(1, "writes"), 1u);
  EXPECT_EQ(b.reg(1, 100), kBound - 16);
  // The unknown opcode is a software exception to the host.
  EXPECT_EQ(b.get(1, "dart.ev_head"), 1u);
  EXPECT_EQ(b.get(1, "dart_events[0].kind"), b.h.constant("DartEventKind.UNKNOWN_OP"));
  EXPECT_GE(sigs, 1u);
  for (uint32_t w = 0; w < 8; ++w) EXPECT_EQ(b.word(1, 0x80 + 4 * w), 0x900 + w);
  b.expect_untouched_outside(1, 0x80, 0xA0);
}

// ---- blocks: a WRITE_MULTIPLE control cell, then one AAL5 frame of the bytes -------------


TEST(DartBlocks, ABlockIsDepositedCellByCellAcrossPagesThroughTheTlb) {
  DartBench b;
  const auto bytes = block_bytes(1000, 3); // 0xF00 .. 0x12E8: across the page at 0x1000
  b.send(block_control(0xF00, 1000));
  b.h.cluster().atm()->node_tx(0).send(net::Packet{77, bytes, 0}, 5);
  b.h.run([&] { return b.counter(1, "blocks") == 1; }, 20 * sim::kMillisecond);
  EXPECT_EQ(endpoint_bytes(b, 1, 0xF00, 1000), bytes);
  b.expect_untouched_outside(1, 0xF00, 0xF00 + 1000);
  EXPECT_EQ(b.counter(1, "cells"), 1u + net::CellLink::aal5_cells(1000));
  EXPECT_EQ(b.counter(1, "bad_block"), 0u);
}

TEST(DartBlocks, ACorruptedOrCutShortBlockIsReportedAndWritesNothingOutsideItsRange) {
  DartBench b;
  uint32_t sigs = 0;
  b.h.on_interrupt(1, vm::regs::LAN0_SIG_BIT, [&] {
    if (b.h.take_isr(1, vm::regs::LAN0_SIG_BIT)) ++sigs;
  });
  // 1: a cell of the frame corrupted on the way (bit 0 of its last byte, as the link's
  // fault does): the CRC-32 fails at the end cell.
  auto pdu = net::aal5_pdu(block_bytes(300, 1));
  pdu[48 * 2 + 47] ^= 1;
  b.send(block_control(0x100, 300));
  auto& wire = b.h.cluster().atm()->node_tx(0);
  const uint32_t cells = uint32_t(pdu.size() / 48);
  for (uint32_t i = 0; i < cells; ++i) {
    std::array<uint8_t, 48> c;
    std::copy_n(pdu.begin() + 48 * i, 48, c.begin());
    wire.send_cell(5, c, 100 + i, i + 1 == cells ? net::kPtiEndOfSdu : 0);
  }
  // 2: a block cut short: 200 bytes announced, a frame of 100 sent (3 cells, not 5), then
  // an ordinary WRITE, which must be taken as the control cell it is.
  b.send(block_control(0x800, 200));
  wire.send(net::Packet{200, block_bytes(100, 2), 0}, 5);
  b.send(with_data(Cell::make(WRITE, 0xFF, DIRECT, 0x2000), 0x4000));
  // 3: out of the endpoint, and too big: refused at the control cell.
  b.send(block_control(kBound - 100, 200));
  b.send(block_control(0, 8192));
  b.h.run([&] { return b.counter(1, "writes") == 1 && b.counter(1, "bad_bound") == 2; },
          20 * sim::kMillisecond);
  b.h.run_for(20 * sim::kMicrosecond);
  EXPECT_EQ(b.counter(1, "bad_block"), 2u);
  EXPECT_EQ(b.counter(1, "blocks"), 0u);
  EXPECT_EQ(b.get(1, "dart_events[0].kind"), b.h.constant("DartEventKind.BAD_BLOCK"));
  // The end cell is checked before its bytes are deposited: 6 of 7 cells went in, then
  // the CRC failed; 2 of the announced 5, then the frame ended at its third.
  EXPECT_EQ(b.get(1, "dart_events[0].a"), 6u * 48);
  EXPECT_EQ(b.get(1, "dart_events[1].a"), 2u * 48);
  EXPECT_EQ(b.get(1, "dart_events[1].b"), 200u);
  EXPECT_GE(sigs, 1u);
  for (uint32_t w = 0; w < 8; ++w) EXPECT_EQ(b.word(1, 0x2000 + 4 * w), 0x4000 + w);
  // Nothing outside what the two blocks deposited and the write.
  for (uint32_t off = 0; off < kBound; off += 4) {
    const bool inside = (off >= 0x100 && off < 0x100 + 6 * 48) || (off >= 0x800 && off < 0x800 + 2 * 48) ||
                        (off >= 0x2000 && off < 0x2020);
    if (!inside) {
      ASSERT_EQ(b.word(1, off), 0xEEEEEEEEu) << off;
    }
  }
}

// Two 4000-byte blocks (0x0 and 0x1008) arrive while the head cell, a WRITE to page 2,
// waits for a TLB miss nobody serves yet: 171 cells for a ring of 128, so the interface
// loses cells of block two. answer() plays the driver.
struct ParkedOverflow {
  DartBench b;
  std::vector<uint8_t> one = block_bytes(4000, 1), two = block_bytes(4000, 2);
  uint32_t slots = 0, cells = 0;
  net::CellLink& wire;
  ParkedOverflow() : wire(b.h.cluster().atm()->node_tx(0)) {
    b.unmap(1, 2);
    b.send(with_data(Cell::make(WRITE, 0xFF, DIRECT, 0x2040), 0x700));
    b.send(block_control(0x0, 4000));
    wire.send(net::Packet{1, one, 0}, 5);
    b.send(block_control(0x1008, 4000));
    wire.send(net::Packet{2, two, 0}, 5);
    slots = b.h.constant("RX_SLOTS");
    cells = 1 + 2 * (1 + net::CellLink::aal5_cells(4000));
  }
  void answer() {
    b.map(1, 2);
    b.set(1, "dart.resume", b.get(1, "dart.miss_seq"));
  }
  // Node 1's endpoint holds the parked write, block one, block two's first `kept` bytes,
  // the write at 0x2080 made afterwards, and nothing else.
  void expect_only(uint32_t kept) {
    EXPECT_EQ(endpoint_bytes(b, 1, 0x0, 4000), one);
    EXPECT_EQ(endpoint_bytes(b, 1, 0x1008, kept), std::vector<uint8_t>(two.begin(), two.begin() + kept));
    for (uint32_t w = 0; w < 8; ++w) {
      EXPECT_EQ(b.word(1, 0x2040 + 4 * w), 0x700 + w);
      EXPECT_EQ(b.word(1, 0x2080 + 4 * w), 0x800 + w);
    }
    for (uint32_t off = 0x1008 + kept; off < kBound; off += 4)
      if (off < 0x2040 || off >= 0x20A0) {
        ASSERT_EQ(b.word(1, off), 0xEEEEEEEEu) << off;
      }
  }
  // A WRITE to 0x2080 after everything: handled normally.
  void write_after() {
    b.send(with_data(Cell::make(WRITE, 0xFF, DIRECT, 0x2080), 0x800));
    const uint64_t writes = b.counter(1, "writes");
    b.h.run([&] { return b.counter(1, "writes") == writes + 1; }, 20 * sim::kMillisecond);
  }
};

// The miss is answered after everything arrived: block two lost its tail, end cell
// included, so the card learns of it only from the next cell on the VCI, a control cell
// (a one-cell PDU), which it then handles as such.
TEST(DartBlocks, ABlockWhoseEndTheRingLostFailsAtTheNextControlCell) {
  ParkedOverflow o;
  DartBench& b = o.b;
  ASSERT_GT(o.cells, o.slots);
  b.h.run_for(sim::Time(o.cells) * o.wire.cells_time(1) + 50 * sim::kMicrosecond);
  EXPECT_EQ(b.counter(1, "cells"), 0u);
  o.answer();
  b.h.run([&] { return b.counter(1, "cells") == o.slots; }, 20 * sim::kMillisecond);
  EXPECT_EQ(b.h.cluster().cell_interface(1)->counters().cells_dropped, o.cells - o.slots);
  EXPECT_EQ(b.counter(1, "blocks"), 1u);
  EXPECT_EQ(b.counter(1, "bad_block"), 0u);
  o.write_after();
  EXPECT_EQ(b.counter(1, "bad_block"), 1u);
  // Block two's bytes stop at its first lost cell.
  o.expect_only((o.slots - 1 - (1 + net::CellLink::aal5_cells(4000)) - 1) * 48);
}

// The miss is answered while block two is still arriving: the ring loses cells in the
// middle of the frame and then has room again, so the end cell arrives and the CRC passes
// (the interface computes it over every cell). The gap in the cell count must fail the
// block, the rest of its frame be dropped (never read as control cells), and the next
// cell on the VCI be handled normally.
TEST(DartBlocks, AGapInTheMiddleFailsTheBlockThoughItsCrcPassesAndTheRestIsDropped) {
  ParkedOverflow o;
  DartBench& b = o.b;
  b.h.run_for(sim::Time(o.slots + 12) * o.wire.cells_time(1)); // the ring full, 12 cells lost
  o.answer();
  b.h.run_for(2 * sim::kMillisecond);
  const uint64_t lost = b.h.cluster().cell_interface(1)->counters().cells_dropped;
  EXPECT_GT(lost, 0u);
  EXPECT_EQ(b.counter(1, "blocks"), 1u);
  EXPECT_EQ(b.counter(1, "bad_block"), 1u);
  EXPECT_EQ(b.get(1, "dart_events[1].kind"), b.h.constant("DartEventKind.BAD_BLOCK"));
  EXPECT_EQ(b.counter(1, "writes"), 1u); // no data cell was taken for a WRITE
  EXPECT_EQ(b.counter(1, "bad_op") + b.counter(1, "bad_bound") + b.counter(1, "bad_mask") +
                b.counter(1, "bad_reg"),
            0u);
  o.write_after();
  const uint32_t kept = uint32_t(b.get(1, "dart_events[1].a"));
  EXPECT_LT(kept, 4000u);
  o.expect_only(kept);
}

} // namespace
} // namespace lanaikit

namespace lanaikit {
namespace {

using dart::SendRegisters;

// The Send Registers' map in dart_defs.fw is the block's (host/dart/send_registers.h).
TEST(DartSendRegisters, TheFirmwaresNamesMatchTheBlock) {
  std::ifstream in(test::source("firmware/dart/dart_defs.fw"));
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  std::map<std::string, uint64_t> got;
  const std::regex reg(R"(reg (DART_REQ_\w+): u32 @ (0x[0-9A-Fa-f]+);)");
  for (auto it = std::sregex_iterator(s.begin(), s.end(), reg); it != std::sregex_iterator(); ++it)
    got[(*it)[1]] = std::stoull((*it)[2], nullptr, 0) - dart::kSendRegistersBase;
  const std::map<std::string, uint64_t> want = {
      {"DART_REQ_COUNT", SendRegisters::REQ_COUNT},     {"DART_REQ_SLOT", SendRegisters::REQ_SLOT},
      {"DART_REQ_OP", SendRegisters::REQ_OP},           {"DART_REQ_OPERAND", SendRegisters::REQ_OPERAND},
      {"DART_REQ_INDEX", SendRegisters::REQ_INDEX},     {"DART_REQ_REGOPS", SendRegisters::REQ_REGOPS},
      {"DART_REQ_OFFSET", SendRegisters::REQ_OFFSET},   {"DART_REQ_SIZE", SendRegisters::REQ_SIZE},
      {"DART_REQ_POP", SendRegisters::REQ_POP},
  };
  EXPECT_EQ(got, want);
  const assembler::FirmwareImage& img = image();
  kit::ImageView view(img, "dart");
  EXPECT_EQ(view.constant32("SEND_REGS_BASE"), dart::kSendRegistersBase);
  EXPECT_EQ(view.constant32("SEND_SLOTS"), SendRegisters::kSlots);
  EXPECT_EQ(view.constant32("DART_SEND_INT_BIT"), SendRegisters::kSendIsrBit);
}

// Two nodes, each with a send slot bound to its outgoing connection, ping-ponging 32-byte
// WRITEs between the user processes: every message is four posted PIO writes to the Send
// Registers and a deposit the other process polls for. Returns the one-way latency.
struct PingPong {
  sim::Time one_way = 0;
  uint64_t sends = 0;
  uint64_t refused = 0;
};

PingPong ping_pong(DartBench& b, uint32_t rounds) {
  for (uint32_t n = 0; n < 2; ++n) {
    // Slot 3: node 0 sends on VCI 5 (node 1's connection 5), node 1 on VCI 6.
    b.set(n, "dart_send_slots[3].vci", n == 0 ? 5 : 6);
    b.set(n, "dart_send_slots[3].endpoint", 1);
    b.set(n, "dart_send_slots[3].flags", b.h.constant("SLOT_OPEN"));
  }
  constexpr uint32_t kSrc = 0x100, kDst = 0x400;
  const uint32_t slot = dart::kSendRegistersBase + 3 * SendRegisters::kSlotBytes;
  const Cell c = Cell::make(WRITE, 0xFF, DIRECT, kDst);
  sim::Time start = 0, end = 0;
  for (uint32_t n = 0; n < 2; ++n) {
    b.h.spawn(n, "pingpong", [&, n](host::Process& p) -> host::Task {
      sim::Node& me = b.h.node(n);
      for (uint32_t m = 1; m <= rounds; ++m) {
        if (n == 1 || m > 1) {
          // Wait for the other side's message m (its last word is m).
          const uint32_t want = n == 1 ? m : m - 1;
          co_await p.wait(me.memory_watch(), [&] { return b.word(n, kDst + 28) == want; });
        }
        if (n == 0 && m == 1) start = p.local();
        if (n == 0 && m > rounds) break;
        std::array<uint8_t, 32> msg{};
        for (uint32_t w = 0; w < 8; ++w) store_be32(msg.data() + 4 * w, w == 7 ? m : 0xC0DE0000 + w);
        me.memory().write(pa_of(kSrc), msg); // the application's own stores
        me.pio_write_block(p, slot + SendRegisters::OP, c.op);
        me.pio_write_block(p, slot + SendRegisters::OPERAND, c.operand);
        me.pio_write_block(p, slot + SendRegisters::OFFSET, kSrc);
        me.pio_write_block(p, slot + SendRegisters::SIZE, 32);
      }
      if (n == 0) {
        co_await p.wait(me.memory_watch(), [&] { return b.word(0, kDst + 28) == rounds; });
        end = p.local();
      }
    });
  }
  b.h.run([&] { return end != 0; }, 50 * sim::kMillisecond);
  PingPong r;
  r.one_way = (end - start) / (2 * rounds);
  r.sends = b.counter(0, "sends") + b.counter(1, "sends");
  for (uint32_t n = 0; n < 2; ++n) r.refused += b.send_regs[n]->busy_refused();
  return r;
}

TEST(DartSendRegisters, UserLevelSendsPingPong32ByteWrites) {
  for (const int link : {-1, 0, 1}) {
    for (const bool with_switch : {false, true}) {
      DartBench b(with_switch, link);
      b.h.profile();
      const PingPong r = ping_pong(b, 20);
      EXPECT_EQ(r.sends, 40u);
      EXPECT_EQ(r.refused, 0u);
      EXPECT_EQ(b.counter(1, "writes"), 20u);
      EXPECT_EQ(b.counter(0, "writes"), 20u);
      // No host was interrupted: user-level sends, deposits the other side polls.
      EXPECT_EQ(b.h.node(0).interrupts_delivered() + b.h.node(1).interrupts_delivered(), 0u);
      // At least one cell's wire time and the cable each way; the rest is measured.
      const net::CellLink& wire = b.h.cluster().atm()->node_tx(0);
      EXPECT_GT(r.one_way, wire.cells_time(1) + wire.config().latency_ps);
      std::printf("DART 32-byte one-way latency, %7.2f Mb/s%s: %6.2f us (a cell's wire time %.2f us)\n",
                  double(wire.config().line_bits_per_s) / 1e6, with_switch ? ", one switch" : "",
                  double(r.one_way) / 1e6, double(wire.cells_time(1)) / 1e6);
      if (link == -1 && !with_switch) b.h.print_profile(0);
    }
  }
}

} // namespace
} // namespace lanaikit
