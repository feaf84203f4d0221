// The chip's ATM side: a cell interface (a SAR, "segmentation and reassembly" engine)
// attached as a register block (vm/register_block.h), between the chip's SRAM and a pair of
// net::CellLinks. DART's Operation Logic runs on the CPU behind it: the interface moves
// cells, the firmware decides what they mean. docs/chip.md, "The ATM cell interface", is
// the manual; firmware/lib/atm.h the firmware's register names.
//
// Receive. Every arriving cell (the receive link delivers cells one by one:
// CellLinkConfig::deliver_cells) is written by the interface's DMA into the next slot of a
// ring in SRAM that the firmware places (RX_BASE, RX_SLOTS) and drains (RX_TAIL). A slot is
// 64 bytes: the cell's 4 header bytes (GFC, VPI, VCI, PTI, CLP; the HEC is checked and
// dropped by the PHY), a status word, the 48 payload bytes, 8 bytes of zero. For AAL5 the
// interface keeps a CRC-32 per VCI over the cells since the last end-of-SDU cell, as SAR
// chips do; the status word of every cell says how many cells that PDU has so far and, on
// its end cell, whether the CRC matched. Which cells are AAL5 is the firmware's business (a
// DART control cell is a raw cell with the end-of-SDU PTI, which also restarts its VCI's
// CRC), so the interface counts no CRC errors itself. The firmware checks the trailer's length against
// the cell count and decides what to do with a bad frame. A cell that finds the ring full
// (or receive off: RX_SLOTS 0) is lost and counted: ATM has no flow control.
//
// Transmit. The firmware writes TX_ADDR and TX_LEN, then TX_CMD launches: one raw cell (48
// bytes, the PTI from the command) or an AAL5 frame (up to 65535 bytes; the interface adds
// padding, the trailer and the CRC-32, and sends the PDU's cells with the end-of-SDU PTI on
// the last). Up to kTxQueue launches wait their turn; TX_QUEUED and TX_DONE tell the
// firmware where they are.
//
// Timing (lanaikit's model; the DART paper gives none for its projected card). The
// interface's DMA moves one 32-bit word per CPU clock cycle: a received cell is in its slot
// (RX_HEAD advanced, the RX ISR bit raised) 16 cycles after its last bit arrived (the
// slot's 16 words); a transmitted cell is read from SRAM in the 12 cycles before it is
// handed to the link, cell after cell, so at a slow clock the SAR and not the wire paces a
// frame. Data is read from SRAM when the cell is handed over, so the firmware must not
// change a launch's bytes before TX_DONE passes it.
#pragma once

