-- bandwidth.lua -- the Hamlyn paper's Figure 9: one-way bandwidth by message size for
-- packet sizes from 256 bytes to 4 KB, the control program rebuilt per size (-D
-- PACKET_BYTES), bandwidth = size / one-way latency (round trips / 2, section 4). Then the
-- slope of the latency line over the large sizes (the paper: 30.7 MB/s with 4 KB packets,
-- 96% of the 32 MB/s outgoing DMA) and the receiving card's time per packet (12.9 us).
--
--   lanaikit run lua-scripts/hamlyn/bandwidth.lua [--packets 256,1024,2048,4096]
--                [--sizes 1024,...,40960] [--iters 5] [--csv-dir DIR] [--svg-dir DIR]
local args = require "args"
local output = require "output"
local H = require "hamlyn.hamlyn_bench"

local o = args.parse(arg, { packets = { 256, 1024, 2048, 4096 },
                            sizes = { 1024, 2048, 4096, 8192, 12288, 16384, 24576, 32768, 40960 },
                            iters = 5, platform = "hamlyn", csv_dir = "", svg_dir = "" },
  "usage: bandwidth.lua [--packets 256,...] [--sizes 1024,...] [--iters N] [--csv-dir DIR] [--svg-dir DIR]")

local rows, series, summary = {}, {}, {}
for _, packet in ipairs(o.packets) do
  local ctx = H.setup { platform = o.platform, packet = packet, opts = { direct_max = 0 },
                        area = 64 * 1024, send_bytes = 64 * 1024 }
  local prof = ctx.c:profile { firmware = ctx.fw, handlers = { "hamlyn_recv" }, nodes = { 1 } }
  local pts, lat = {}, {}
  for _, size in ipairs(o.sizes) do
    local r = H.pingpong(ctx, size, { mode = "normal", iters = o.iters, verify = true })
    rows[#rows + 1] = { packet = packet, size = size, mean_us = r.mean_us, mb_s = size / r.mean_us }
    pts[#pts + 1] = { size, size / r.mean_us }
    lat[#lat + 1] = { size, r.mean_us }
  end
  -- The slope of latency over the upper half of the sizes: bytes per us.
  local a, b = lat[#lat // 2 + 1], lat[#lat]
  local slope = (b[1] - a[1]) / (b[2] - a[2])
  local recv_us = 0
  for _, s in ipairs(prof:summary(1)) do
    if s.name == "hamlyn_recv" then recv_us = s.duration_ns and s.duration_ns.mean / 1000 or 0 end
  end
  prof:detach()
  H.check_clean(ctx)
  summary[#summary + 1] = { packet = packet, slope_mb_s = slope, peak_mb_s = pts[#pts][2], recv_us = recv_us }
  series[#series + 1] = { name = packet .. " B packets", points = pts }
end

io.write(("Hamlyn bandwidth by message size (size / one-way latency, mean of %d round trips / 2)\n\n"):format(o.iters))
io.write(output.table(rows, { "packet", "size", "mean_us", "mb_s" },
  { packet = "packet B", size = "bytes", mean_us = "one-way us", mb_s = "MB/s" }))
io.write("\n")
io.write(output.table(summary, { "packet", "slope_mb_s", "peak_mb_s", "recv_us" },
  { packet = "packet B", slope_mb_s = "latency slope MB/s", peak_mb_s = "MB/s at the largest size",
    recv_us = "hamlyn_recv us per packet" }))
io.write(("\npaper: 4 KB packets slope %.1f MB/s (target >= %.1f), asymptotic %.0f MB/s; receive %.1f us per packet\n")
  :format(H.paper.slope_4k_mb_s, H.paper.slope_4k_mb_s, H.paper.asymptotic_4k_mb_s, H.paper.recv_per_packet_us))
output.csv(o.csv_dir, "hamlyn_bandwidth", rows, { "packet", "size", "mean_us", "mb_s" })
output.svg(o.svg_dir, "hamlyn_bandwidth", "Hamlyn one-way bandwidth by packet size", "MB/s", series)
