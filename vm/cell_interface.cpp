#include "vm/cell_interface.h"

#include "base/bytes.h"
#include "base/hex.h"
#include "vm/chip_regs.h"

#include <stdexcept>

namespace lanaikit::vm {

CellInterface::CellInterface(net::CellLink& tx, Config config) : tx_(tx), config_(config) {
  for (uint32_t bit : {config_.rx_isr_bit, config_.tx_isr_bit})
    if (bit == 0 || (bit & ~regs::kBlockIsrBits) || (bit & (bit - 1)))
      throw std::invalid_argument("cell_interface: ISR bit " + hex(bit) +
                                  " is not one bit of kBlockIsrBits (" + hex(regs::kBlockIsrBits) +
                                  ")");
  if (config_.rx_isr_bit == config_.tx_isr_bit)
    throw std::invalid_argument("cell_interface: receive and transmit need different ISR bits");
}

sim::Time CellInterface::cycles(uint32_t n) const { return port().clock().time_of(n); }

// Every value a read returns changes only at the interface's events (a slot written, a
// cell handed over) or at writes by the CPU itself, and the CPU never runs past an event;
// the only access others see at once is a launch, which schedules the transmit engine.
bool CellInterface::needs_exact_time(uint32_t offset, bool is_write) const {
  return is_write && offset == TX_CMD;
}

MmioStatus CellInterface::read(uint32_t offset, bool, uint32_t& value) {
  switch (offset) {
  case RX_BASE: value = rx_base_; return MmioStatus::Ok;
  case RX_SLOTS: value = rx_slots_; return MmioStatus::Ok;
  case RX_HEAD: value = rx_head_; return MmioStatus::Ok;
  case RX_TAIL: value = rx_tail_; return MmioStatus::Ok;
  case RX_DROPS: value = uint32_t(counters_.cells_dropped); return MmioStatus::Ok;
  case TX_ADDR: value = tx_addr_; return MmioStatus::Ok;
  case TX_LEN: value = tx_len_; return MmioStatus::Ok;
  case TX_CMD: return error("TX_CMD is write-only");
  case TX_QUEUED: value = uint32_t(launches_.size()); return MmioStatus::Ok;
  case TX_DONE: value = tx_done_; return MmioStatus::Ok;
  }
  return MmioStatus::Unmapped;
}

MmioStatus CellInterface::write(uint32_t offset, bool, uint32_t value) {
  switch (offset) {
  case RX_BASE:
  case RX_SLOTS: {
    const uint32_t base = offset == RX_BASE ? value : rx_base_;
    const uint32_t slots = offset == RX_SLOTS ? value : rx_slots_;
    if (base % kSlotBytes != 0)
      return error("RX_BASE " + hex(base) + " is not a multiple of " + std::to_string(kSlotBytes));
    if (uint64_t(base) + uint64_t(slots) * kSlotBytes > port().sram_size())
      return error("a ring of " + std::to_string(slots) + " slots at " + hex(base) +
                   " does not fit in SRAM (" + std::to_string(port().sram_size()) + " bytes)");
    rx_base_ = base;
    rx_slots_ = slots;
    rx_head_ = rx_tail_ = 0; // a new ring starts empty
    return MmioStatus::Ok;
  }
  case RX_TAIL:
    // Free-running counts: the firmware may finish at most the cells written.
    if (uint32_t(rx_head_ - value) > rx_slots_)
      return error("RX_TAIL " + std::to_string(value) + " is not between RX_HEAD - RX_SLOTS and RX_HEAD (" +
                   std::to_string(rx_head_) + ")");
    rx_tail_ = value;
    return MmioStatus::Ok;
  case TX_ADDR: tx_addr_ = value; return MmioStatus::Ok;
  case TX_LEN: tx_len_ = value; return MmioStatus::Ok;
  case TX_CMD: return launch(value);
  case RX_HEAD:
  case RX_DROPS:
  case TX_QUEUED:
  case TX_DONE: return error("this register is read-only");
  }
  return MmioStatus::Unmapped;
}

MmioStatus CellInterface::launch(uint32_t cmd) {
  const bool aal5 = cmd & kTxAal5;
  if (cmd & ~(kTxAal5 | 0x7FFFFu))
    return error("TX_CMD " + hex(cmd) + " sets bits other than AAL5 (31), PTI (18..16), VCI (15..0)");
  if (aal5 && ((cmd >> 16) & 7))
    return error("TX_CMD: an AAL5 launch takes no PTI (the interface marks the last cell)");
  if (!aal5 && tx_len_ != net::kCellPayloadBytes)
    return error("TX_LEN is " + std::to_string(tx_len_) + "; a raw cell is 48 bytes");
  if (aal5 && tx_len_ > net::kAal5MaxSdu)
    return error("TX_LEN is " + std::to_string(tx_len_) + "; an AAL5 frame holds at most 65535 bytes");
  if (uint64_t(tx_addr_) + tx_len_ > port().sram_size())
    return error("TX_ADDR " + hex(tx_addr_) + " + TX_LEN " + std::to_string(tx_len_) +
                 " is outside SRAM");
  if (launches_.size() >= kTxQueue)
    return error("transmit queue full (" + std::to_string(kTxQueue) +
                 " launches waiting; poll TX_QUEUED)");
  Launch l{tx_addr_, tx_len_, cmd, {}, 0, aal5 ? net::CellLink::aal5_cells(tx_len_) : 1};
  launches_.push_back(std::move(l));
  ++counters_.launches;
  if (!tx_busy_) start_cell();
  return MmioStatus::Ok;
}

// The transmit DMA reads the next cell of the oldest launch: kTxCycles, then hands it over.
void CellInterface::start_cell() {
  tx_busy_ = true;
  port().schedule_in(cycles(kTxCycles), [this] { cell_read(); }, kTagTx);
}

void CellInterface::cell_read() {
  Launch& l = launches_.front();
  const uint16_t vci = uint16_t(l.cmd);
  std::array<uint8_t, net::kCellPayloadBytes> payload{};
  uint8_t pti = 0;
  if (l.cmd & kTxAal5) {
    // The SAR computes the CRC-32 over the whole PDU, so it reads the frame as its first
    // cell goes: the bytes are the ones in SRAM when the frame started.
    if (l.next_cell == 0) {
      std::vector<uint8_t> sdu(l.len);
      port().sram_read(l.addr, sdu);
      l.pdu = net::aal5_pdu(sdu);
    }
    std::copy_n(l.pdu.begin() + size_t(l.next_cell) * net::kCellPayloadBytes,
                net::kCellPayloadBytes, payload.begin());
    if (l.next_cell + 1 == l.cells) pti = net::kPtiEndOfSdu;
  } else {
    port().sram_read(l.addr, payload);
    pti = uint8_t((l.cmd >> 16) & 7);
  }
  tx_.send_cell(vci, payload, counters_.cells_sent, pti);
  ++counters_.cells_sent;
  if (++l.next_cell == l.cells) {
    launches_.pop_front();
    ++tx_done_;
    port().raise_isr(config_.tx_isr_bit);
  }
  tx_busy_ = false;
  if (!launches_.empty()) start_cell();
}

uint32_t CellInterface::accept(const net::Chunk& chunk) {
  const auto& bytes = chunk.packet->bytes;
  if (!port().powered() || bytes.size() != net::kCellBytes) {
    // A powered-off interface hears nothing; a non-cell cannot come from a CellLink.
    ++counters_.cells_dropped;
    return chunk.whole();
  }
  Arrival a;
  std::copy(bytes.begin(), bytes.end(), a.cell.begin());
  arrivals_.push_back(a);
  // The receive DMA writes slots one after another.
  const sim::Time start = std::max(port().now(), rx_free_at_);
  rx_free_at_ = start + cycles(kRxCycles);
  port().schedule_in(rx_free_at_ - port().now(), [this] { slot_written(); }, kTagRx);
  return chunk.whole();
}

void CellInterface::slot_written() {
  const Arrival a = arrivals_.front();
  arrivals_.pop_front();
  const uint8_t* h = a.cell.data();
  const uint8_t* payload = h + net::kCellHeaderBytes;
  const uint16_t vci = net::cell_header_vci(h);
  const bool end = net::cell_header_pti(h) & net::kPtiEndOfSdu;

  // The CRC-32 runs over every cell, whether or not the ring has room: a lost cell must
  // still fail its frame (the cell count tells the firmware).
  Reassembly& r = reassembly_[vci];
  ++r.cells;
  uint32_t status = std::min<uint32_t>(r.cells, kStatusCellsMask);
  if (end) {
    status |= kStatusEnd;
    r.crc = net::crc32_aal5_update(r.crc, std::span<const uint8_t>(payload, net::kCellPayloadBytes - 4));
    if (~r.crc == load_be32(payload + net::kCellPayloadBytes - 4)) status |= kStatusCrcOk;
    reassembly_.erase(vci);
  } else {
    r.crc = net::crc32_aal5_update(r.crc, std::span<const uint8_t>(payload, net::kCellPayloadBytes));
  }

  if (rx_slots_ == 0 || rx_head_ - rx_tail_ >= rx_slots_) {
    ++counters_.cells_dropped;
    return;
  }
  std::array<uint8_t, kSlotBytes> slot{};
  std::copy_n(h, 4, slot.begin());
  store_be32(slot.data() + 4, status);
  std::copy_n(payload, net::kCellPayloadBytes, slot.begin() + 8);
  port().sram_write(rx_base_ + (rx_head_ % rx_slots_) * kSlotBytes, slot);
  ++rx_head_;
  ++counters_.cells_received;
  port().raise_isr(config_.rx_isr_bit);
}

void CellInterface::reset() {
  rx_base_ = rx_slots_ = rx_head_ = rx_tail_ = 0;
  arrivals_.clear();
  rx_free_at_ = 0;
  reassembly_.clear();
  tx_addr_ = tx_len_ = tx_done_ = 0;
  launches_.clear();
  tx_busy_ = false;
}

std::string CellInterface::report() const {
  return "RX_BASE=" + hex(rx_base_) + " RX_SLOTS=" + std::to_string(rx_slots_) +
         " RX_HEAD=" + std::to_string(rx_head_) + " RX_TAIL=" + std::to_string(rx_tail_) +
         " TX_QUEUED=" + std::to_string(launches_.size()) + " TX_DONE=" + std::to_string(tx_done_);
}

} // namespace lanaikit::vm
