// Untimed access to a node's SRAM (set-up before an experiment, counters after it, tests):
// the host's view of the card without PCI timing. Timed access from a host process is the
// node's PIO (sim::Node::pio_read_word / pio_write_word and friends), which takes a
// Ref's addr() the same way.
#pragma once

#include "host/kit/image_view.h"
#include "sim/node.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace lanaikit::kit {

uint32_t peek32(sim::Node& node, uint32_t addr);
void poke32(sim::Node& node, uint32_t addr, uint32_t value);
// An integer place of 1, 2, 4 or 8 bytes (any other size throws KitError).
uint64_t peek(sim::Node& node, const Ref& place);
void poke(sim::Node& node, const Ref& place, uint64_t value);
// Every integer field of a struct place, in declaration order (arrays and nested structs
// are skipped): a protocol's counters, for reports and Lua tables.
std::vector<std::pair<std::string, uint64_t>> read_fields(sim::Node& node, const Ref& place);

} // namespace lanaikit::kit
