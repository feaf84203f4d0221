// Memory-mapped registers: everything at or above kMmioBase is a device register, reached
// by the CPU through an MmioDevice. Ordinary SRAM accesses never come here.
#pragma once

#include "isa/inst.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace lanaikit::vm {

// The top page of the address space. Firmware reaches it as a negative offset from %r0
// (e.g. `st %r9, -4096[%r0]`), since address arithmetic wraps modulo 2^32.
inline constexpr uint32_t kMmioBase = 0xFFFFF000;

enum class MmioStatus : uint8_t {
  Ok,       // access done
  Halt,     // access done; the CPU stops after this instruction (bare-program exit)
  Yield,    // not done: the CPU stops before this instruction and retries it when resumed
  Unmapped, // no register here: a bus-error fault
  BadWidth, // the register exists but not for this access width: a fault
  Error,    // the access is not allowed now (e.g. a DMA started while busy): a fault whose
            // detail is the device's error_detail()
  Busy,     // not done: the device cannot take it yet (a store that blocks, like FUGU's
            // send buffer when the network is backed up); the CPU waits one cycle and
            // tries again
  Trap,     // not done: the CPU takes a trap (docs/vm.md, "Interrupts and traps") with
            // cause cpuctl::kCauseDevice + the device's trap_cause(), or kCausePrivileged
            // when trap_cause() is kTrapPrivileged
};

// trap_cause() for "a user-mode access to a kernel register".
inline constexpr uint32_t kTrapPrivileged = 0xFFFFFFFF;

class MmioDevice {
public:
  virtual ~MmioDevice() = default;
  virtual MmioStatus read(uint32_t addr, isa::Width width, uint32_t& value) = 0;
  virtual MmioStatus write(uint32_t addr, isa::Width width, uint32_t value) = 0;
  // Why the last access returned MmioStatus::Error (one line, for the fault report).
  virtual std::string error_detail() const { return "device error"; }
  // Which trap the last access that returned MmioStatus::Trap raises: a device code
  // 0..23, or kTrapPrivileged.
  virtual uint32_t trap_cause() const { return kTrapPrivileged; }
};

// The bare-program ABI page (docs/abi.md):
//   0xFFFFF000  W  PUTC       low byte of a 32-bit store appended to standard output
//   0xFFFFF004  W  EXIT       32-bit store halts the processor; the value is the exit status
//   0xFFFFF008  R  SRAM_SIZE  size of SRAM in bytes (startup code puts the stack there)
// Other addresses in the MMIO range go to `next` if set (the chip's own registers).
class BareIo : public MmioDevice {
public:
  static constexpr uint32_t kPutc = 0xFFFFF000;
  static constexpr uint32_t kExit = 0xFFFFF004;
  static constexpr uint32_t kSramSize = 0xFFFFF008;

  explicit BareIo(uint32_t sram_size, MmioDevice* next = nullptr)
      : sram_size_(sram_size), next_(next) {}

  MmioStatus read(uint32_t addr, isa::Width width, uint32_t& value) override;
  MmioStatus write(uint32_t addr, isa::Width width, uint32_t value) override;
  std::string error_detail() const override {
    return next_ ? next_->error_detail() : MmioDevice::error_detail();
  }
  uint32_t trap_cause() const override {
    return next_ ? next_->trap_cause() : MmioDevice::trap_cause();
  }

  // Send PUTC bytes straight to `out` (e.g. stdout) instead of collecting them.
  void echo_to(std::FILE* out) { echo_ = out; }
  const std::string& output() const { return output_; }
  std::string take_output() { return std::move(output_); }
  bool exited() const { return exited_; }
  uint32_t exit_status() const { return exit_status_; }
  // Forget the output and the exit (a debugger restarting the program).
  void reset() {
    output_.clear();
    exited_ = false;
    exit_status_ = 0;
  }

private:
  uint32_t sram_size_;
  MmioDevice* next_;
  std::FILE* echo_ = nullptr;
  std::string output_;
  bool exited_ = false;
  uint32_t exit_status_ = 0;
};

} // namespace lanaikit::vm
