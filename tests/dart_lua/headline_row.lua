-- DART's main-job rows (lua-scripts/dart/headline.lua): on its own testbed and on the
-- common one, with what a row holds (lib/paper.lua) and values the model implies.
local h = require "dart.headline"
local home = h(nil)[1]
assert(home.protocol == "DART" and home.testbed == "dart" and home.paper.latency_us == 24.5)
-- One 32-byte cell one way takes at least the cell's time on the 140 Mb/s wire (3.03 us)
-- plus both cards' handlers; the 33 MHz card keeps it above the paper's hardware projection.
assert(home.latency_us > 3.03 + 2 * 4 and home.latency_us < 24.5, home.latency_us)
-- A 4096-byte block: 86 cells of 48 bytes and the control cell, at most 140 Mb/s of cells.
assert(home.bandwidth_bytes == 4096 and home.bandwidth_mb_s > 0 and home.bandwidth_mb_s < 140 / 8 * 48 / 53, home.bandwidth_mb_s)
assert(home.insns_per_packet > 100 and home.insns_per_packet < 1000, home.insns_per_packet)
local common = h("vmmc")[1]
assert(common.testbed == "vmmc")
-- The common testbed's NIC and PCI are the ones DART's testbed borrows: the same numbers.
assert(common.latency_us == home.latency_us and common.insns_per_packet == home.insns_per_packet)
print(("DART headline: %.2f us, %.1f MB/s, %.0f insns"):format(home.latency_us, home.bandwidth_mb_s, home.insns_per_packet))
