#include "host/dart/sender.h"

namespace lanaikit::dart {

Sender::Sender(Driver& driver, const host::AddressSpace& space, const Connection& c, bool from_a)
    : driver_(driver), space_(space), node_(from_a ? c.a.node : c.b.node),
      slot_page_(driver.map_send_slot(c, from_a, space)) {}

void Sender::write_if_changed(host::Process& p, std::optional<uint32_t>& cached, uint32_t reg,
                              uint32_t value) {
  if (cached == value) return;
  driver_.send_register_write(p, node_, space_, slot_page_ + reg, value);
  cached = value;
}

host::Op<void> Sender::send(host::Process& p, const Cell& control, uint32_t offset, uint32_t size) {
  // Room in the slot's queue: SENT counts the card's takes.
  while (issued_ - sent_seen_ >= SendRegisters::kSlotDepth) {
    uint32_t sent = 0;
    co_await driver_.send_register_read(p, node_, space_, slot_page_ + SendRegisters::SENT, sent);
    // SENT is 32 bits of a count that only grows: extend it past wrap-around.
    sent_seen_ += uint32_t(sent - uint32_t(sent_seen_));
    if (issued_ - sent_seen_ >= SendRegisters::kSlotDepth) ++waits_;
  }
  write_if_changed(p, op_, SendRegisters::OP, control.op);
  write_if_changed(p, operand_, SendRegisters::OPERAND, control.operand);
  write_if_changed(p, index_, SendRegisters::INDEX, control.index);
  write_if_changed(p, regops_, SendRegisters::REGOPS, control.regops);
  write_if_changed(p, offset_, SendRegisters::OFFSET, offset);
  driver_.send_register_write(p, node_, space_, slot_page_ + SendRegisters::SIZE, size);
  ++issued_;
}

} // namespace lanaikit::dart
