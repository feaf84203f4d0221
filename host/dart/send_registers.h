// DART's Send Registers (docs/dart.md, "Sending"): the memory-mapped registers a user
// process writes directly to send a message, attached to the chip as a register block
// (vm/register_block.h) at kSendRegistersBase. The driver binds each of kSlots send slots
// to a connection (the firmware's dart_send_slots table); a process writes its slot's
// control words, the data's offset in its endpoint and the size, and the size write
// queues the request for the Operation Logic's send side (ISR bit kSendIsrBit), which
// fetches the data from the endpoint, builds the cell and launches it.
//
// Per slot (32 bytes): OP, OPERAND, INDEX, REGOPS (the cell's control words, kept between
// sends), OFFSET (the data's offset in the sender's endpoint), SIZE (bytes: 0..32 for one
// cell, up to a block for WRITE_MULTIPLE; a write queues the send), SENT (read: the slot's sends the card has taken). A slot holds up to
// kSlotDepth queued sends; a SIZE write beyond that is refused and counted (the library
// keeps count and reads SENT only when it has that many outstanding). The firmware reads the oldest request through
// REQ_* and retires it with REQ_POP.
#pragma once

#include "vm/register_block.h"

#include <array>
#include <cstdint>
#include <deque>

namespace lanaikit::dart {

inline constexpr uint32_t kSendRegistersBase = 0xFFFFF200;

class SendRegisters final : public vm::RegisterBlock {
public:
  static constexpr uint32_t kSlots = 16;
  static constexpr uint32_t kSlotBytes = 32;
  static constexpr uint32_t kSendIsrBit = 0x00000400; // within regs::kBlockIsrBits
  enum SlotOffset : uint32_t { OP = 0x0, OPERAND = 0x4, INDEX = 0x8, REGOPS = 0xC, OFFSET = 0x10,
                               SIZE = 0x14, SENT = 0x18 };
  // After the slots: the firmware's side.
  static constexpr uint32_t kReqBase = kSlots * kSlotBytes;
  enum ReqOffset : uint32_t { REQ_COUNT = kReqBase + 0x0, REQ_SLOT = kReqBase + 0x4,
                              REQ_OP = kReqBase + 0x8, REQ_OPERAND = kReqBase + 0xC,
                              REQ_INDEX = kReqBase + 0x10, REQ_REGOPS = kReqBase + 0x14,
                              REQ_OFFSET = kReqBase + 0x18, REQ_SIZE = kReqBase + 0x1C,
                              REQ_POP = kReqBase + 0x20, BUSY_REFUSED = kReqBase + 0x24,
                              kSize = kReqBase + 0x28 };
  // One cell carries 32 data bytes; a WRITE_MULTIPLE's block may be as long as an AAL5
  // frame (the firmware may allow less: its MAX_BLOCK, refused as bad_send).
  static constexpr uint32_t kMaxSize = 65535;
  static constexpr uint32_t kSlotDepth = 4;

  std::string name() const override { return "dart.send_registers"; }
  uint32_t size_bytes() const override { return kSize; }
  // Host writes are events, so the CPU's reads see values that change only at events or at
  // its own REQ_POP; REQ_POP is exact, because the host sees its effect (SENT, room in the
  // slot).
  bool needs_exact_time(uint32_t offset, bool is_write) const override {
    return is_write && offset == REQ_POP;
  }
  vm::MmioStatus read(uint32_t offset, bool from_host, uint32_t& value) override;
  vm::MmioStatus write(uint32_t offset, bool from_host, uint32_t value) override;
  std::string error_detail() const override { return error_; }
  void reset() override;

  uint64_t busy_refused() const { return busy_refused_; }

private:
  struct Request {
    uint32_t slot, op, operand, index, regops, offset, size;
  };
  struct Slot {
    uint32_t op = 0, operand = 0, index = 0, regops = 0, offset = 0, sent = 0;
    uint32_t queued = 0;
  };
  vm::MmioStatus error(std::string detail) {
    error_ = std::move(detail);
    return vm::MmioStatus::Error;
  }

  std::array<Slot, kSlots> slots_{};
  std::deque<Request> queue_;
  uint64_t busy_refused_ = 0;
  std::string error_;
};

} // namespace lanaikit::dart
