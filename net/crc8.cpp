#include "net/crc8.h"

#include <array>

namespace lanaikit::net {

namespace {

constexpr std::array<uint8_t, 256> make_table() {
  std::array<uint8_t, 256> t{};
  for (unsigned i = 0; i < 256; ++i) {
    unsigned c = i;
    for (int b = 0; b < 8; ++b) c = (c & 0x80) ? ((c << 1) ^ kCrc8Polynomial) : (c << 1);
    t[i] = uint8_t(c);
  }
  return t;
}

constexpr std::array<uint8_t, 256> kTable = make_table();

} // namespace

uint8_t crc8_update(uint8_t crc, std::span<const uint8_t> data) {
  for (uint8_t b : data) crc = kTable[crc ^ b];
  return crc;
}

} // namespace lanaikit::net
