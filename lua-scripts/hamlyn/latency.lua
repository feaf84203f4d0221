-- latency.lua -- the Hamlyn paper's Figures 7 and 8: one-way latency of normal messages by
-- size, with 0, 4 and 60 bytes of metadata, for a packet size (256 bytes: Figure 7; 4096:
-- Figure 8), each point the mean of round trips / 2 (section 4). Normal messages are DMA
-- requests here (the paper's per-byte cost is outgoing DMA + wire + incoming DMA);
-- --direct lets the library use direct I/O where a message fits a queue entry.
--
--   lanaikit run lua-scripts/hamlyn/latency.lua [--packet 256] [--sizes 0,64,...]
--                [--metas 0,4,60] [--iters 50] [--direct] [--csv-dir DIR] [--svg-dir DIR]
--
-- Prints the table, then per metadata size a least-squares line (base us, ns per byte)
-- over the sizes, beside the paper's 17.4 us + 55.5 ns/byte (256-byte packets) and +7.7 us
-- with metadata.
local args = require "args"
local output = require "output"
local H = require "hamlyn.hamlyn_bench"

local o = args.parse(arg, { packet = 256, sizes = { 0, 32, 64, 128, 192, 256, 320, 384, 512, 640, 768, 1024 },
                            metas = { 0, 4, 60 }, iters = 50, direct = false, platform = "hamlyn",
                            csv_dir = "", svg_dir = "" },
  "usage: latency.lua [--packet BYTES] [--sizes 0,64,...] [--metas 0,4,60] [--iters N] [--direct] [--csv-dir DIR]")

local ctx = H.setup { platform = o.platform, packet = o.packet, opts = { direct_max = o.direct and 1 << 30 or 0 } }
local rows, series = {}, {}
for _, meta in ipairs(o.metas) do
  local pts = {}
  for _, size in ipairs(o.sizes) do
    local r = H.pingpong(ctx, size, { mode = "normal", meta = meta, iters = o.iters, verify = true })
    rows[#rows + 1] = { meta = meta, size = size, mean_us = r.mean_us, min_us = r.min_us, max_us = r.max_us }
    pts[#pts + 1] = { size, r.mean_us }
  end
  series[#series + 1] = { name = meta .. " B metadata", points = pts }
end
H.check_clean(ctx)

-- Least squares over the points of one series: base (us) and slope (ns per byte).
local function fit(pts)
  local n, sx, sy, sxx, sxy = #pts, 0, 0, 0, 0
  for _, p in ipairs(pts) do sx, sy, sxx, sxy = sx + p[1], sy + p[2], sxx + p[1] * p[1], sxy + p[1] * p[2] end
  local slope = (n * sxy - sx * sy) / (n * sxx - sx * sx)
  return (sy - slope * sx) / n, slope * 1000
end

io.write(("Hamlyn latency by size on %s, %d-byte packets, %s (mean of %d round trips / 2)\n\n")
  :format(ctx.platform.name, o.packet, o.direct and "direct I/O where it fits" or "DMA sends", o.iters))
io.write(output.table(rows, { "meta", "size", "mean_us", "min_us", "max_us" },
  { meta = "metadata B", size = "bytes", mean_us = "mean us", min_us = "min us", max_us = "max us" }))
io.write("\n")
local base0
for _, s in ipairs(series) do
  local base, slope = fit(s.points)
  base0 = base0 or base
  io.write(("%-16s base %.2f us, %.1f ns/byte%s\n"):format(s.name, base, slope,
    base0 ~= base and (" (+%.2f us over no metadata)"):format(base - base0) or ""))
end
io.write(("paper (256-byte packets): base %.1f us, %.1f ns/byte, +%.1f us with metadata\n")
  :format(H.paper.base_us, H.paper.per_byte_ns, H.paper.meta_extra_us))
output.csv(o.csv_dir, "hamlyn_latency_" .. o.packet, rows, { "meta", "size", "mean_us", "min_us", "max_us" })
output.svg(o.svg_dir, "hamlyn_latency_" .. o.packet, ("Hamlyn one-way latency, %d-byte packets"):format(o.packet),
  "us", series)
