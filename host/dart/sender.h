// One end of a DART connection sending through its send slot (docs/dart.md, "Sending"):
// the library's user-level send. A send writes the slot's control words that changed
// since the previous send, the data's offset if it changed, and the size, which queues
// it: three to six posted PIO writes, no system call and no interrupt.
#pragma once

#include "host/dart/cell.h"
#include "host/dart/driver.h"

#include <cstdint>
#include <optional>

namespace lanaikit::dart {

class Sender {
public:
  // The end `from_a` (a's side: slot_a on vci_ab) of connection `c`, for a process of
  // `space`, which must own that end's endpoint: the driver maps the slot's page into it.
  Sender(Driver& driver, const host::AddressSpace& space, const Connection& c, bool from_a);

  // Queues one cell: `control`'s words and `size` (0..32) bytes at `offset` in the sending
  // endpoint. With SendRegisters::kSlotDepth sends of this slot possibly still queued on
  // the card, first reads SENT until one has left, so the card never refuses a send of
  // this library; otherwise no read at all.
  host::Op<void> send(host::Process& p, const Cell& control, uint32_t offset, uint32_t size);

  uint64_t sends() const { return issued_; }
  uint64_t waits() const { return waits_; } // SENT reads that found the slot busy

private:
  void write_if_changed(host::Process& p, std::optional<uint32_t>& cached, uint32_t reg, uint32_t value);

  Driver& driver_;
  const host::AddressSpace& space_;
  uint32_t node_;
  uint32_t slot_page_; // the slot's registers, virtual in space_
  std::optional<uint32_t> op_, operand_, index_, regops_, offset_;
  uint64_t issued_ = 0, sent_seen_ = 0, waits_ = 0;
};

} // namespace lanaikit::dart
