#include "host/dart/sender.h"

namespace lanaikit::dart {

Sender::Sender(sim::Node& node, const Connection& c, bool from_a)
    : node_(node),
      slot_addr_(kSendRegistersBase + (from_a ? c.slot_a : c.slot_b) * SendRegisters::kSlotBytes) {}

void Sender::write_if_changed(host::Process& p, std::optional<uint32_t>& cached, uint32_t reg,
                              uint32_t value) {
  if (cached == value) return;
  node_.pio_write_block(p, slot_addr_ + reg, value);
  cached = value;
}

host::Op<void> Sender::send(host::Process& p, const Cell& control, uint32_t offset, uint32_t size) {
  // Room in the slot's queue: SENT counts the card's takes.
  while (issued_ - sent_seen_ >= SendRegisters::kSlotDepth) {
    uint32_t sent = 0;
    co_await node_.pio_read_block(p, slot_addr_ + SendRegisters::SENT, sent);
    // SENT is 32 bits of a count that only grows: extend it past wrap-around.
    sent_seen_ += uint32_t(sent - uint32_t(sent_seen_));
    if (issued_ - sent_seen_ >= SendRegisters::kSlotDepth) ++waits_;
  }
  write_if_changed(p, op_, SendRegisters::OP, control.op);
  write_if_changed(p, operand_, SendRegisters::OPERAND, control.operand);
  write_if_changed(p, index_, SendRegisters::INDEX, control.index);
  write_if_changed(p, regops_, SendRegisters::REGOPS, control.regops);
  write_if_changed(p, offset_, SendRegisters::OFFSET, offset);
  node_.pio_write_block(p, slot_addr_ + SendRegisters::SIZE, size);
  ++issued_;
}

} // namespace lanaikit::dart
