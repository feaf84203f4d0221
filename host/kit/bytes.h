// Big-endian values in byte buffers: the chip is big-endian, the host model little-endian,
// and every structure the two share is laid out by the firmware (ARCHITECTURE.md, "Byte
// order"). Host libraries decode SRAM words and DMAed records with these.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lanaikit::kit {

// `bytes` of 1, 2, 4 or 8.
inline uint64_t get_be(const uint8_t* p, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; ++i)
    v = v << 8 | p[i];
  return v;
}

inline void put_be(uint8_t* p, size_t bytes, uint64_t v) {
  for (size_t i = bytes; i-- > 0; v >>= 8)
    p[i] = uint8_t(v);
}

inline uint32_t get_be32(const uint8_t* p) {
  return uint32_t(get_be(p, 4));
}
inline void put_be32(uint8_t* p, uint32_t v) {
  put_be(p, 4, v);
}

} // namespace lanaikit::kit
