#include "host/kit/sram.h"

#include "base/bytes.h"

namespace lanaikit::kit {

namespace {

void check_width(const Ref& place) {
  const uint32_t s = place.size();
  if (s != 1 && s != 2 && s != 4 && s != 8)
    throw KitError(place.path() + " is " + std::to_string(s) +
                   " bytes, not an integer of 1, 2, 4 or 8");
}

} // namespace

uint32_t peek32(sim::Node& node, uint32_t addr) {
  uint8_t b[4];
  node.chip().host_read_sram(addr, b);
  return load_be32(b);
}

void poke32(sim::Node& node, uint32_t addr, uint32_t value) {
  uint8_t b[4];
  store_be32(b, value);
  node.chip().host_write_sram(addr, b);
}

uint64_t peek(sim::Node& node, const Ref& place) {
  check_width(place);
  uint8_t b[8];
  node.chip().host_read_sram(place.addr(), std::span<uint8_t>(b, place.size()));
  return get_be(b, place.size());
}

void poke(sim::Node& node, const Ref& place, uint64_t value) {
  check_width(place);
  uint8_t b[8];
  put_be(b, place.size(), value);
  node.chip().host_write_sram(place.addr(), std::span<const uint8_t>(b, place.size()));
}

std::vector<std::pair<std::string, uint64_t>> read_fields(sim::Node& node, const Ref& place) {
  std::vector<std::pair<std::string, uint64_t>> out;
  for (const assembler::LayoutField& f : place.layout().fields) {
    const Ref field = place.field(f.name);
    if (field.is_integer()) out.emplace_back(f.name, peek(node, field));
  }
  return out;
}

} // namespace lanaikit::kit
