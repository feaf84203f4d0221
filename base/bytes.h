// Big-endian values in byte buffers: the Lanai is big-endian, the host model little-endian,
// and every structure the two share is laid out by the firmware (ARCHITECTURE.md, "Byte
// order"). The chip's SRAM accesses, the ELF reader, host libraries decoding SRAM words and
// DMAed records, and the tools all use these; nothing else in the tree swaps bytes.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

namespace lanaikit {

// Fixed widths, on a little- or big-endian host (the interpreter's loads and stores).
inline uint32_t load_be32(const uint8_t* p) {
  uint32_t v;
  __builtin_memcpy(&v, p, 4);
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap32(v);
  return v;
}
inline uint16_t load_be16(const uint8_t* p) {
  uint16_t v;
  __builtin_memcpy(&v, p, 2);
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap16(v);
  return v;
}
inline void store_be32(uint8_t* p, uint32_t v) {
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap32(v);
  __builtin_memcpy(p, &v, 4);
}
inline void store_be16(uint8_t* p, uint16_t v) {
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap16(v);
  __builtin_memcpy(p, &v, 2);
}

// Any width of 1..8 bytes (a field whose size comes from a layout table).
inline uint64_t get_be(const uint8_t* p, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; ++i) v = v << 8 | p[i];
  return v;
}
inline void put_be(uint8_t* p, size_t bytes, uint64_t v) {
  for (size_t i = bytes; i-- > 0; v >>= 8) p[i] = uint8_t(v);
}

} // namespace lanaikit
