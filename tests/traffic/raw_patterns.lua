-- Every generator of lua-scripts/lib/traffic.lua over raw on 4 nodes, payloads checked
-- byte for byte and in order per source (traffic's verify mode); afterwards every packet
-- sent was delivered and nothing was counted bad.
local common = require "common"
local traffic = common.traffic

local n = 4
local c, net, t = common.raw_cluster(n)
local sizes = { 0, 1, 100, 4096 }
local rows = {}
local function add(list)
  common.check_rows(list, list[1].pattern)
  for _, r in ipairs(list) do rows[#rows + 1] = r end
end
add(traffic.stream(t, { sizes = sizes, count = 40, warmup = 4 }))
add(traffic.bidirectional(t, { sizes = sizes, count = 30, warmup = 2 }))
add(traffic.alltoall(t, { sizes = sizes, count = 6, warmup = 1 }))
add(traffic.random(t, { sizes = sizes, count = 20, warmup = 2, seed = 7 }))
add(traffic.manytoone(t, { sizes = sizes, count = 20, warmup = 2, root = 2 }))
add(traffic.barrier(t, { count = 20, warmup = 2 }))
io.write(traffic.format(rows, "raw, 4 nodes, vmmc platform"))

local tot = common.check_clean(net, n, "patterns")
-- What the generators sent, counted from their parameters.
local per_size = (40 + 4) + 2 * (30 + 2) + n * (n - 1) * (6 + 1) + n * (20 + 2) + (n - 1) * (20 + 2)
local barrier = n * 2 * (20 + 2) -- log2(4) = 2 rounds, one message per node per round
lk.assert(tot.delivered == per_size * #sizes + barrier,
  ("expected %d deliveries, got %d"):format(per_size * #sizes + barrier, tot.delivered))
-- Streams of 4 KB must run near the PCI DMA rate (110 MB/s at 4 KB on this platform).
for _, r in ipairs(rows) do
  if r.pattern == "stream" and r.size == 4096 then
    lk.assert(r.mb_per_s > 70 and r.mb_per_s < 110, ("4 KB stream at %.1f MB/s"):format(r.mb_per_s))
  end
end
print("ok")
