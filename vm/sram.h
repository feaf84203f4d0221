// The NIC's on-chip SRAM: one byte array, big-endian words, addressed from 0.
//
// The array is reserved host address space (vm/host_memory.h): it reads as zeros and a
// host page is committed only when first written, so an SRAM of any size costs what the
// program touches.
#pragma once

#include "vm/host_memory.h"

#include <cstdint>
#include <cstring>
#include <span>

namespace lanaikit::vm {

class Sram {
public:
  // Bytes reserved in front of the SRAM array for the CPU's core state (vm/cpu.h): the
  // interpreter then reaches registers and SRAM from one base register, SRAM at a constant
  // offset. One CPU per SRAM, as on the chip.
  static constexpr uint32_t kHeaderBytes = 256;

  // `size_bytes` must be a non-zero multiple of 4. Throws HostMemoryError if the host
  // cannot reserve it.
  explicit Sram(uint32_t size_bytes);

  uint32_t size() const { return size_; }
  uint8_t* data() { return base() + kHeaderBytes; }
  const uint8_t* data() const { return base() + kHeaderBytes; }
  void* header() { return base(); }

  bool contains(uint32_t addr, uint32_t len) const {
    return addr <= size_ && len <= size_ - addr;
  }
  // Checked accessors for loaders, devices and tests (the interpreter has its own fast path).
  uint32_t read32(uint32_t addr) const;
  void write32(uint32_t addr, uint32_t value);
  void read(uint32_t addr, std::span<uint8_t> out) const;
  void write(uint32_t addr, std::span<const uint8_t> in);
  // All bytes zero, without touching (and so committing) host pages.
  void clear() { bytes_.zero(kHeaderBytes, size_); }

private:
  uint8_t* base() const { return static_cast<uint8_t*>(bytes_.data()); }

  uint32_t size_;
  HostMemory bytes_; // kHeaderBytes, then the SRAM

};

} // namespace lanaikit::vm
