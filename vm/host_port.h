// What the chip sees of the host: the bus its host-DMA engine masters and the interrupt
// line it drives. The node (sim/node.h) implements it over host/'s PCI model and memory,
// so vm/ knows nothing of either.
#pragma once

#include "event/time.h"

#include <cstdint>
#include <functional>
#include <span>

namespace lanaikit::vm {

class HostPort {
public:
  virtual ~HostPort() = default;
  // Whether [addr, addr + len) is host memory a DMA may touch.
  virtual bool host_range_ok(uint64_t addr, uint64_t len) const = 0;
  // Times a DMA of `len` bytes on the bus (to_host: SRAM -> host); `done` runs when its
  // last byte has moved. The chip moves the bytes in `done` with host_read/host_write.
  virtual void dma(bool to_host, uint32_t len, std::function<void()> done) = 0;
  virtual void host_read(uint64_t addr, std::span<uint8_t> out) = 0;
  virtual void host_write(uint64_t addr, std::span<const uint8_t> in) = 0;
  // The chip's interrupt line to the host changed level (at Kernel::now()).
  virtual void interrupt(bool asserted) = 0;
};

} // namespace lanaikit::vm
