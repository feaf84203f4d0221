-- bandwidth.lua -- the BIP paper's throughput figure (section 5.2): bandwidth by message
-- size with the latency program ("we use exactly the same program than for the latency
-- measurements": size / (median round trip / 2)), the peak, and the half-bandwidth point.
--
--   lanaikit run lua-scripts/bip/bandwidth.lua [--sizes 4,...] [--iters N] [--platform bip]
--                [--csv-dir DIR]
--
-- Sizes default to powers of two from 4 bytes to 4 MB; the number of round trips per size
-- shrinks with the size (--iters for the small ones, at least 3). The half-bandwidth point
-- is where the curve first reaches half of its peak, interpolated between the two sizes
-- around it (linearly in log size).
local args = require "args"
local output = require "output"
local B = require "bip.bip_bench"

local o = args.parse(arg, { sizes = args.pow2(4, 4 << 20), iters = 100, platform = "bip", csv_dir = "" },
  "usage: bandwidth.lua [--sizes 4,...] [--iters N] [--platform NAME] [--csv-dir DIR]")

local ctx = B.setup { platform = o.platform, max_bytes = args.max(o.sizes) }
local rows = {}
for _, size in ipairs(o.sizes) do
  local iters = math.max(3, math.min(o.iters, (o.iters * 4096) // math.max(size, 1)))
  local r = B.pingpong(ctx, size, { iters = iters, verify = size <= (1 << 16) })
  rows[#rows + 1] = { size = size, iters = iters, one_way_us = r.median_us, mb_s = r.mb_s,
                      packet = size > ctx.bip:limits().short_max and ctx.bip:best_packet(size) or nil }
end
B.check_clean(ctx)

-- Peak and the half-bandwidth point.
local peak = rows[1]
for _, r in ipairs(rows) do if r.mb_s > peak.mb_s then peak = r end end
local half, half_size = peak.mb_s / 2, nil
for i, r in ipairs(rows) do
  if r.mb_s >= half then
    if i == 1 then half_size = r.size break end
    local a = rows[i - 1]
    local f = (half - a.mb_s) / (r.mb_s - a.mb_s)
    half_size = math.floor(2 ^ (math.log(a.size, 2) + f * (math.log(r.size, 2) - math.log(a.size, 2))) + 0.5)
    break
  end
end

io.write(("BIP throughput on %s: size / (median round trip / 2), MB = 10^6 bytes\n\n"):format(ctx.platform.name))
io.write(output.table(rows, { "size", "iters", "one_way_us", "mb_s", "packet" }, {
  size = "bytes", iters = "round trips", one_way_us = "one-way us", mb_s = "MB/s", packet = "packet bytes" }))
io.write(("\npeak %.1f MB/s at %d bytes (paper: %d MB/s, more than 95%% of the 132 MB/s bus)\n")
  :format(peak.mb_s, peak.size, B.paper.peak_mb_s))
io.write(("half of peak (%.1f MB/s) at %s bytes (paper: %d MB/s at %d bytes)\n")
  :format(half, half_size and tostring(half_size) or "-", B.paper.half_mb_s, B.paper.half_bytes))
local csv = output.csv(o.csv_dir, "bip_bandwidth", rows, { "size", "iters", "one_way_us", "mb_s", "packet" })
if csv then
  local svg = output.svg(o.csv_dir, "bip_bandwidth", "BIP throughput (ping-pong)", "MB/s",
    { { name = "BIP", rows = rows, y = "mb_s" } }, false)
  io.write(("wrote %s, %s\n"):format(csv, svg))
end
return { peak = peak, half_size = half_size, rows = rows }
