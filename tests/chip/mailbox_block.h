// A toy protocol register block for the extension-point tests (vm/register_block.h): a
// mailbox word both sides write, a counter of host writes, a doorbell that raises an ISR
// bit after a delay (an engine with its own kernel event), and a clock read that depends
// on the exact time. tests/chip/fw/blocktest.c drives it from firmware.
#pragma once

#include "vm/chip_regs.h"
#include "vm/register_block.h"

#include <string>

namespace lanaikit::test {

class MailboxBlock final : public vm::RegisterBlock {
public:
  enum Offset : uint32_t { MAILBOX = 0x0, COUNT = 0x4, DOORBELL = 0x8, NOW_NS = 0xC };
  static constexpr uint32_t kMailboxInt = 0x00000100; // within regs::kBlockIsrBits
  static constexpr uint32_t kTagDoorbell = 0x4D420001;

  // `all_exact`: use the base class's default (every access ends the batch) instead of
  // saying which accesses need it; both must give the same results.
  explicit MailboxBlock(bool all_exact = false) : all_exact_(all_exact) {}

  std::string name() const override { return "mailbox"; }
  uint32_t size_bytes() const override { return 16; }

  bool needs_exact_time(uint32_t offset, bool is_write) const override {
    if (all_exact_) return true;
    // MAILBOX and COUNT only change at host writes (events); the rest is seen by others
    // or depends on the time.
    if (!is_write && (offset == MAILBOX || offset == COUNT)) return false;
    return true;
  }

  vm::MmioStatus read(uint32_t offset, bool from_host, uint32_t& value) override {
    switch (offset) {
    case MAILBOX:
      value = mailbox_;
      return vm::MmioStatus::Ok;
    case COUNT:
      value = host_writes_;
      return vm::MmioStatus::Ok;
    case NOW_NS:
      value = uint32_t(port().now() / sim::kNanosecond);
      return vm::MmioStatus::Ok;
    case DOORBELL:
      return error("DOORBELL is write-only");
    }
    (void)from_host;
    return vm::MmioStatus::Unmapped;
  }

  vm::MmioStatus write(uint32_t offset, bool from_host, uint32_t value) override {
    switch (offset) {
    case MAILBOX:
      mailbox_ = value;
      if (from_host) ++host_writes_;
      return vm::MmioStatus::Ok;
    case DOORBELL:
      ++doorbells_;
      port().schedule_in(
          sim::Time(value) * sim::kNanosecond, [this] { port().raise_isr(kMailboxInt); },
          kTagDoorbell);
      return vm::MmioStatus::Ok;
    case COUNT:
      return error("COUNT is read-only");
    case NOW_NS:
      return error("NOW_NS is read-only");
    }
    return vm::MmioStatus::Unmapped;
  }

  std::string error_detail() const override { return error_; }
  void reset() override { mailbox_ = host_writes_ = 0; }
  std::string report() const override {
    return "MAILBOX " + std::to_string(mailbox_) + " COUNT " + std::to_string(host_writes_);
  }

  uint32_t doorbells() const { return doorbells_; }

private:
  vm::MmioStatus error(std::string why) {
    error_ = std::move(why);
    return vm::MmioStatus::Error;
  }
  bool all_exact_;
  uint32_t mailbox_ = 0, host_writes_ = 0, doorbells_ = 0;
  std::string error_;
};

} // namespace lanaikit::test
