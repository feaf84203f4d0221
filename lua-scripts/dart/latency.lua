-- latency.lua -- DART's 32-byte application-to-application one-way latency (the paper's
-- measurement, seeds/002 section 3) without and with one cell switch, on the testbed's
-- 140 Mb/s link and the two links the paper projects for (OC-3c 155.52 and OC-12c 622.08
-- Mb/s: dart.lua's cells.projected), beside the paper's 24.5 / 30 us (software DART) and
-- its projections for hardware DART (< 10 us at 155, < 3 us at 622 through one switch),
-- then where the time of one one-way message goes (dart_bench.lua's B.breakdown: measured
-- segments that add up to the one-way time, parts derived from the profile and the
-- platform's and network's parameters).
--
--   lanaikit run lua-scripts/dart/latency.lua [--iters 20] [--quick] [--csv-dir DIR]
--
-- The NIC is vmmc.lua's LANai 4.1 at 33 MHz with its PCI (borrowed: the paper's card has
-- none), --nic another platform's. Every number is simulated, hence deterministic.
local args = require "args"
local output = require "output"
local B = require "dart.dart_bench"

local o = args.parse(arg, { iters = 20, quick = false, nic = "vmmc", csv_dir = "" },
  "usage: latency.lua [--iters N] [--quick] [--nic PLATFORM] [--csv-dir DIR]")
if o.quick then o.iters = 5 end

local links = { { link = "line", name = "140 Mb/s (TAXI, the paper's TCA-100)", paper = B.paper.software_us,
                  paper_sw = B.paper.software_switch_us, note = "software DART, measured" },
                { link = 1, name = "155.52 Mb/s (OC-3c)", paper_sw = B.paper.projected_155_us,
                  note = "hardware DART, projected: under" },
                { link = 2, name = "622.08 Mb/s (OC-12c)", paper_sw = B.paper.projected_622_us,
                  note = "hardware DART, projected: under" } }

local rows, parts = {}, {}
for _, l in ipairs(links) do
  local r = { link = l.name }
  for _, sw in ipairs { false, true } do
    local ctx = B.setup { link = l.link, switch = sw, nic = o.nic }
    local res = B.pingpong(ctx, { iters = o.iters, profile = true })
    -- The breakdown's segments are the one-way time, message by message.
    assert(math.abs(res.parts.total / 1000 - res.one_way_us) < 0.05,
           ("latency.lua: breakdown %.3f us vs one-way %.3f us"):format(res.parts.total / 1000, res.one_way_us))
    r[sw and "switch_us" or "direct_us"] = res.one_way_us
    parts[#parts + 1] = { name = l.name .. (sw and ", one switch" or ", back to back"), parts = res.parts }
  end
  -- The switch adds a second cell time, a link and its transit: never less.
  assert(r.switch_us > r.direct_us, "latency.lua: the switch made it faster")
  r.paper = l.paper and ("%.1f / %.0f (%s)"):format(l.paper, l.paper_sw, l.note)
            or ("< %.0f through one switch (%s)"):format(l.paper_sw, (l.note:gsub(": under", "")))
  r.meets = l.paper and "-" or (r.switch_us < l.paper_sw and "yes" or "no")
  rows[#rows + 1] = r
end

io.write(("DART 32-byte one-way latency (us; mean of round trip / 2 over %d round trips), NIC %s\n\n")
  :format(o.iters, o.nic .. ".lua's (borrowed) with its PCI"))
io.write(output.table(rows, { "link", "direct_us", "switch_us", "paper", "meets" },
  { link = "link", direct_us = "back to back", switch_us = "through one switch",
    paper = "paper (no switch / switch)", meets = "under the projection?" }, { "l", "r", "r", "l", "l" }))
output.csv(o.csv_dir, "dart_latency", rows, { "link", "direct_us", "switch_us" })

for _, p in ipairs(parts) do
  io.write(("\n### One message, %s: %.3f us\n\n"):format(p.name, p.parts.total / 1000))
  io.write(output.table(B.breakdown_rows(p.parts), { "part", "us", "how" }, nil, { "l", "r", "l" }))
end
