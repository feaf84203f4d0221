// CRC-8 over a packet's bytes, the check a Myrinet link appends to every packet.
//
// Polynomial x^8 + x^2 + x + 1 (0x07), initial value 0x00, no reflection, no final XOR:
// the catalogue's "CRC-8" (a.k.a. CRC-8/SMBUS), check value crc8("123456789") = 0xF4.
// It detects every single-bit and every odd-weight error, which is what the fault
// injector relies on when it flips one bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace lanaikit::net {

inline constexpr uint8_t kCrc8Polynomial = 0x07;

// Continues a CRC over `data` from `crc` (0 to start).
uint8_t crc8_update(uint8_t crc, std::span<const uint8_t> data);
inline uint8_t crc8(std::span<const uint8_t> data) { return crc8_update(0, data); }

} // namespace lanaikit::net
