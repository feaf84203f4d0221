#include "host/dart/cell.h"

#include "base/bytes.h"

namespace lanaikit::dart {

std::array<uint8_t, kCellPayload> Cell::bytes() const {
  std::array<uint8_t, kCellPayload> b{};
  for (uint32_t w = 0; w < kDataWords; ++w) store_be32(b.data() + 4 * w, data[w]);
  store_be32(b.data() + 32, op);
  store_be32(b.data() + 36, operand);
  store_be32(b.data() + 40, index);
  store_be32(b.data() + 44, regops);
  return b;
}

Cell Cell::parse(const std::array<uint8_t, kCellPayload>& b) {
  Cell c;
  for (uint32_t w = 0; w < kDataWords; ++w) c.data[w] = load_be32(b.data() + 4 * w);
  c.op = load_be32(b.data() + 32);
  c.operand = load_be32(b.data() + 36);
  c.index = load_be32(b.data() + 40);
  c.regops = load_be32(b.data() + 44);
  return c;
}

} // namespace lanaikit::dart
