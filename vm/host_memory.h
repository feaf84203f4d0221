// Host memory for the emulator's large per-chip arrays (SRAM, predecoded slots, the code
// map): address space reserved up front, host pages committed only when first touched.
//
// An anonymous private mapping reads as zeros and costs nothing until a page is written
// (MAP_NORESERVE: not counted against the commit limit either), so a 2 GB SRAM or its
// 16 GB of predecode slots cost only the pages the program actually uses. The arrays'
// zero state is their initial state (SRAM cleared, slots "not decoded yet", no code).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace lanaikit::vm {

// Thrown when the host cannot provide the memory asked for; the message says how much
// and what for ("cannot reserve 17179869216 bytes of host memory for predecoded slots of a
// 2147483648-byte SRAM: Cannot allocate memory").
class HostMemoryError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class HostMemory {
public:
  HostMemory() = default;
  // Zero-filled, page-aligned, `bytes` long. `what` names the use for the error message.
  HostMemory(size_t bytes, const std::string& what);
  ~HostMemory();
  HostMemory(HostMemory&& other) noexcept;
  HostMemory& operator=(HostMemory&& other) noexcept;
  HostMemory(const HostMemory&) = delete;
  HostMemory& operator=(const HostMemory&) = delete;

  // Zeros bytes [offset, offset + len): whole host pages are given back to the system (they
  // read as zeros again and cost nothing), partial pages at the edges are cleared.
  void zero(size_t offset, size_t len);

  void* data() const { return data_; }
  size_t size() const { return size_; }

private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

} // namespace lanaikit::vm
