-- fig2_latency.lua -- the VMMC paper's Figure 2: one-way latency by ping-pong
-- (synchronous send, alternating traffic), with the LCP's instructions per packet.
--
--   lanaikit run lua-scripts/vmmc/fig2_latency.lua [--sizes 4,8,...] [--iters 20]
--                [--warmup 2] [--csv-dir DIR]
--
-- Node 0 sends S bytes to node 1, which waits for the message's last word and sends S
-- bytes back; one-way latency = round trip / 2 (mean over --iters round trips after
-- --warmup). Sizes default to 4 B .. 64 KB (powers of two). Messages up to 128 bytes are
-- short sends (PIO into the send queue), longer ones long sends (host DMA, page chunks).
-- Prints a table with the instructions per packet of vmmc_send_short, vmmc_send_chunk
-- (sender) and vmmc_recv (receiver), measured with c:profile for that size alone, and
-- packets per message; writes DIR/fig2_latency.csv and DIR/fig2_latency.svg
-- (default DIR: vmmc-results).
local args = require "args"
local output = require "output"
local B = require "vmmc.vmmc_bench"

local o = args.parse(arg, { sizes = args.pow2(4, 65536), iters = 20, warmup = 2, csv_dir = "vmmc-results" },
  "usage: fig2_latency.lua [--sizes 4,8,...] [--iters N] [--warmup N] [--csv-dir DIR]")
local ctx = B.setup { nodes = 2, max_bytes = args.max(o.sizes) }
local rows = B.pingpong(ctx, o.sizes, { iters = o.iters, warmup = o.warmup })
B.check_clean(ctx)

io.write(("VMMC Figure 2: one-way latency by ping-pong, %s platform (%d round trips per size)\n\n")
  :format(ctx.platform.name, o.iters))
io.write(output.table(rows, B.columns.pingpong, {
  size = "bytes", short = "short send", one_way_us = "one-way us", one_way_min_us = "min us",
  one_way_max_us = "max us", packets = "packets/msg", insns_send_short = "send_short insns/pkt",
  insns_send_chunk = "send_chunk insns/pkt", insns_recv = "recv insns/pkt" }))
for _, r in ipairs(rows) do
  if r.size == 4 then
    io.write(("\none-word one-way latency: %.2f us (paper: %.1f us; %+.0f%%)\n")
      :format(r.one_way_us, B.paper.latency_us, 100 * (r.one_way_us / B.paper.latency_us - 1)))
  end
end
local csv = output.csv(o.csv_dir, "fig2_latency", rows, B.columns.pingpong)
local shorts, longs = {}, {}
for _, r in ipairs(rows) do
  if r.short then shorts[#shorts + 1] = r else longs[#longs + 1] = r end
end
local svg = output.svg(o.csv_dir, "fig2_latency", "VMMC one-way latency (ping-pong)", "one-way latency (us)", {
  { name = "short sends (PIO)", rows = shorts, y = "one_way_us" },
  { name = "long sends (DMA)", rows = longs, y = "one_way_us" },
}, true)
if csv then io.write(("wrote %s, %s\n"):format(csv, svg)) end
