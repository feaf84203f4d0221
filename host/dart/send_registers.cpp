#include "host/dart/send_registers.h"

#include <string>

namespace lanaikit::dart {

vm::MmioStatus SendRegisters::read(uint32_t offset, bool from_host, uint32_t& value) {
  if (offset < kReqBase) {
    const Slot& s = slots_[offset / kSlotBytes];
    switch (offset % kSlotBytes) {
    case OP: value = s.op; return vm::MmioStatus::Ok;
    case OPERAND: value = s.operand; return vm::MmioStatus::Ok;
    case INDEX: value = s.index; return vm::MmioStatus::Ok;
    case REGOPS: value = s.regops; return vm::MmioStatus::Ok;
    case OFFSET: value = s.offset; return vm::MmioStatus::Ok;
    case SENT: value = s.sent; return vm::MmioStatus::Ok;
    case SIZE: return error("SIZE is write-only (it queues a send)");
    }
    return vm::MmioStatus::Unmapped;
  }
  if (from_host && offset != BUSY_REFUSED)
    return error("the request registers are the card's");
  const Request* r = queue_.empty() ? nullptr : &queue_.front();
  switch (offset) {
  case REQ_COUNT: value = uint32_t(queue_.size()); return vm::MmioStatus::Ok;
  case REQ_SLOT: value = r ? r->slot : 0; return vm::MmioStatus::Ok;
  case REQ_OP: value = r ? r->op : 0; return vm::MmioStatus::Ok;
  case REQ_OPERAND: value = r ? r->operand : 0; return vm::MmioStatus::Ok;
  case REQ_INDEX: value = r ? r->index : 0; return vm::MmioStatus::Ok;
  case REQ_REGOPS: value = r ? r->regops : 0; return vm::MmioStatus::Ok;
  case REQ_OFFSET: value = r ? r->offset : 0; return vm::MmioStatus::Ok;
  case REQ_SIZE: value = r ? r->size : 0; return vm::MmioStatus::Ok;
  case BUSY_REFUSED: value = uint32_t(busy_refused_); return vm::MmioStatus::Ok;
  case REQ_POP: return error("REQ_POP is write-only");
  }
  return vm::MmioStatus::Unmapped;
}

vm::MmioStatus SendRegisters::write(uint32_t offset, bool from_host, uint32_t value) {
  if (offset < kReqBase) {
    if (!from_host) return error("the send slots are the host's");
    Slot& s = slots_[offset / kSlotBytes];
    switch (offset % kSlotBytes) {
    case OP: s.op = value; return vm::MmioStatus::Ok;
    case OPERAND: s.operand = value; return vm::MmioStatus::Ok;
    case INDEX: s.index = value; return vm::MmioStatus::Ok;
    case REGOPS: s.regops = value; return vm::MmioStatus::Ok;
    case OFFSET: s.offset = value; return vm::MmioStatus::Ok;
    case SIZE:
      if (value > kMaxSize) return error("SIZE " + std::to_string(value) + " is more than an AAL5 frame holds");
      // A user cannot make the card fault or lose a send by writing too fast: the write is
      // refused, counted, and SENT tells the library when to try again.
      if (s.queued == kSlotDepth) {
        ++busy_refused_;
        return vm::MmioStatus::Ok;
      }
      ++s.queued;
      queue_.push_back({offset / kSlotBytes, s.op, s.operand, s.index, s.regops, s.offset, value});
      port().raise_isr(kSendIsrBit);
      return vm::MmioStatus::Ok;
    case SENT: return error("SENT is read-only");
    }
    return vm::MmioStatus::Unmapped;
  }
  if (from_host) return error("the request registers are the card's");
  if (offset != REQ_POP) return error("this request register is read-only");
  if (queue_.empty()) return error("REQ_POP with no request queued");
  Slot& s = slots_[queue_.front().slot];
  --s.queued;
  ++s.sent;
  queue_.pop_front();
  return vm::MmioStatus::Ok;
}

void SendRegisters::reset() {
  slots_ = {};
  queue_.clear();
  busy_refused_ = 0;
}

} // namespace lanaikit::dart
