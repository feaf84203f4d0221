#include "vm/sram.h"

#include "vm/semantics.h"

#include <stdexcept>
#include <string>

namespace lanaikit::vm {

Sram::Sram(uint32_t size_bytes) : size_(size_bytes) {
  if (size_bytes == 0 || size_bytes % 4 != 0)
    throw std::invalid_argument("SRAM size must be a non-zero multiple of 4, got " +
                                std::to_string(size_bytes));
  bytes_ = HostMemory(kHeaderBytes + size_t(size_bytes),
                      "a " + std::to_string(size_bytes) + "-byte SRAM");
}

static void check(const Sram& sram, uint32_t addr, uint32_t len) {
  if (!sram.contains(addr, len))
    throw std::out_of_range("SRAM access of " + std::to_string(len) + " bytes at " +
                            std::to_string(addr) + " outside " + std::to_string(sram.size()) +
                            "-byte SRAM");
}

uint32_t Sram::read32(uint32_t addr) const {
  check(*this, addr, 4);
  return load_be32(data() + addr);
}

void Sram::write32(uint32_t addr, uint32_t value) {
  check(*this, addr, 4);
  store_be32(data() + addr, value);
}

void Sram::read(uint32_t addr, std::span<uint8_t> out) const {
  check(*this, addr, uint32_t(out.size()));
  if (!out.empty()) std::memcpy(out.data(), data() + addr, out.size());
}

void Sram::write(uint32_t addr, std::span<const uint8_t> in) {
  check(*this, addr, uint32_t(in.size()));
  if (!in.empty()) std::memcpy(data() + addr, in.data(), in.size());
}

} // namespace lanaikit::vm
