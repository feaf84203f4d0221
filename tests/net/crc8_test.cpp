// CRC-8 (polynomial 0x07): the catalogue's check value and a bitwise reference.
#include "net/crc8.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace lanaikit::net;

namespace {
uint8_t bitwise_crc8(const std::vector<uint8_t>& data) {
  uint8_t crc = 0;
  for (uint8_t b : data) {
    crc ^= b;
    for (int i = 0; i < 8; ++i) crc = (crc & 0x80) ? uint8_t((crc << 1) ^ 0x07) : uint8_t(crc << 1);
  }
  return crc;
}
std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }
} // namespace

TEST(Crc8, MatchesTheCatalogueCheckValue) {
  EXPECT_EQ(crc8(bytes("123456789")), 0xF4); // CRC-8 (SMBUS) check value
  EXPECT_EQ(crc8(std::vector<uint8_t>{}), 0x00);
  EXPECT_EQ(crc8(std::vector<uint8_t>{0x01}), 0x07);
  EXPECT_EQ(crc8(std::vector<uint8_t>{0xFF}), 0xF3);
}

TEST(Crc8, TableAgreesWithBitwiseReference) {
  std::vector<uint8_t> v;
  for (int i = 0; i < 600; ++i) {
    EXPECT_EQ(crc8(v), bitwise_crc8(v)) << "length " << v.size();
    v.push_back(uint8_t(i * 37 + 11));
  }
}

TEST(Crc8, UpdateContinuesAcrossPieces) {
  const auto all = bytes("Myrinet packet payload");
  const std::span<const uint8_t> s(all);
  EXPECT_EQ(crc8_update(crc8(s.first(7)), s.subspan(7)), crc8(all));
}

TEST(Crc8, DetectsEverySingleBitFlip) {
  const auto v = bytes("a packet of some length");
  const uint8_t good = crc8(v);
  for (size_t i = 0; i < v.size(); ++i)
    for (int b = 0; b < 8; ++b) {
      auto w = v;
      w[i] ^= uint8_t(1 << b);
      EXPECT_NE(crc8(w), good) << "byte " << i << " bit " << b;
    }
}
