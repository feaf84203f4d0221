-- clock_sweep.lua -- which NIC clock would DART's Operation Logic need for the paper's
-- projections for hardware DART (seeds/002, section 3): a 32-byte one-way latency under
-- 10 us on a 155 Mb/s ATM LAN and under 3 us on 622 Mb/s "for one transit of a fast ATM
-- switch". The NIC is vmmc.lua's LANai (its cycle model, PCI and host unchanged) with only
-- nic.clock_hz changed; the link is dart.lua's projected OC-3c / OC-12c, the switch
-- lanaikit's cell switch (net::CellSwitchConfig: 2 us transit, lanaikit's default; the
-- paper gives no figure). For each target the lowest clock on the grid that meets it, then
-- the exact MHz by bisection; if none does, which component floors the latency (the
-- breakdown at the highest clock: what does not shrink with the clock).
--
--   lanaikit run lua-scripts/dart/clock_sweep.lua [--mhz 33,50,...] [--iters 10] [--quick]
local args = require "args"
local output = require "output"
local B = require "dart.dart_bench"

local o = args.parse(arg, { mhz = { 33, 50, 66, 100, 133, 200, 266, 400, 533, 800, 1066 }, iters = 10,
                            quick = false, nic = "vmmc" },
  "usage: clock_sweep.lua [--mhz 33,50,...] [--iters N] [--quick] [--nic PLATFORM]")
if o.quick then o.iters, o.mhz = 3, { 33, 100, 400 } end

local function measure(mhz, link, sw, profile)
  local ctx = B.setup { link = link, switch = sw, nic = o.nic, clock_hz = mhz * 1e6 }
  return B.pingpong(ctx, { iters = o.iters, profile = profile })
end

local targets = { { name = "155.52 Mb/s, one switch, < 10 us", link = 1, us = B.paper.projected_155_us },
                  { name = "622.08 Mb/s, one switch, < 3 us", link = 2, us = B.paper.projected_622_us } }

local rows = {}
for _, mhz in ipairs(o.mhz) do
  local r = { mhz = mhz }
  r.oc3_switch = measure(mhz, 1, true).one_way_us
  r.oc12_switch = measure(mhz, 2, true).one_way_us
  r.oc12_direct = measure(mhz, 2, false).one_way_us
  -- A faster clock never makes a message slower.
  local prev = rows[#rows]
  if prev then
    for _, k in ipairs { "oc3_switch", "oc12_switch", "oc12_direct" } do
      assert(r[k] <= prev[k], ("clock_sweep.lua: %s slower at %d MHz than at %d MHz"):format(k, mhz, prev.mhz))
    end
  end
  rows[#rows + 1] = r
end
io.write(("DART 32-byte one-way latency (us) against the NIC clock (%s.lua's LANai, PCI and host; only the clock changes)\n\n"):format(o.nic))
io.write(output.table(rows, { "mhz", "oc3_switch", "oc12_switch", "oc12_direct" },
  { mhz = "NIC MHz", oc3_switch = "155.52 Mb/s, one switch", oc12_switch = "622.08 Mb/s, one switch",
    oc12_direct = "622.08 Mb/s, back to back" }))

io.write("\n| target (paper's projection) | lowest clock on the grid | lowest clock (bisection, 1 MHz) | latency there (us) |\n|---|---:|---:|---:|\n")
local col = { [1] = "oc3_switch", [2] = "oc12_switch" }
local floors = {}
for _, t in ipairs(targets) do
  local lo, hi -- the highest grid clock missing the target, the lowest meeting it
  for _, r in ipairs(rows) do
    if r[col[t.link]] < t.us then hi = hi or r.mhz else if not hi then lo = r.mhz end end
  end
  if hi then
    local at = hi
    local a, b = lo or 1, hi
    while b - a > 1 do
      local mid = (a + b) // 2
      if measure(mid, t.link, true).one_way_us < t.us then b = mid else a = mid end
    end
    at = b
    io.write(("| %s | %d MHz | %d MHz | %.3f |\n"):format(t.name, hi, at, measure(at, t.link, true).one_way_us))
  else
    io.write(("| %s | none up to %d MHz | - | - |\n"):format(t.name, o.mhz[#o.mhz]))
    floors[#floors + 1] = t
  end
end

-- What does not shrink with the clock: the breakdown at the highest clock.
for _, t in ipairs(floors) do
  local top = o.mhz[#o.mhz]
  local a = measure(top, t.link, true, true).parts
  local clocked = a.send_cpu + a.recv_cpu
  local fixed = { { part = "cells on the wire (2 links x 53 B)", us = 2 * a.cell_ns / 1000 },
                  { part = "link latency (2 links)", us = 2 * a.latency_ns / 1000 },
                  { part = "switch transit (lanaikit's default, no paper figure)", us = a.transit_ns / 1000 },
                  { part = "host PIO writes (issue)", us = a.host_pio / 1000 },
                  { part = "PCI: write lands, card notices", us = a.to_card / 1000 },
                  { part = "DMA waits (fetch + deposit)", us = (a.send_dma + a.recv_dma) / 1000 },
                  { part = "card CPU (send + receive handlers, clocked)", us = clocked / 1000 },
                  { part = "rest (loop turns, host notice)", us = (a.total - a.wire - a.host_pio - a.to_card - a.send - a.recv) / 1000 },
                  { part = "total", us = a.total / 1000 } }
  io.write(("\n%s: not met up to %d MHz. Where the %.3f us go at %d MHz:\n\n"):format(t.name, top, a.total / 1000, top))
  io.write(output.table(fixed, { "part", "us" }, nil, { "l", "r" }))
  local network = (2 * a.cell_ns + 2 * a.latency_ns + a.transit_ns) / 1000
  io.write(("\nThe network alone (wire, latency, switch transit) is %.3f us%s.\n"):format(network,
    network >= t.us and (", already over " .. t.us .. " us: the switch transit floors it") or ""))
end
