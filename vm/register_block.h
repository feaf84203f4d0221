// The chip's extension point: a protocol's own memory-mapped register block (DART's Send
// Registers, FUGU's network-interface registers), attached to a vm::Chip without editing
// the chip's LANai register map. docs/chip.md, "Register blocks", is the manual.
//
// A block occupies [base, base + size_bytes()) inside the block window below. The CPU
// reaches it with loads and stores; the host reaches it through the node's PCI window
// (sim::Node::pio_write_block / pio_read_block), with the same timing as the LANai
// registers. The chip routes each access, checks it (inside a block, 32-bit word) and
// turns misuse into an MmioError fault that names the block.
//
// Batching (vm/chip.h). The CPU runs ahead in batches, so an access may be performed while
// the kernel's clock is still at the batch's start. A block says which accesses must
// happen at their exact time (a write whose effect another component sees, a read whose
// value depends on the time); those end the batch exactly like the LANai registers that
// need it. Everything else a block's read returns must only change at events (a host write,
// an event the block scheduled): a batch never runs past an event, so it cannot see a stale
// value. The default, every access exact, is always correct; it only costs speed.
#pragma once

#include "isa/inst.h"
#include "event/kernel.h"
#include "event/time.h"
#include "vm/mmio.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string>

namespace lanaikit::vm {

// The window register blocks live in: the top page, above the bare-program ABI words and
// below the LANai registers (chip_regs.h's kBase). Firmware reaches it as a negative
// offset from %r0, like every register.
inline constexpr uint32_t kBlockWindowBase = 0xFFFFF100;
inline constexpr uint32_t kBlockWindowEnd = 0xFFFFFE00;

// What a block may do to the chip it is attached to: a narrow port, so a block cannot
// reach the CPU, SRAM or the LANai engines behind the chip's back.
class BlockPort {
public:
  virtual ~BlockPort() = default;
  virtual sim::Time now() const = 0;
  // The chip's CPU clock (blocks that count in CPU cycles).
  virtual const sim::ClockDomain& clock() const = 0;
  // An engine's event at now() + delay. It is dropped if the chip is reset or powered off
  // first (the block's reset() then clears its own state). `tag` names the event in the
  // kernel's trace hash.
  virtual sim::EventId schedule_in(sim::Time delay, std::function<void()> fn, uint32_t tag) = 0;
  virtual void cancel(sim::EventId id) = 0;
  // Latches bits of regs::kBlockIsrBits in ISR: the firmware sees them (the CPU's
  // attention: it polls ISR) and, where EIMR enables them, they raise the host interrupt.
  // Other bits belong to the LANai engines: asking for them throws std::logic_error.
  virtual void raise_isr(uint32_t bits) = 0;
  // Whether the chip is powered (a block's engine drops what arrives while it is off).
  virtual bool powered() const = 0;
  // The block's own DMA into and out of the chip's SRAM (a cell interface's receive ring
  // and transmit reads), at the time of the call: an engine calls them from its events.
  // False, with nothing transferred, if [offset, offset + size) is not inside SRAM.
  // Writes keep the CPU's predecoded instructions exact, as every SRAM writer does.
  virtual bool sram_write(uint32_t offset, std::span<const uint8_t> bytes) = 0;
  virtual bool sram_read(uint32_t offset, std::span<uint8_t> bytes) const = 0;
  virtual uint32_t sram_size() const = 0;

  // The CPU's interrupts and traps (lanaikit's extension, docs/vm.md "Interrupts and
  // traps"), for blocks that interrupt the CPU directly (FUGU's network interface): drive
  // an interrupt line; the CPU's mode; its user-mode cycles and a one-shot alarm on them
  // (an atomicity timer). A line or alarm changed by a CPU store takes effect before the
  // CPU's next instruction; a read must not change them.
  virtual void set_cpu_line(unsigned line, bool level) = 0;
  virtual bool cpu_user_mode() const = 0;
  virtual uint64_t cpu_user_cycles() const = 0;
  virtual void set_cpu_user_alarm(uint64_t at, std::function<void()> fn) = 0;
  virtual void clear_cpu_user_alarm() = 0;
};

class RegisterBlock {
public:
  virtual ~RegisterBlock() = default;

  // For messages and fault reports ("dart.send_registers").
  virtual std::string name() const = 0;
  // A positive multiple of 4; every register is a 32-bit word at a word offset.
  virtual uint32_t size_bytes() const = 0;

  // Whether this access must be performed at its exact time (ends the CPU's batch). Host
  // accesses always happen at their exact time (they are events).
  virtual bool needs_exact_time(uint32_t offset, bool is_write) const {
    (void)offset;
    (void)is_write;
    return true;
  }

  // The access at a word offset inside the block, from the CPU or the host. Return
  // MmioStatus::Ok, Unmapped (no register at this offset), Error with error_detail()
  // saying why (e.g. a read-only register written), or, for the CPU's accesses, Trap with
  // trap_cause() saying which.
  virtual MmioStatus read(uint32_t offset, bool from_host, uint32_t& value) = 0;
  virtual MmioStatus write(uint32_t offset, bool from_host, uint32_t value) = 0;
  virtual std::string error_detail() const { return "access not allowed"; }
  // Whether user-mode code may make this access (docs/vm.md, "Interrupts and traps"); one
  // it may not traps the CPU (privileged) before the block sees it. Default: kernel only.
  virtual bool user_access(uint32_t offset, bool is_write) const {
    (void)offset;
    (void)is_write;
    return false;
  }
  // The trap a CPU access that returned MmioStatus::Trap raises: a device code 0..23
  // (cause cpuctl::kCauseDevice + code) or kTrapPrivileged.
  virtual uint32_t trap_cause() const { return kTrapPrivileged; }

  // The chip was reset or powered off: registers to their reset values. Events scheduled
  // through the port before are dropped by the chip.
  virtual void reset() {}

  // Register values for the chip's report (one line, or empty).
  virtual std::string report() const { return {}; }

  // Set by Chip::attach_block.
  void bind(BlockPort* port) { port_ = port; }

protected:
  BlockPort& port() const { return *port_; }

private:
  BlockPort* port_ = nullptr;
};

} // namespace lanaikit::vm