#include "net/atm.h"
#include "net/packet.h"
#include "vm/register_block.h"

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace lanaikit::vm {

// Where firmware expects the interface (firmware/lib/atm.h's ATM_BASE): the start of the
// register-block window.
inline constexpr uint32_t kCellInterfaceBase = kBlockWindowBase;

struct CellInterfaceCounters {
  uint64_t cells_received = 0; // written into the ring
  uint64_t cells_dropped = 0;  // lost: ring full, receive off or chip powered off
  uint64_t cells_sent = 0, launches = 0;
};

class CellInterface final : public RegisterBlock, public net::PacketSink {
public:
  // Register offsets (bytes from the block's base).
  enum Offset : uint32_t {
    RX_BASE = 0x00,   // rw: SRAM address of the ring, a multiple of 64
    RX_SLOTS = 0x04,  // rw: slots in the ring; 0 = receive off (writing either resets the ring)
    RX_HEAD = 0x08,   // ro: cells written so far (free-running; next slot RX_HEAD % RX_SLOTS)
    RX_TAIL = 0x0C,   // rw: cells the firmware has finished with (free-running)
    RX_DROPS = 0x10,  // ro: cells lost
    TX_ADDR = 0x14,   // rw: SRAM address of the next launch's bytes
    TX_LEN = 0x18,    // rw: their length (48 for a raw cell, 0..65535 for AAL5)
    TX_CMD = 0x1C,    // wo: launch; VCI in bits 15..0, PTI in 18..16 (raw), bit 31 AAL5
    TX_QUEUED = 0x20, // ro: launches not yet wholly handed to the link
    TX_DONE = 0x24,   // ro: launches wholly handed to the link (free-running)
    kSize = 0x28,
  };
  static constexpr uint32_t kSlotBytes = 64;
  static constexpr uint32_t kTxQueue = 16;
  static constexpr uint32_t kTxAal5 = 0x80000000u;
  // The slot's status word.
  static constexpr uint32_t kStatusCellsMask = 0xFFFF; // cells of this PDU so far
  static constexpr uint32_t kStatusEnd = 1u << 16;     // PTI end-of-SDU
  static constexpr uint32_t kStatusCrcOk = 1u << 17;   // on an end cell: the CRC-32 matched
  // DMA cycles per cell (one word per cycle).
  static constexpr uint32_t kRxCycles = kSlotBytes / 4;
  static constexpr uint32_t kTxCycles = net::kCellPayloadBytes / 4;
  static constexpr uint32_t kTagRx = 0x41544D52; // "ATMR"
  static constexpr uint32_t kTagTx = 0x41544D54; // "ATMT"

  struct Config {
    uint32_t rx_isr_bit = 1u << 8; // raised when a cell lands in the ring
    uint32_t tx_isr_bit = 1u << 9; // raised when a launch is wholly handed to the link
  };

  // `tx` is the link the interface sends on; the receive link is wired by the caller
  // (rx.set_sink(&interface)). Throws std::invalid_argument if an ISR bit is not one of
  // regs::kBlockIsrBits.
  CellInterface(net::CellLink& tx, Config config);

  const CellInterfaceCounters& counters() const { return counters_; }

  // RegisterBlock.
  std::string name() const override { return "cell_interface"; }
  uint32_t size_bytes() const override { return kSize; }
  bool needs_exact_time(uint32_t offset, bool is_write) const override;
  MmioStatus read(uint32_t offset, bool from_host, uint32_t& value) override;
  MmioStatus write(uint32_t offset, bool from_host, uint32_t value) override;
  std::string error_detail() const override { return error_; }
  void reset() override;
  std::string report() const override;

  // net::PacketSink: the receive link's cells (53 bytes each).
  uint32_t accept(const net::Chunk& chunk) override;

private:
  struct Launch {
    uint32_t addr, len, cmd;
    std::vector<uint8_t> pdu; // AAL5: built when its first cell is read
    uint32_t next_cell = 0, cells = 0;
  };
  struct Arrival {
    std::array<uint8_t, net::kCellBytes> cell;
  };
  struct Reassembly {
    uint32_t crc = 0xFFFFFFFFu; // uncomplemented register over the PDU so far
    uint32_t cells = 0;
  };

  MmioStatus error(std::string detail) {
    error_ = std::move(detail);
    return MmioStatus::Error;
  }
  MmioStatus launch(uint32_t cmd);
  void start_cell();
  void cell_read();
  void slot_written();
  sim::Time cycles(uint32_t n) const;

  net::CellLink& tx_;
  Config config_;
  CellInterfaceCounters counters_;
  std::string error_;

  uint32_t rx_base_ = 0, rx_slots_ = 0, rx_head_ = 0, rx_tail_ = 0;
  std::deque<Arrival> arrivals_; // cells whose slot write is under way, oldest first
  sim::Time rx_free_at_ = 0;     // when the receive DMA finishes the last queued slot
  std::map<uint16_t, Reassembly> reassembly_;

  uint32_t tx_addr_ = 0, tx_len_ = 0, tx_done_ = 0;
  std::deque<Launch> launches_;
  bool tx_busy_ = false; // a cell read is under way
};

} // namespace lanaikit::vm
